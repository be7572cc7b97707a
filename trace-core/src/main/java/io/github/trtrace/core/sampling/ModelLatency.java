package io.github.trtrace.core.sampling;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One model's latency window and its cached adaptive threshold. The percentile is recomputed at
 * most once per {@link #RECOMPUTE_RECORDS} records or {@link #RECOMPUTE_NANOS}, whichever comes
 * first, by whichever caller notices; the others read the cached volatile value meanwhile.
 */
final class ModelLatency {
  static final long RECOMPUTE_RECORDS = 64;
  static final long RECOMPUTE_NANOS = 100_000_000L;

  private final SlidingHistogram histogram;
  private final double percentile;
  private final long minSamples;
  private final AtomicLong records = new AtomicLong();
  private final AtomicBoolean computing = new AtomicBoolean();
  private volatile double thresholdMs = Double.POSITIVE_INFINITY;
  private volatile long recordsAtCompute;
  private volatile long computedAtNanos;

  ModelLatency(SlidingHistogram histogram, double percentile, long minSamples, long nowNanos) {
    this.histogram = histogram;
    this.percentile = percentile;
    this.minSamples = minSamples;
    this.computedAtNanos = nowNanos;
  }

  /**
   * The current adaptive threshold in milliseconds: the upper bound of the histogram bucket holding
   * the percentile (at most 1/32 above the exact value); {@code +Infinity} while the window holds
   * fewer than {@code minSamples} values (no verdict yet).
   */
  double thresholdMs(long nowNanos) {
    long n = records.get();
    if ((n - recordsAtCompute >= RECOMPUTE_RECORDS || nowNanos - computedAtNanos >= RECOMPUTE_NANOS)
        && computing.compareAndSet(false, true)) {
      try {
        int bucket = histogram.quantileBucket(percentile, nowNanos, minSamples);
        // The bucket's upper bound, not its midpoint: only latencies above every value sharing the
        // percentile's bucket are slow, so a steady service is never flagged request after request.
        thresholdMs =
            bucket < 0 ? Double.POSITIVE_INFINITY : LogLinearBuckets.upperBound(bucket) / 1000.0;
        recordsAtCompute = n;
        computedAtNanos = nowNanos;
      } finally {
        computing.set(false);
      }
    }
    return thresholdMs;
  }

  void record(double latencyMs, long nowNanos) {
    histogram.record(latencyMs * 1000.0, nowNanos);
    records.incrementAndGet();
  }
}
