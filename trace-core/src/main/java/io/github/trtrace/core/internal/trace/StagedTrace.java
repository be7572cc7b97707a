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
 * <p>The one stage stack (issue 16): what each listener's handle returned for an open stage (e.g. its
 * span) is kept here beside the stage ({@link #stageStates}) and handed back to the handle as the
 * parent of the stages opened inside, at the stage's end and with events, so no listener keeps the
 * nesting a second time.
 *
 * <p>A superclass rather than a field so that a trace stays one object: the default path's allocation
 * per request is pinned by {@code GarbageFreeTest}.
 */
abstract class StagedTrace extends RecordFillingTrace {
  static final Stage[] STAGES = Stage.values();
  private static final Object[] NO_STAGES = new Object[0];
  static final StageTimer NOOP_TIMER = () -> {};

  /** Listener handles in registration order; null without listeners; a slot is nulled when its listener fails. */
  TraceListener.@Nullable Handle @Nullable [] handles;
  private final long[] stageNanos = new long[STAGES.length];
  /** Bit i: stage i was opened. */
  private int stageSeen;
  private int[] open = new int[8];
  private int depth;
  private long topSince;
  /**
   * With listeners: slot {@code index * handles.length + i} holds handle i's state for the stage open
   * at {@code index} (null: none, or not returned yet); made on the first stage, grown with {@link #open}.
   */
  private @Nullable Object @Nullable [] stageStates;
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
    if (stageStates != null) {
      java.util.Arrays.fill(stageStates, null);
    }
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
      endStage(stage, ANY);
    }
  }

  @Override
  public StageTimer stage(Stage stage) {
    return stage(stage, ANY);
  }

  /**
   * {@link #stage(Stage)} for a holder of generation {@code gen}: {@link #NOOP_TIMER} when ignored,
   * else this trace's own timer of the stage (a {@link TraceHandle} returns its own instead).
   */
  StageTimer stage(Stage stage, int gen) {
    StageHandle opened;
    long now;
    int index;
    int gen0;
    TraceListener.Handle[] hs;
    long epoch;
    String id;
    synchronized (this) {
      if (!isCurrent(gen, "stage") || isEndedMisuse("stage") || isNullMisuse("stage", stage)) {
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
      index = depth;
      open[depth++] = ordinal;
      topSince = now;
      stageSeen |= 1 << ordinal;
      if (handles != null) {
        growStageStates();
      }
      // read with the stage opened: this trace may serve another request once the monitor is released
      hs = handles;
      gen0 = currentGeneration();
      epoch = epochNanos(now);
      id = requestId;
    }
    if (hs != null) {
      TraceListeners.stageStarted(this, id, hs, stage, index, epoch, gen0);
    }
    return opened;
  }

  /** Room in {@link #stageStates} for every open stage. Holds the monitor. */
  private void growStageStates() {
    TraceListener.Handle[] hs = handles;
    Object[] states = stageStates;
    if (hs != null && (states == null || states.length < open.length * hs.length)) {
      Object[] grown = new Object[open.length * hs.length];
      if (states != null) {
        System.arraycopy(states, 0, grown, 0, states.length);
      }
      stageStates = grown;
    }
  }

  /** Handle {@code i}'s state for the stage open at {@code index}; null when none (or index -1: the top level). */
  synchronized @Nullable Object stageState(int index, int i) {
    Object[] states = stageStates;
    TraceListener.Handle[] hs = handles;
    return index < 0 || index >= depth || states == null || hs == null ? null : states[index * hs.length + i];
  }

  /** {@link #stageState(int, int)} for the request of generation {@code gen}: null once this trace serves another. */
  synchronized @Nullable Object stageState(int gen, int index, int i) {
    return gen == currentGeneration() ? stageState(index, i) : null;
  }

  /**
   * Handle {@code i}'s state for the innermost open stage of generation {@code gen}'s request; null outside
   * any stage, and once this trace serves another request.
   */
  synchronized @Nullable Object innermostStageState(int gen, int i) {
    return gen == currentGeneration() ? stageState(depth - 1, i) : null;
  }

  /**
   * Keeps handle {@code i}'s state for {@code stage}, opened at {@code index} by the request of generation
   * {@code gen}; false when that stage is no longer open there (ended by another thread while the start
   * callbacks ran) or this trace serves another request now.
   */
  synchronized boolean keepStageState(int gen, int index, Stage stage, int i, Object state) {
    Object[] states = stageStates;
    TraceListener.Handle[] hs = handles;
    if (ended || gen != currentGeneration() || index >= depth || open[index] != stage.ordinal()
        || states == null || hs == null) {
      return false;
    }
    states[index * hs.length + i] = state;
    return true;
  }

  /** Ends the innermost open occurrence of {@code stage}, for a holder of generation {@code gen}. */
  void endStage(Stage stage, int gen) {
    Object[] ended;
    long epoch;
    TraceListener.Handle[] hs;
    String id;
    synchronized (this) {
      if (!isCurrent(gen, "stage(...).close")) {
        return;
      }
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
      long now = services.nanoClock.getAsLong();
      ended = popTo(at, now);
      hs = handles;
      epoch = epochNanos(now);
      id = requestId;
    }
    fireStageEnds(id, hs, ended, epoch);
  }

  /**
   * At the trace's end: ends the stages still open and writes each opened stage's time into {@code
   * record}. Holds the monitor. Returns the ended stages for {@link #fireStageEnds}.
   */
  Object[] endStages(long now, RecordEntry record) {
    Object[] stillOpen = depth > 0 ? popTo(0, now) : NO_STAGES;
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
   * monitor. Returns for the listeners (none without listeners) the ended stages, innermost first, each
   * followed by every handle's state for it, which leaves the stack.
   */
  private Object[] popTo(int at, long now) {
    pauseTop(now);
    Object[] ended = handles == null ? NO_STAGES : popStates(at);
    depth = at;
    return ended;
  }

  /** {@link #popTo}'s list for the listeners: the stages above {@code at} and their states, which leave the stack. */
  private Object[] popStates(int at) {
    TraceListener.Handle[] hs = handles;
    Object[] states = stageStates;
    int n = hs == null ? 0 : hs.length;
    Object[] ended = new Object[(depth - at) * (1 + n)];
    for (int d = depth - 1, k = 0; d >= at; d--) {
      ended[k++] = STAGES[open[d]];
      for (int i = 0; i < n; i++, k++) {
        if (states != null) {
          ended[k] = states[d * n + i];
          states[d * n + i] = null;
        }
      }
    }
    return ended;
  }

  /**
   * The listeners' {@code onStageEnd} for stages {@link #popTo} ended at {@code epochNanos}; without the
   * monitor, {@code hs} the handles read under it with the stages popped (once the monitor is released this
   * trace may serve another request), {@code requestId} their request's ID, read with them.
   */
  void fireStageEnds(
      String requestId, TraceListener.@Nullable Handle @Nullable [] hs, Object[] ended, long epochNanos) {
    if (hs != null && ended.length > 0) {
      TraceListeners.stagesEnded(this, requestId, hs, ended, epochNanos);
    }
  }
}
