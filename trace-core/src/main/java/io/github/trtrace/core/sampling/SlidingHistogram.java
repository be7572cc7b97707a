package io.github.trtrace.core.sampling;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A latency histogram over a sliding time window, kept as a ring of sub-windows (for example 6 of
 * 10 s for a one-minute window). A sub-window is cleared by the first record that arrives after
 * its slot comes round again; reads ignore slots whose time is past.
 *
 * <p>Why not HdrHistogram: {@code trace-core} has no run-time dependency but the SLF4J API, and
 * this needs only a fixed bucket layout, one atomic increment per record and a percentile scan.
 *
 * <p>Thread-safe without locks. Recording is one atomic increment, plus a compare-and-set once per
 * sub-window to claim and clear a slot. A record that races with the clearing of its slot at a
 * sub-window boundary may be lost; the estimate tolerates that. Memory: {@code subWindows} x 1024
 * int counters (4 KiB each).
 */
final class SlidingHistogram {
  private static final int B = LogLinearBuckets.COUNT;

  private final int subWindows;
  private final long subWindowNanos;
  private final AtomicLongArray epochs;
  private final AtomicIntegerArray counts;

  SlidingHistogram(int subWindows, long subWindowNanos) {
    if (subWindows < 1 || subWindows > 32 || subWindowNanos < 1) {
      throw new IllegalArgumentException("need 1..32 sub-windows of >= 1 ns");
    }
    this.subWindows = subWindows;
    this.subWindowNanos = subWindowNanos;
    this.epochs = new AtomicLongArray(subWindows);
    for (int i = 0; i < subWindows; i++) {
      epochs.set(i, Long.MIN_VALUE);
    }
    this.counts = new AtomicIntegerArray(subWindows * B);
  }

  /** Records one value (microseconds) observed at {@code nowNanos}. */
  void record(double micros, long nowNanos) {
    long epoch = Math.floorDiv(nowNanos, subWindowNanos);
    int slot = (int) Math.floorMod(epoch, (long) subWindows);
    long seen = epochs.get(slot);
    if (seen < epoch && epochs.compareAndSet(slot, seen, epoch)) {
      int base = slot * B;
      for (int i = 0; i < B; i++) {
        counts.set(base + i, 0);
      }
    }
    // seen > epoch: this thread's clock reading is older than the slot's; count it there anyway.
    counts.incrementAndGet(slot * B + LogLinearBuckets.index(micros));
  }

  /** Number of values in the window ending at {@code nowNanos}. */
  long count(long nowNanos) {
    return count(liveSlots(nowNanos));
  }

  private long count(int liveSlots) {
    long total = 0;
    for (int s = 0; s < subWindows; s++) {
      if ((liveSlots & (1 << s)) != 0) {
        int base = s * B;
        for (int i = 0; i < B; i++) {
          total += counts.get(base + i);
        }
      }
    }
    return total;
  }

  /**
   * The {@code p}-quantile (nearest rank: the smallest bucket holding the {@code ceil(p * n)}-th
   * value) of the window ending at {@code nowNanos}, in microseconds, or NaN when the window holds
   * fewer than {@code minSamples} values. Allocates nothing.
   */
  double quantileMicros(double p, long nowNanos, long minSamples) {
    int bucket = quantileBucket(p, nowNanos, minSamples);
    return bucket < 0 ? Double.NaN : LogLinearBuckets.representative(bucket);
  }

  /**
   * The index of the bucket holding the {@code p}-quantile (nearest rank) of the window ending at
   * {@code nowNanos}, or -1 when the window holds fewer than {@code minSamples} values.
   */
  int quantileBucket(double p, long nowNanos, long minSamples) {
    int liveSlots = liveSlots(nowNanos);
    long total = count(liveSlots);
    if (total == 0 || total < minSamples) {
      return -1;
    }
    long rank = Math.max(1L, Math.min(total, (long) Math.ceil(p * total)));
    long cumulative = 0;
    for (int i = 0; i < B; i++) {
      for (int s = 0; s < subWindows; s++) {
        if ((liveSlots & (1 << s)) != 0) {
          cumulative += counts.get(s * B + i);
        }
      }
      if (cumulative >= rank) {
        return i;
      }
    }
    // Counts moved under us (concurrent records or a slot cleared mid-scan): report the top.
    return B - 1;
  }

  /** Bit {@code s} set when slot {@code s} holds data of the window ending at {@code nowNanos}. */
  private int liveSlots(long nowNanos) {
    long current = Math.floorDiv(nowNanos, subWindowNanos);
    int mask = 0;
    for (int s = 0; s < subWindows; s++) {
      long e = epochs.get(s);
      if (e != Long.MIN_VALUE && e <= current && current - e < subWindows) {
        mask |= 1 << s;
      }
    }
    return mask;
  }
}
