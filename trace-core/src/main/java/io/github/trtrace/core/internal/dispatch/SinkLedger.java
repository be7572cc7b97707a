package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.TracerStats.SinkStats;
import io.github.trtrace.core.sink.RecordSink.Delivery;
import org.jspecify.annotations.Nullable;

/**
 * One sink's counters: changed only under its {@link SinkSlot}'s lock, so they never disagree with
 * each other; volatile for {@link DefaultDispatcher#stats()}. A sink that counts its own lines
 * ({@link Delivery}) is believed over the batches' outcomes.
 */
final class SinkLedger {
  private final long baseWritten;
  private final long baseLost;

  volatile long handed;
  volatile long written;
  volatile long lostFailed;
  volatile long lostStuck;
  volatile long lostAbandoned;
  /** Records counted lost that never reached a sink with its own counts ({@link Delivery}). */
  private long lostBeforeSink;
  volatile long failures;
  volatile @Nullable String lastError;

  /** {@code start}: the sink's own counts when the dispatcher took it, or null. */
  SinkLedger(@Nullable Delivery start) {
    this.baseWritten = start == null ? 0 : start.written();
    this.baseLost = start == null ? 0 : start.lost();
  }

  /** {@code n} records lost before the sink saw them (it was dead, closing, or failed before them). */
  void lostBeforeSink(int n) {
    lostFailed += n;
    lostBeforeSink += n;
  }

  /** {@code n} records the worker lost to {@code error} (an OutOfMemoryError or StackOverflowError) before handing them here. */
  void lostByWorker(int n, Throwable error) {
    lostBeforeSink(n);
    failures++;
    lastError = "dispatcher worker: " + error;
  }

  /** Close gave up on the sink: what it was handed and did not account for is lost; returns that. */
  long abandon() {
    lostAbandoned = handed - written - lostFailed;
    return lostAbandoned;
  }

  /** What a call just made did to the counters ({@code d}: the sink's own counts after it, or null). */
  void account(int n, @Nullable Throwable failure, @Nullable Delivery d, boolean abandoned) {
    if (failure != null) {
      failures++;
      lastError = DefaultDispatcher.describe(failure);
    }
    if (abandoned) {
      return;
    }
    if (d != null) {
      written = d.written() - baseWritten;
      lostFailed = d.lost() - baseLost + lostBeforeSink;
    } else if (failure == null) {
      written += n;
    } else {
      lostFailed += n;
    }
  }

  SinkStats snapshot(long discardedOnClose) {
    return new SinkCounts(
        written, lostFailed, lostStuck, lostAbandoned + discardedOnClose, 0, failures, lastError);
  }
}
