package io.github.trtrace.core.sampling;

import java.util.Map;

/** A snapshot of a sampler's counters ({@link Sampler.Stats} says what each means). */
record SamplerCounts(Map<String, Long> keptByReason, long sampledOut, int modelsTracked, long untrackedModelDecisions)
    implements Sampler.Stats {

  SamplerCounts {
    keptByReason = Map.copyOf(keptByReason);
  }
}
