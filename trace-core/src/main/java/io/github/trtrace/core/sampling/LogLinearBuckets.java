package io.github.trtrace.core.sampling;

/**
 * Bucket layout of the latency histogram: log-linear over 1 µs .. 2^32 µs (about 71 minutes, so
 * the one hour the histogram is meant for fits), 32 octaves of 32 equal-width sub-buckets each.
 *
 * <p>The index comes straight from the bits of the {@code double}: the binary exponent picks the
 * octave, the top 5 mantissa bits pick the sub-bucket. No logarithm, no loop, no rounding to whole
 * microseconds (so sub-millisecond latencies keep their resolution). A bucket is at most 1/32 of
 * its lower bound wide and is represented by its midpoint, so any value is reported within
 * 1/64 (1.6 %) relative error: about two significant digits.
 */
final class LogLinearBuckets {
  static final int SUB_BUCKET_BITS = 5;
  static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
  static final int OCTAVES = 32;
  static final int COUNT = OCTAVES * SUB_BUCKETS;
  static final double MIN_MICROS = 1.0;
  /** The largest value that still has its own bucket; larger values land in the last bucket. */
  static final double MAX_MICROS = Math.nextDown(0x1p32);

  private LogLinearBuckets() {}

  /** Bucket of a value in microseconds; values outside the range are clamped, NaN goes to bucket 0. */
  static int index(double micros) {
    double v = micros >= MIN_MICROS ? Math.min(micros, MAX_MICROS) : MIN_MICROS;
    int exponent = Math.getExponent(v); // 0..31 after clamping
    int sub = (int) (Double.doubleToRawLongBits(v) >>> (52 - SUB_BUCKET_BITS)) & (SUB_BUCKETS - 1);
    return (exponent << SUB_BUCKET_BITS) | sub;
  }

  /** Lower bound of a bucket, microseconds. */
  static double lowerBound(int index) {
    int exponent = index >>> SUB_BUCKET_BITS;
    int sub = index & (SUB_BUCKETS - 1);
    return Math.scalb(1.0 + (double) sub / SUB_BUCKETS, exponent);
  }

  /** Upper bound of a bucket (exclusive), microseconds: the lower bound of the next one. */
  static double upperBound(int index) {
    return lowerBound(index + 1);
  }

  /** The value reported for a bucket: its midpoint, microseconds. */
  static double representative(int index) {
    int exponent = index >>> SUB_BUCKET_BITS;
    int sub = index & (SUB_BUCKETS - 1);
    return Math.scalb(1.0 + (sub + 0.5) / SUB_BUCKETS, exponent);
  }
}
