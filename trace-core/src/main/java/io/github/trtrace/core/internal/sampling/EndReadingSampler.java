package io.github.trtrace.core.internal.sampling;

import io.github.trtrace.core.Status;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A sampler that can decide with the monotonic reading the trace took at the request's end, instead of
 * reading its clock again a moment later on the same thread (issue 22: a clock read costs about 30 ns
 * on the kvm-clock machines measured, and the caller path reads it once per stage edge). The tracer uses
 * it only when the reading comes from the sampler's own clock (see {@link #sharesClock}).
 */
public interface EndReadingSampler {
  /**
   * What {@link io.github.trtrace.core.sampling.Sampler#decide} returns, with {@code nowNanos} taken
   * from this sampler's clock as the request ended.
   */
  @Nullable String decide(String modelName, Status status, double latencyMs, long nowNanos);

  /**
   * Whether readings of {@code tracerClock} are readings of this sampler's clock: the same supplier, or
   * both {@code System.nanoTime} ({@code systemClocks}: the tracer's clock is the system's, and this
   * sampler was not given a clock of its own).
   */
  boolean sharesClock(LongSupplier tracerClock, boolean systemClocks);
}
