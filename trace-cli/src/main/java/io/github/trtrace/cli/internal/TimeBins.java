package io.github.trtrace.cli.internal;

/**
 * Per-time-bin sums over the records' arrival times in constant memory: {@link #BINS} bins that
 * double their width (merging neighbours) whenever a record falls outside the covered range, on
 * either side. Records may come in any order.
 */
final class TimeBins {
  static final int BINS = 240;
  static final int ARRIVALS = 0;
  static final int REJECTED = 1;
  static final int FAILED = 2;
  static final int QUEUE_SUM = 3;
  static final int QUEUE_MAX = 4;
  static final int LATENCY_SUM = 5;
  static final int QUEUE_N = 6;
  static final int FIELDS = 7;

  private double[][] bins = new double[BINS][FIELDS];
  private long origin = Long.MIN_VALUE;
  private long width = 1_000_000; // 1 s in microseconds

  void add(long micros, boolean rejected, boolean failed, double queueMs, double latencyMs) {
    if (micros == Rec.NO_TIME) {
      return;
    }
    if (origin == Long.MIN_VALUE) {
      origin = Math.floorDiv(micros, width) * width;
    }
    while (micros < origin) {
      growLeft();
    }
    while (micros - origin >= width * BINS) {
      growRight();
    }
    double[] b = bins[(int) ((micros - origin) / width)];
    b[ARRIVALS]++;
    if (rejected) {
      b[REJECTED]++;
    }
    if (failed) {
      b[FAILED]++;
    }
    if (queueMs >= 0) {
      b[QUEUE_SUM] += queueMs;
      b[QUEUE_N]++;
      b[QUEUE_MAX] = Math.max(b[QUEUE_MAX], queueMs);
    }
    b[LATENCY_SUM] += latencyMs;
  }

  /** Covered range doubles to the right: bin j becomes j / 2. */
  private void growRight() {
    double[][] n = new double[BINS][FIELDS];
    for (int j = 0; j < BINS; j++) {
      merge(n[j / 2], bins[j]);
    }
    bins = n;
    width *= 2;
  }

  /** Covered range doubles to the left: bin j becomes BINS / 2 + j / 2. */
  private void growLeft() {
    double[][] n = new double[BINS][FIELDS];
    for (int j = 0; j < BINS; j++) {
      merge(n[BINS / 2 + j / 2], bins[j]);
    }
    origin -= width * BINS;
    bins = n;
    width *= 2;
  }

  private static void merge(double[] into, double[] from) {
    for (int f = 0; f < FIELDS; f++) {
      into[f] = f == QUEUE_MAX ? Math.max(into[f], from[f]) : into[f] + from[f];
    }
  }

  boolean isEmpty() {
    return origin == Long.MIN_VALUE;
  }

  /** Bin width in microseconds. */
  long width() {
    return width;
  }

  /** Index of the first and one past the last non-empty bin. */
  int[] used() {
    int first = -1;
    int last = -1;
    for (int j = 0; j < BINS; j++) {
      if (bins[j][ARRIVALS] > 0) {
        if (first < 0) {
          first = j;
        }
        last = j;
      }
    }
    return first < 0 ? new int[] {0, 0} : new int[] {first, last + 1};
  }

  /** Start of bin {@code j}, epoch microseconds. */
  long start(int j) {
    return origin + j * width;
  }

  double get(int j, int field) {
    return bins[j][field];
  }
}
