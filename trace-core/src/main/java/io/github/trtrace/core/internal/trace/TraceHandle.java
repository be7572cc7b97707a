// Over 400 lines: the ~30 methods of InferenceTrace and the launch's BatchMember, each one generation check delegating to the pooled trace, plus the handles' ring.
package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.internal.batch.BatchMember;
import io.github.trtrace.core.internal.batch.MemberState;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the body of a garbage-free {@code call}/{@code run} holds (issue 19 §2): not the pooled
 * {@link DefaultInferenceTrace} itself, which serves the next request as soon as this one ended, but a
 * handle stamped with the trace's generation. Every call compares the stamp with the trace's generation
 * under the trace's monitor and, once the request ended and the trace serves another one, is ignored and
 * counted as misuse, as a kept trace is in default mode: a late task's setters, {@code close()}, {@code
 * stage()} or {@code makeCurrent()} never reach another request. {@link #requestId()}, {@link #modelName()}
 * and {@link #elapsedNanos()} answer for the handle's own request.
 *
 * <p>Handles are pooled too ({@link Ring}), so that the steady state allocates nothing: a handle is reused
 * only after every other free handle of the ring was, so a stale call is caught as long as its handle has
 * not come round again (see {@link Ring#CAPACITY}).
 */
final class TraceHandle implements InferenceTrace, BatchMember {
  /** A member state that no launch can join: what a stale handle offers a launch (the join is refused, counted). */
  private static final MemberState ENDED_MEMBER = MemberState.endedForGood();

  private DefaultInferenceTrace trace;
  private int generation;
  private String requestId;
  private String modelName;
  private long startNanos;
  /** This handle's stage timers, made on first use; each ends its stage only for this handle's generation. */
  private final @Nullable StageTimer[] timers = new StageTimer[Stage.values().length];

  private TraceHandle(DefaultInferenceTrace trace) {
    bind(trace);
  }

  /** Stamps this handle with {@code trace}'s current request (just {@linkplain DefaultInferenceTrace#init started}). */
  private void bind(DefaultInferenceTrace t) {
    trace = t;
    generation = t.generation();
    requestId = t.requestId();
    modelName = t.modelName();
    startNanos = t.startNanos();
  }

  /** The pooled trace behind this handle. */
  DefaultInferenceTrace trace() {
    return trace;
  }

  /**
   * The handles of one tracer: a FIFO ring of up to {@link #CAPACITY}. Until it holds that many, every
   * request gets a new handle (the warm-up); from then on the one given back longest ago. A handle is
   * thus reused only after {@code CAPACITY - 1} others, less the requests in flight, were taken since it
   * was given back. Beyond the capacity in flight at once, handles are made and left to the GC.
   */
  static final class Ring {
    static final int CAPACITY = 4096;
    private final org.jctools.queues.atomic.MpmcAtomicArrayQueue<TraceHandle> free =
        new org.jctools.queues.atomic.MpmcAtomicArrayQueue<>(CAPACITY);
    private final java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();

    /** A handle for {@code trace}'s current request. */
    TraceHandle take(DefaultInferenceTrace trace) {
      TraceHandle h = made.get() >= CAPACITY ? free.poll() : null;
      if (h == null) {
        if (made.get() < CAPACITY) {
          made.incrementAndGet(); // beyond the capacity (more in flight at once) not counted: left to the GC
        }
        return new TraceHandle(trace);
      }
      h.bind(trace);
      return h;
    }

    /** A handle back into the ring; its request ended. */
    void giveBack(TraceHandle h) {
      free.offer(h);
    }
  }

  /** Whether this handle's request is still the trace's; counts the call as misuse if not. Holds the trace's monitor. */
  private boolean current(String call) {
    return trace.isCurrent(generation, call);
  }

  @Override
  public String requestId() {
    return requestId;
  }

  @Override
  public String modelName() {
    return modelName;
  }

  @Override
  public TraceScope makeCurrent() {
    return trace.makeCurrent(generation);
  }

  @Override
  public StageTimer stage(Stage stage) {
    StageTimer opened = trace.stage(stage, generation);
    if (opened == DefaultInferenceTrace.NOOP_TIMER) {
      return opened;
    }
    int ordinal = stage.ordinal();
    StageTimer mine = timers[ordinal];
    if (mine == null) {
      mine = timers[ordinal] = new HandleStage(this, stage);
    }
    return mine;
  }

  /** A stage timer of a handle: ends its stage for the handle's generation at the time of the close. */
  private static final class HandleStage implements StageTimer {
    private final TraceHandle handle;
    private final Stage stage;

    HandleStage(TraceHandle handle, Stage stage) {
      this.handle = handle;
      this.stage = stage;
    }

    @Override
    public void close() {
      handle.trace.endStage(stage, handle.generation);
    }
  }

  @Override
  public InferenceTrace firstToken() {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("firstToken")) {
        t.firstToken();
      }
    }
    return this;
  }

  @Override
  public InferenceTrace token() {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("token")) {
        t.token();
      }
    }
    return this;
  }

  @Override
  public InferenceTrace input(CharSequence rawInput) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("input")) {
        t.input(rawInput);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace output(CharSequence output) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("output")) {
        t.output(output);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace inputTokens(int count) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("inputTokens")) {
        t.inputTokens(count);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace outputTokens(int count) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("outputTokens")) {
        t.outputTokens(count);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace maxTokens(int count) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("maxTokens")) {
        t.maxTokens(count);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace temperature(double temperature) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("temperature")) {
        t.temperature(temperature);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace topP(double topP) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("topP")) {
        t.topP(topP);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace finishReason(String reason) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("finishReason")) {
        t.finishReason(reason);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace addGpuMs(double ms) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("addGpuMs")) {
        t.addGpuMs(ms);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace engineFingerprint(String fingerprint) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("engineFingerprint")) {
        t.engineFingerprint(fingerprint);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace status(Status status) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("status")) {
        t.status(status);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace error(Throwable error) {
    return error(error == null ? "unknown" : error.getClass().getName());
  }

  @Override
  public InferenceTrace error(String errorType) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("error")) {
        t.error(errorType);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace event(String kind, String severity, String message) {
    trace.event(kind, severity, message, generation);
    return this;
  }

  @Override
  public InferenceTrace layers(List<InferenceRecord.LayerTime> layers) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("layers")) {
        t.layers(layers);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace traceContext(String traceId, String spanId) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("traceContext")) {
        t.traceContext(traceId, spanId);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace attribute(String key, String value) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (current("attribute")) {
        t.attribute(key, value);
      }
    }
    return this;
  }

  @Override
  public InferenceTrace waitingForSlot() {
    trace.waitingForSlot(generation);
    return this;
  }

  @Override
  public InferenceTrace preempted(String reason) {
    trace.preempted(reason, generation);
    return this;
  }

  @Override
  public long elapsedNanos() {
    return trace.services.nanoClock.getAsLong() - startNanos;
  }

  /** Ended, or stale (its request ended and the trace serves another). */
  @Override
  public boolean isEnded() {
    return !trace.isLive(generation);
  }

  @Override
  public void close() {
    trace.close(generation);
  }

  // --- BatchMember: a launch holds the handle, so a stale one reaches no other request either

  @Override
  public MemberState batchState() {
    DefaultInferenceTrace t = trace;
    return t.isLive(generation) ? t.batchState() : ENDED_MEMBER;
  }

  @Override
  public Object joinLock() {
    return trace; // init() resets the state under the trace's monitor
  }

  /**
   * The handles of this handle's request, null once its trace serves another one: checked and read under the
   * trace's monitor, so that a reuse ({@code init}, which holds it) cannot come between the check and the read.
   */
  @Override
  public TraceListener.@Nullable Handle @Nullable [] listenerHandles() {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      return t.currentGeneration() == generation ? t.listenerHandles() : null;
    }
  }

  @Override
  public void sharedLaunchFailed(long launchId, String errorType) {
    DefaultInferenceTrace t = trace;
    synchronized (t) {
      if (!t.isLive(generation)) {
        return;
      }
      t.error(errorType);
    }
    t.event("launch_error", "ERROR", "shared launch " + launchId + " failed: " + errorType, generation);
  }

  @Override
  public void sharedLaunchEvent(String kind, String severity, String message) {
    DefaultInferenceTrace t = trace;
    if (t.isLive(generation)) {
      t.event(kind, severity, message, generation);
    }
  }

  @Override
  public String toString() {
    return "InferenceTrace[" + requestId + "]";
  }
}
