package io.github.trtrace.tensorrt.engine;

import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;

/**
 * Decides which requests get per-layer profiling (it costs GPU time, so it is on demand): a sampled
 * fraction of requests, and/or the next N requests after a slow one. Thread-safe.
 *
 * <pre>{@code
 * ProfilingPolicy policy = ProfilingPolicy.builder()
 *     .sampleRate(0.01)                              // 1% of requests, at random
 *     .slowThreshold(Duration.ofMillis(250)).profileAfterSlow(5)   // and the 5 after a slow one
 *     .build();
 * boolean profile = policy.shouldProfile();   // at request start
 * policy.onCompleted(latencyMs);              // at request end
 * }</pre>
 */
public interface ProfilingPolicy {

  /** Whether the request starting now should be profiled. */
  boolean shouldProfile();

  /** Reports a finished request's end-to-end latency. */
  void onCompleted(double latencyMs);

  /**
   * Reports a finished request's latency, once per request (not per launch), and whether it was
   * profiled. A profiled request is slowed by its own profiling, so it does not re-arm "after slow";
   * by default the same as {@link #onCompleted(double)}.
   */
  default void onCompleted(double latencyMs, boolean profiled) {
    onCompleted(latencyMs);
  }

  /** Never profiles. */
  static ProfilingPolicy never() {
    return builder().build();
  }

  /** A builder; by default nothing is profiled. */
  static Builder builder() {
    return new Builder();
  }

  /** Configures a {@link ProfilingPolicy}. */
  final class Builder {
    private double sampleRate;
    private double slowThresholdMs = Double.NaN;
    private int afterSlowCount = 1;
    private DoubleSupplier random = new SplittableRandom()::nextDouble;

    private Builder() {}

    /** Fraction of requests profiled at random, 0..1. */
    public Builder sampleRate(double rate) {
      this.sampleRate = RateSampler.checkRate(rate);
      return this;
    }

    /**
     * A request whose end-to-end latency exceeds {@code threshold} is slow: the requests after it are
     * profiled ({@link #profileAfterSlow(int)}, one by default).
     *
     * @throws IllegalArgumentException if {@code threshold} is zero or negative
     */
    public Builder slowThreshold(Duration threshold) {
      Objects.requireNonNull(threshold, "threshold");
      if (threshold.isNegative() || threshold.isZero()) {
        throw new IllegalArgumentException("slowThreshold must be > 0: " + threshold);
      }
      this.slowThresholdMs = threshold.toNanos() / 1e6;
      return this;
    }

    /**
     * How many requests are profiled after a slow one (see {@link #slowThreshold(Duration)}).
     *
     * @throws IllegalArgumentException if {@code requests < 1}
     */
    public Builder profileAfterSlow(int requests) {
      if (requests < 1) {
        throw new IllegalArgumentException("profileAfterSlow must be >= 1: " + requests);
      }
      this.afterSlowCount = requests;
      return this;
    }

    /** Source of uniform numbers in [0, 1) for sampling; inject a seeded one for deterministic tests. */
    public Builder random(DoubleSupplier uniform) {
      this.random = Objects.requireNonNull(uniform, "uniform");
      return this;
    }

    /** Builds the policy. */
    public ProfilingPolicy build() {
      // without a slow threshold nothing is slow: the count has no effect
      int afterSlow = Double.isNaN(slowThresholdMs) ? 0 : afterSlowCount;
      return new DefaultProfilingPolicy(sampleRate, slowThresholdMs, afterSlow, random);
    }
  }
}

final class DefaultProfilingPolicy implements ProfilingPolicy {
  private final RateSampler sampler;
  private final double slowThresholdMs;
  private final int afterSlowCount;
  private final AtomicInteger pending = new AtomicInteger();

  DefaultProfilingPolicy(double sampleRate, double slowThresholdMs, int afterSlowCount, DoubleSupplier random) {
    this.sampler = new RateSampler(sampleRate, random);
    this.slowThresholdMs = slowThresholdMs;
    this.afterSlowCount = afterSlowCount;
  }

  @Override
  public boolean shouldProfile() {
    return pending.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0 || sampler.sample();
  }

  @Override
  public void onCompleted(double latencyMs) {
    onCompleted(latencyMs, false);
  }

  /** No sampling and nothing counts as slow: {@link #shouldProfile()} is always false. */
  boolean neverProfiles() {
    return sampler.rate() <= 0 && afterSlowCount == 0;
  }

  @Override
  public void onCompleted(double latencyMs, boolean profiled) {
    if (!profiled && afterSlowCount > 0 && latencyMs > slowThresholdMs) {
      pending.set(afterSlowCount);
    }
  }
}
