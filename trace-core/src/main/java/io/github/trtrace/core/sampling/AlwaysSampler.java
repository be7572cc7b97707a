package io.github.trtrace.core.sampling;

import io.github.trtrace.core.Status;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Keeps every record with reason {@code "always"}. */
final class AlwaysSampler implements Sampler {
  private final LongAdder kept = new LongAdder();

  @Override
  public String decide(String modelName, Status status, double latencyMs) {
    kept.increment();
    return ALWAYS;
  }

  @Override
  public Sampler.Stats stats() {
    long n = kept.sum();
    return new SamplerCounts(n == 0 ? Map.of() : Map.of(ALWAYS, n), 0, 0, 0);
  }

  @Override
  public String toString() {
    return "Sampler.always()";
  }
}
