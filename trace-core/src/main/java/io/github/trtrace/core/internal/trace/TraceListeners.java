package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.context.RequestContext;
import org.jspecify.annotations.Nullable;

/**
 * A trace's calls into its listeners' handles ({@code hs}, registration order; null without listeners,
 * so nothing here runs then). A handle that throws is counted and logged, and its slot nulled for the
 * rest of the trace. Called with the trace's monitor not held. {@code onEnd} is {@link ListenerEnds}'s:
 * it comes where the record is built. Static, so that a trace with listeners costs no object more.
 */
final class TraceListeners {
  private TraceListeners() {}

  /** The listeners' scopes with the request's {@code context} (null: already current): see {@link CurrentScope}. */
  static TraceScope makeCurrent(
      RecordFillingTrace trace, TraceListener.@Nullable Handle[] hs, RequestContext.@Nullable Scope context) {
    TraceScope[] scopes = new TraceScope[hs.length];
    for (int i = 0; i < hs.length; i++) {
      TraceListener.Handle h = hs[i];
      if (h != null) {
        try {
          scopes[i] = h.makeCurrent();
        } catch (RuntimeException | LinkageError e) {
          failed(trace, hs, i, "makeCurrent", e);
        }
      }
    }
    return new CurrentScope(context, scopes, trace, hs);
  }

  static void stageStarted(RecordFillingTrace trace, TraceListener.@Nullable Handle[] hs, Stage stage, long epochNanos) {
    fireStage(trace, hs, stage, epochNanos, true);
  }

  /** {@code ended} innermost first, as {@link StageStack#popTo} returns them. */
  static void stagesEnded(RecordFillingTrace trace, TraceListener.@Nullable Handle[] hs, Stage[] ended, long epochNanos) {
    for (Stage st : ended) {
      fireStage(trace, hs, st, epochNanos, false);
    }
  }

  private static void fireStage(
      RecordFillingTrace trace, TraceListener.@Nullable Handle[] hs, Stage stage, long epochNanos, boolean start) {
    for (int i = 0; i < hs.length; i++) {
      TraceListener.Handle h = hs[i];
      if (h != null) {
        try {
          if (start) {
            h.onStageStart(stage, epochNanos);
          } else {
            h.onStageEnd(stage, epochNanos);
          }
        } catch (RuntimeException | LinkageError e) {
          failed(trace, hs, i, start ? "onStageStart" : "onStageEnd", e);
        }
      }
    }
  }

  static void event(RecordFillingTrace trace, TraceListener.@Nullable Handle[] hs, InferenceRecord.Event added) {
    for (int i = 0; i < hs.length; i++) {
      TraceListener.Handle h = hs[i];
      if (h != null) {
        try {
          h.onEvent(added);
        } catch (RuntimeException | LinkageError e) {
          failed(trace, hs, i, "onEvent", e);
        }
      }
    }
  }

  /** Counts and logs a listener failure and skips that listener for the rest of this trace. */
  static void failed(
      RecordFillingTrace trace, TraceListener.@Nullable Handle[] hs, int index, String callback, Throwable e) {
    TraceListener.Handle h = hs[index];
    String name = h != null ? h.getClass().getName() : "listener " + index;
    hs[index] = null;
    trace.services.listenerFailed(name, callback, trace.requestId, e);
  }

  /**
   * The scope of a trace's {@code makeCurrent()}: listener scopes closed in reverse, then the context.
   * Closing twice does nothing.
   */
  static final class CurrentScope implements TraceScope {
    private final RequestContext.@Nullable Scope context;
    private final @Nullable TraceScope @Nullable [] scopes;
    private final @Nullable RecordFillingTrace trace;
    private final TraceListener.@Nullable Handle @Nullable [] handles;
    private boolean closed;

    CurrentScope(
        RequestContext.@Nullable Scope context,
        @Nullable TraceScope @Nullable [] scopes,
        @Nullable RecordFillingTrace trace,
        TraceListener.@Nullable Handle @Nullable [] handles) {
      this.context = context;
      this.scopes = scopes;
      this.trace = trace;
      this.handles = handles;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      if (scopes != null && trace != null && handles != null) {
        for (int i = scopes.length - 1; i >= 0; i--) {
          TraceScope s = scopes[i];
          if (s != null) {
            try {
              s.close();
            } catch (RuntimeException | LinkageError e) {
              failed(trace, handles, i, "makeCurrent().close", e);
            }
          }
        }
      }
      if (context != null) {
        context.close();
      }
    }
  }
}
