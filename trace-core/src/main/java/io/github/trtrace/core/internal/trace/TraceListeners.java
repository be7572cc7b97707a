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
  static TraceScope makeCurrent(RecordFillingTrace trace, String requestId, TraceListener.@Nullable Handle[] hs,
      RequestContext.@Nullable Scope context) {
    TraceScope[] scopes = new TraceScope[hs.length];
    for (int i = 0; i < hs.length; i++) {
      TraceListener.Handle h = hs[i];
      if (h != null) {
        try {
          scopes[i] = h.makeCurrent();
        } catch (RuntimeException | LinkageError e) {
          failed(trace, requestId, hs, i, "makeCurrent", e);
        }
      }
    }
    return new CurrentScope(context, scopes, trace, requestId, hs);
  }

  /**
   * Each handle's {@code onStageStart} for the stage just opened at stack index {@code index}, with the
   * state it returned for the stage below as parent; what it returns is kept on the trace's stack.
   */
  static void stageStarted(StagedTrace trace, String requestId, TraceListener.@Nullable Handle[] hs, Stage stage,
      int index, long epochNanos, int gen) {
    for (int i = 0; i < hs.length; i++) {
      TraceListener.Handle h = hs[i];
      if (h != null) {
        Object state = null;
        try {
          state = h.onStageStart(stage, trace.stageState(gen, index - 1, i), epochNanos);
        } catch (RuntimeException | LinkageError e) {
          failed(trace, requestId, hs, i, "onStageStart", e);
        }
        if (state != null && !trace.keepStageState(gen, index, stage, i, state)) {
          // ended meanwhile by another thread (concurrent misuse): its end went out without this state
          stageEnded(trace, requestId, hs, i, stage, state, trace.epochNanos(trace.services.nanoClock.getAsLong()));
        }
      }
    }
  }

  /**
   * The handles' {@code onStageEnd} for the stages {@link StagedTrace} ended, innermost first: {@code
   * ended} holds, per stage, the stage and then each handle's state for it ({@code 1 + hs.length} slots).
   */
  static void stagesEnded(StagedTrace trace, String requestId, TraceListener.@Nullable Handle[] hs,
      @Nullable Object[] ended, long epochNanos) {
    int stride = 1 + hs.length;
    for (int k = 0; k + stride <= ended.length; k += stride) {
      Stage stage = (Stage) ended[k];
      for (int i = 0; i < hs.length; i++) {
        stageEnded(trace, requestId, hs, i, stage, ended[k + 1 + i], epochNanos);
      }
    }
  }

  private static void stageEnded(
      RecordFillingTrace trace,
      String requestId,
      TraceListener.@Nullable Handle[] hs,
      int i,
      Stage stage,
      @Nullable Object state,
      long epochNanos) {
    TraceListener.Handle h = hs[i];
    if (h != null) {
      try {
        h.onStageEnd(stage, state, epochNanos);
      } catch (RuntimeException | LinkageError e) {
        failed(trace, requestId, hs, i, "onStageEnd", e);
      }
    }
  }

  /** Each handle's {@code onEvent}, with its state for the innermost open stage. */
  static void event(
      StagedTrace trace, String requestId, TraceListener.@Nullable Handle[] hs, InferenceRecord.Event added, int gen) {
    for (int i = 0; i < hs.length; i++) {
      TraceListener.Handle h = hs[i];
      if (h != null) {
        try {
          h.onEvent(added, trace.innermostStageState(gen, i));
        } catch (RuntimeException | LinkageError e) {
          failed(trace, requestId, hs, i, "onEvent", e);
        }
      }
    }
  }

  /**
   * Counts and logs a listener failure and skips that listener for the rest of this trace. {@code requestId} is
   * the request of {@code hs}, read with them under the monitor: not the trace's field, which names the next
   * request once a garbage-free trace is reused while a callback of the last one runs.
   */
  static void failed(RecordFillingTrace trace, String requestId, TraceListener.@Nullable Handle[] hs, int index,
      String callback, Throwable e) {
    TraceListener.Handle h = hs[index];
    String name = h != null ? h.getClass().getName() : "listener " + index;
    hs[index] = null;
    trace.services.listenerFailed(name, callback, requestId, e);
  }

  /**
   * The scope of a trace's {@code makeCurrent()}: listener scopes closed in reverse, then the context.
   * Closing twice does nothing.
   */
  static final class CurrentScope implements TraceScope {
    private final RequestContext.@Nullable Scope context;
    private final @Nullable TraceScope @Nullable [] scopes;
    private final @Nullable RecordFillingTrace trace;
    private final @Nullable String requestId;
    private final TraceListener.@Nullable Handle @Nullable [] handles;
    private boolean closed;

    CurrentScope(
        RequestContext.@Nullable Scope context,
        @Nullable TraceScope @Nullable [] scopes,
        @Nullable RecordFillingTrace trace,
        @Nullable String requestId,
        TraceListener.@Nullable Handle @Nullable [] handles) {
      this.context = context;
      this.scopes = scopes;
      this.trace = trace;
      this.requestId = requestId;
      this.handles = handles;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      if (scopes != null && trace != null && requestId != null && handles != null) {
        for (int i = scopes.length - 1; i >= 0; i--) {
          TraceScope s = scopes[i];
          if (s != null) {
            try {
              s.close();
            } catch (RuntimeException | LinkageError e) {
              failed(trace, requestId, handles, i, "makeCurrent().close", e);
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
