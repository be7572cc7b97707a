package io.github.trtrace.core.sampling;

import java.util.Map;

/**
 * Counters of a {@link Sampler} since it was built.
 *
 * <pre>{@code
 * SamplerStats s = sampler.stats();
 * long slow = s.keptByReason().getOrDefault("slow_p99", 0L);
 * }</pre>
 *
 * @param keptByReason records kept, by reason ({@code "error"}, {@code "slow_p99"}, {@code "sampled"}, ...);
 *     reasons never given are absent
 * @param sampledOut records dropped by head sampling
 * @param modelsTracked models with their own latency window
 * @param untrackedModelDecisions decisions for models beyond the model bound (or with over-long
 *     names), whose latencies share one "other" window
 */
public record SamplerStats(
    Map<String, Long> keptByReason, long sampledOut, int modelsTracked, long untrackedModelDecisions) {

  public SamplerStats {
    keptByReason = Map.copyOf(keptByReason);
  }

  /** All decisions: kept plus sampled out. */
  public long decisions() {
    long kept = 0;
    for (long n : keptByReason.values()) {
      kept += n;
    }
    return kept + sampledOut;
  }
}
