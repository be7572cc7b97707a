package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.TraceListener;
import org.jspecify.annotations.Nullable;

/**
 * The listeners' {@code onEnd} of one trace, wherever the record is built: on the dispatcher's worker for
 * a record queued for the sinks ({@link RecordEntry#toRecord()}), on the ending thread otherwise (sampled
 * out, dropped at a full queue, failed, or a dispatcher that is not trtrace's own). Reverse registration
 * order; a listener that throws is reported through {@link Failures} and the others still run.
 */
final class ListenerEnds {
  private ListenerEnds() {}

  /** Where a failing {@code onEnd} is counted and logged: the tracer's misuse counter. */
  @FunctionalInterface
  interface Failures {
    void failed(String listener, String callback, String requestId, Throwable e);
  }

  static void fire(
      TraceListener.@Nullable Handle[] handles,
      InferenceRecord record,
      long endEpochNanos,
      Failures failures) {
    for (int i = handles.length - 1; i >= 0; i--) {
      TraceListener.Handle h = handles[i];
      if (h != null) {
        try {
          h.onEnd(record, endEpochNanos);
        } catch (RuntimeException | LinkageError e) {
          handles[i] = null;
          failures.failed(h.getClass().getName(), "onEnd", record.requestId(), e);
        }
      }
    }
  }
}
