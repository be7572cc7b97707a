package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TraceListener;
import org.jspecify.annotations.Nullable;

/**
 * The stage half of a trace: its open stages (ordinals, innermost last), the time each stage ran, the
 * stage handles and the stage callbacks of the listeners. Only the innermost open stage accumulates
 * time (since {@link #topSince}), so opening a stage pauses the one below and closing it resumes that
 * one. Guarded by the trace's monitor; callbacks run after it is released.
 *
 * <p>A superclass rather than a field so that a trace stays one object: the default path's allocation
 * per request is pinned by {@code GarbageFreeTest}.
 */
abstract class StagedTrace extends RecordFillingTrace {
  static final Stage[] STAGES = Stage.values();
  private static final Stage[] NO_STAGES = new Stage[0];
  private static final StageTimer NOOP_TIMER = () -> {};

  /** Listener handles in registration order; null without listeners; a slot is nulled when its listener fails. */
  TraceListener.@Nullable Handle @Nullable [] handles;
  private final long[] stageNanos = new long[STAGES.length];
  /** Bit i: stage i was opened. */
  private int stageSeen;
  private int[] open = new int[8];
  private int depth;
  private long topSince;
  /** One handle per stage, made on first use; see {@link StageHandle}. */
  private final StageHandle[] timers = new StageHandle[STAGES.length];

  StagedTrace(TraceServices services, String requestId, String modelName) {
    super(services, requestId, modelName);
  }

  /** The wall-clock time of monotonic reading {@code nanos}. */
  abstract long epochNanos(long nanos);

  /** As a new trace has them: no stage opened, no time. Holds the monitor. */
  void resetStages() {
    java.util.Arrays.fill(stageNanos, 0);
    stageSeen = 0;
    depth = 0;
    topSince = 0;
  }

  /**
   * The handle of one stage of this trace: one object per trace and stage (no allocation per
   * opening). {@code close()} ends the innermost open occurrence of its stage; when the stage is not
   * open it does nothing (a second close), unless the same stage was opened again since, which it
   * then ends.
   */
  private final class StageHandle implements StageTimer {
    final Stage stage;

    StageHandle(Stage stage) {
      this.stage = stage;
    }

    @Override
    public void close() {
      endStage(stage);
    }
  }

  @Override
  public StageTimer stage(Stage stage) {
    StageHandle opened;
    long now;
    synchronized (this) {
      if (isEndedMisuse("stage") || isNullMisuse("stage", stage)) {
        return NOOP_TIMER;
      }
      now = services.nanoClock.getAsLong();
      if (depth > 0) {
        pauseTop(now);
      }
      if (depth == open.length) {
        open = java.util.Arrays.copyOf(open, depth * 2);
      }
      int ordinal = stage.ordinal();
      opened = timers[ordinal];
      if (opened == null) {
        opened = timers[ordinal] = new StageHandle(stage);
      }
      open[depth++] = ordinal;
      topSince = now;
      stageSeen |= 1 << ordinal;
    }
    TraceListener.Handle[] hs = handles;
    if (hs != null) {
      TraceListeners.stageStarted(this, hs, stage, epochNanos(now));
    }
    return opened;
  }

  @Override
  public <T, E extends Throwable> T callStage(Stage stage, StageCallable<T, E> body) throws E {
    StageTimer s = stage(stage);
    try {
      return body.call();
    } finally {
      s.close();
    }
  }

  @Override
  public <E extends Throwable> void runStage(Stage stage, StageRunnable<E> body) throws E {
    StageTimer s = stage(stage);
    try {
      body.run();
    } finally {
      s.close();
    }
  }

  private void endStage(Stage stage) {
    Stage[] ended;
    long now;
    synchronized (this) {
      if (this.ended) {
        return; // its stages ended with the trace
      }
      int ordinal = stage.ordinal();
      int at = depth - 1;
      while (at >= 0 && open[at] != ordinal) {
        at--;
      }
      if (at < 0) {
        return; // not open: closed already
      }
      if (at != depth - 1) {
        misuse("stage " + stage + " closed while " + STAGES[open[depth - 1]]
            + " inside it is open (the inner stages end with it) on trace " + requestId);
      }
      now = services.nanoClock.getAsLong();
      ended = popTo(at, now);
    }
    fireStageEnds(ended, now);
  }

  /**
   * At the trace's end: ends the stages still open and writes each opened stage's time into {@code
   * record}. Holds the monitor. Returns the ended stages for {@link #fireStageEnds}.
   */
  Stage[] endStages(long now, RecordEntry record) {
    Stage[] stillOpen = depth > 0 ? popTo(0, now) : NO_STAGES;
    for (int i = 0; i < STAGES.length; i++) {
      if ((stageSeen & (1 << i)) != 0) {
        record.stageMs[i] = stageNanos[i] / 1e6;
      }
    }
    return stillOpen;
  }

  /** Adds the innermost stage's running time up to {@code now}. */
  private void pauseTop(long now) {
    stageNanos[open[depth - 1]] += Math.max(0, now - topSince);
    topSince = now;
  }

  /**
   * Ends the stages from the innermost down to index {@code at}; the one below resumes. Holds the
   * monitor. Returns the ended stages, innermost first, for the listeners (none without listeners).
   */
  private Stage[] popTo(int at, long now) {
    pauseTop(now);
    Stage[] ended = handles == null ? NO_STAGES : new Stage[depth - at];
    for (int i = depth - 1, k = 0; i >= at; i--, k++) {
      if (ended.length > 0) {
        ended[k] = STAGES[open[i]];
      }
    }
    depth = at;
    return ended;
  }

  /** The listeners' {@code onStageEnd} for stages {@link #popTo} ended; without the monitor. */
  void fireStageEnds(Stage[] ended, long now) {
    TraceListener.Handle[] hs = handles;
    if (hs != null && ended.length > 0) {
      TraceListeners.stagesEnded(this, hs, ended, epochNanos(now));
    }
  }
}
