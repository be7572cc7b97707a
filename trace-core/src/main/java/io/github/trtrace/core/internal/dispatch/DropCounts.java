package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.internal.log.RateLimitedLogger;
import java.util.concurrent.atomic.LongAdder;

/** Records offered and those refused, by reason; the worker logs the drops, at most once each 10 s. */
final class DropCounts {
  final LongAdder offered = new LongAdder();
  final LongAdder droppedQueueFull = new LongAdder();
  final LongAdder droppedBlockTimeout = new LongAdder();
  final LongAdder droppedClosed = new LongAdder();
  private final RateLimitedLogger dropLog;
  /** The worker's: the total at the last report. */
  private long lastReportedDrops;

  DropCounts(RateLimitedLogger dropLog) {
    this.dropLog = dropLog;
  }

  /** Logs the drops if there are new ones (the worker, about once a second and at close). */
  void report() {
    long queueFull = droppedQueueFull.sum();
    long blockTimeout = droppedBlockTimeout.sum();
    long afterClose = droppedClosed.sum();
    long total = queueFull + blockTimeout + afterClose;
    if (total != lastReportedDrops) {
      lastReportedDrops = total;
      dropLog.warn(
          "trtrace dispatcher has dropped {} inference records so far (queue full: {}, block timeout: {},"
              + " offered after close: {}); raise queueCapacity or make the sinks faster",
          total,
          queueFull,
          blockTimeout,
          afterClose);
    }
  }
}
