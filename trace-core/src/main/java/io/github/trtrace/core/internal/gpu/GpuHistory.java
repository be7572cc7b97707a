package io.github.trtrace.core.internal.gpu;

import io.github.trtrace.core.gpu.GpuMetricsSource;

/**
 * The poller's recent readings: written by the one polling thread, read by any. Each reading gets a
 * sequence number and running sums, so the mean over any window is two subtractions and needs no
 * lock; the maximum comes from a ring of the last {@value #CAPACITY} readings (a window longer than
 * that takes the maximum of the readings still in the ring and of the first one).
 */
final class GpuHistory {
  static final int CAPACITY = 256;

  private final GpuMetricsPoller.Mark[] ring = new GpuMetricsPoller.Mark[CAPACITY];
  private volatile GpuMetricsPoller.Mark head = GpuMetricsPoller.Mark.NONE;

  /** Called by the polling thread only. */
  void add(GpuMetricsSource.Reading r) {
    GpuMetricsPoller.Mark prev = head;
    GpuMetricsPoller.Mark m = new GpuMetricsPoller.Mark(prev.seq + 1, r,
        prev.utilSum + known(r.utilPercent()), prev.utilCount + (Double.isNaN(r.utilPercent()) ? 0 : 1),
        prev.memUtilSum + known(r.memUtilPercent()), prev.memUtilCount + (Double.isNaN(r.memUtilPercent()) ? 0 : 1));
    ring[(int) (m.seq % CAPACITY)] = m;
    head = m; // publishes the ring slot written above
  }

  GpuMetricsPoller.Mark head() {
    return head;
  }

  /** Usage over the readings from {@code from} (the one in effect at the start) to the latest. */
  GpuUsage usageSince(GpuMetricsPoller.Mark from) {
    GpuMetricsPoller.Mark to = head;
    if (to.seq == 0) {
      return GpuUsage.UNKNOWN;
    }
    // the first reading counted: the one in effect at the start, or the first one ever
    GpuMetricsPoller.Mark first = from.seq > 0 ? from : at(1, to);
    long firstSeq = from.seq > 0 ? from.seq : 1;
    double utilBefore = first == null ? 0 : first.utilSum - known(first.reading.utilPercent());
    long utilCountBefore = first == null ? 0 : first.utilCount - (Double.isNaN(first.reading.utilPercent()) ? 0 : 1);
    double memBefore = first == null ? 0 : first.memUtilSum - known(first.reading.memUtilPercent());
    long memCountBefore =
        first == null ? 0 : first.memUtilCount - (Double.isNaN(first.reading.memUtilPercent()) ? 0 : 1);
    long utilN = to.utilCount - utilCountBefore;
    long memN = to.memUtilCount - memCountBefore;
    double utilMax = Double.NaN;
    double memMax = Double.NaN;
    if (first != null) {
      utilMax = max(utilMax, first.reading.utilPercent());
      memMax = max(memMax, first.reading.memUtilPercent());
    }
    for (long seq = Math.max(firstSeq + 1, to.seq - CAPACITY + 1); seq <= to.seq; seq++) {
      GpuMetricsPoller.Mark m = at(seq, to);
      if (m != null) {
        utilMax = max(utilMax, m.reading.utilPercent());
        memMax = max(memMax, m.reading.memUtilPercent());
      }
    }
    return new GpuUsage(
        utilN > 0 ? (to.utilSum - utilBefore) / utilN : Double.NaN,
        utilMax,
        memN > 0 ? (to.memUtilSum - memBefore) / memN : Double.NaN,
        memMax,
        (int) Math.min(Integer.MAX_VALUE, to.seq - firstSeq + 1));
  }

  /** The reading numbered {@code seq} if still in the ring (the latest is {@code to}). */
  private GpuMetricsPoller.Mark at(long seq, GpuMetricsPoller.Mark to) {
    if (seq == to.seq) {
      return to;
    }
    GpuMetricsPoller.Mark m = ring[(int) (seq % CAPACITY)];
    return m != null && m.seq == seq ? m : null;
  }

  private static double known(double v) {
    return Double.isNaN(v) ? 0 : v;
  }

  private static double max(double acc, double v) {
    if (Double.isNaN(v)) {
      return acc;
    }
    return Double.isNaN(acc) ? v : Math.max(acc, v);
  }
}
