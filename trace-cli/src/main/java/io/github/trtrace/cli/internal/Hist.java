package io.github.trtrace.cli.internal;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * A latency histogram in constant memory: HdrHistogram over whole microseconds up to one hour, two
 * significant digits (values within 1 % of what they were; longer latencies count as one hour).
 * The exact maximum is kept aside.
 */
final class Hist {
  static final long HIGHEST_MICROS = 3_600_000_000L;

  private final Histogram h;
  private double maxMs = Double.NaN;
  private double sumMs;

  Hist() {
    this(2);
  }

  /** With {@code digits} significant digits (3: within 0.1 %, for medians that a sentence compares against). */
  Hist(int digits) {
    h = new Histogram(1, HIGHEST_MICROS, digits);
  }

  void record(double ms) {
    long us = Math.max(1, Math.min(HIGHEST_MICROS, Math.round(ms * 1000)));
    h.recordValue(us);
    sumMs += ms;
    if (!(ms <= maxMs)) {
      maxMs = ms;
    }
  }

  void add(Hist other) {
    h.add(other.h);
    sumMs += other.sumMs;
    if (!(other.maxMs <= maxMs) && !Double.isNaN(other.maxMs)) {
      maxMs = other.maxMs;
    }
  }

  long count() {
    return h.getTotalCount();
  }

  double mean() {
    return count() == 0 ? Double.NaN : sumMs / count();
  }

  /** The {@code p}-th percentile (0..100) in ms; NaN when empty. */
  double percentile(double p) {
    if (count() == 0) {
      return Double.NaN;
    }
    return Math.min(h.getValueAtPercentile(p) / 1000.0, maxMs);
  }

  double max() {
    return maxMs;
  }

  /** Values at or above {@code ms} (to the histogram's precision). */
  long countAtOrAbove(double ms) {
    long us = Math.max(1, Math.min(HIGHEST_MICROS, Math.round(ms * 1000)));
    return h.getCountBetweenValues(us, HIGHEST_MICROS);
  }

  /** Counts per logarithmic bin from {@code firstMs}, each {@code factor} times wider: bin upper bounds (ms) and counts. */
  double[][] logBins(double firstMs, double factor) {
    java.util.List<double[]> out = new java.util.ArrayList<>();
    if (count() == 0) {
      return new double[0][];
    }
    for (HistogramIterationValue v : h.logarithmicBucketValues(Math.max(1, Math.round(firstMs * 1000)), factor)) {
      out.add(new double[] {v.getValueIteratedTo() / 1000.0, v.getCountAddedInThisIterationStep()});
    }
    return out.toArray(new double[0][]);
  }
}
