package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.internal.log.RateLimitedLogger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.LoggerFactory;

/**
 * What a trace needs of its tracer, and nothing else: the clock, the entry pool, the input settings,
 * where an ended trace's entry goes ({@link RecordHandoff}) and where misuse is counted. One per tracer,
 * shared by its traces; immutable but for the counter.
 */
final class TraceServices {
  private static final RateLimitedLogger LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger("io.github.trtrace.tracer"), 10_000);

  final LongSupplier nanoClock;
  /** Free record entries; see {@link RecordEntry}. */
  final RecordEntry.Pool entries;
  final boolean inputDigest;
  final int veryLongInputChars;
  final RecordHandoff handoff;
  /** Calls ignored as misuse, and failing listeners: {@code TracerStats.misuse()}. */
  final LongAdder misuse;

  TraceServices(
      LongSupplier nanoClock,
      RecordEntry.Pool entries,
      boolean inputDigest,
      int veryLongInputChars,
      RecordHandoff handoff,
      LongAdder misuse) {
    this.nanoClock = nanoClock;
    this.entries = entries;
    this.inputDigest = inputDigest;
    this.veryLongInputChars = veryLongInputChars;
    this.handoff = handoff;
    this.misuse = misuse;
  }

  /** Counts and logs (rate limited) a call that was ignored. */
  void misuse(String what) {
    misuse.increment();
    LOG.warn("trtrace: ignored {}", what);
  }

  /** Counts and logs a listener that failed; the caller skips it for the rest of the trace. */
  static void listenerFailed(LongAdder misuse, String listener, String callback, String requestId, Throwable e) {
    misuse.increment();
    LOG.warn("trtrace: listener {} failed in {} on trace {} and is skipped for it: {}",
        listener, callback, requestId, e.toString());
  }

  void listenerFailed(String listener, String callback, String requestId, Throwable e) {
    listenerFailed(misuse, listener, callback, requestId, e);
  }
}
