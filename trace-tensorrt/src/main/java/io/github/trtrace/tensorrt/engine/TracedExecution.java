// Over 400 lines: the one execution path and its two targets (a request's own trace, a shared launch) with what each does around the enqueue (layers, errors, NVTX ranges, CUPTI correlation), kept together so the path reads in one place.
package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Stage;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.model.log.TrtLogClassifier;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.model.log.TrtLogKind;
import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import io.github.trtrace.tensorrt.internal.cupti.LaunchRecorder;
import io.github.trtrace.tensorrt.internal.shim.Nvtx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The request side of a traced engine, free of CUDA and TensorRT types. A {@link Request} is one
 * inference request's use of the engine — a prefill and a token-by-token decode loop, one {@link
 * Request#launch} per engine launch: the profiling decision is taken once per request, per-layer
 * times are aggregated across its launches into one bounded table, and the policy hears the
 * request's latency once, when it ends. Each launch borrows a slot, runs inside the {@code INFER}
 * stage (nested: inside {@code DECODE} it adds to {@code infer_ms}), adds the CUDA-event device time,
 * and turns errors TensorRT recorded on the slot into that request's {@code error_type} and events.
 *
 * <p>A {@linkplain #launch(SharedLaunch, Binder) shared launch} carries several requests' rows (a step of
 * continuous batching): the same execution path, whose outcome goes to the {@link SharedLaunch} — its
 * measured GPU time (split among the members by the core), TensorRT's errors and messages (to the launch
 * and every member), its layer table when profiled (to the launch log) — instead of one trace. A request's
 * own {@link Request#launch} is that path with one member that takes the whole outcome.
 *
 * <p>TensorRT reports log messages on the thread that made the call, so a launch registers its target
 * for its own thread: messages reach the trace (or shared launch) whose launch is running on the
 * reporting thread, by identity, whatever request IDs clients chose (two requests may carry the same one).
 */
final class TracedExecution<C> implements AutoCloseable {

  /** Binds inputs and outputs (tensor addresses, shapes) on a borrowed context before launch. */
  @FunctionalInterface
  interface Binder<C> {
    void bind(C context) throws Exception;
  }

  /** Attribute naming how many profiled layers were left out of the record's table (the cap). */
  static final String LAYERS_DROPPED_ATTRIBUTE = "trt_layers_dropped";

  private final ContextPool<ExecutionSlot<C>> pool;
  private final ProfilingPolicy profiling;
  private final @Nullable String fingerprint;
  private final Duration borrowTimeout;
  private final int maxLayers;
  private final @Nullable BuildReport buildReport;
  private final KernelRecordPolicy kernels;
  /** Starts the process's recorder: called on the first launch the kernel policy picks, never before. */
  private final Supplier<LaunchRecorder> recorderStart;
  private volatile @Nullable LaunchRecorder recorder;
  /** The target whose launch runs on each thread now: TensorRT's messages on that thread are its. */
  private final Map<Thread, Target> running = new ConcurrentHashMap<>();

  TracedExecution(
      List<? extends ExecutionSlot<C>> slots,
      ProfilingPolicy profiling,
      @Nullable String fingerprint,
      Duration borrowTimeout) {
    this(slots, profiling, fingerprint, borrowTimeout, 64, null);
  }

  TracedExecution(
      List<? extends ExecutionSlot<C>> slots,
      ProfilingPolicy profiling,
      @Nullable String fingerprint,
      Duration borrowTimeout,
      int maxLayers,
      @Nullable BuildReport buildReport) {
    this(slots, profiling, fingerprint, borrowTimeout, maxLayers, buildReport, KernelRecordPolicy.off(),
        () -> LaunchRecorder.OFF);
  }

  TracedExecution(
      List<? extends ExecutionSlot<C>> slots,
      ProfilingPolicy profiling,
      @Nullable String fingerprint,
      Duration borrowTimeout,
      int maxLayers,
      @Nullable BuildReport buildReport,
      KernelRecordPolicy kernels,
      Supplier<LaunchRecorder> recorderStart) {
    this.kernels = Objects.requireNonNull(kernels, "kernels");
    this.recorderStart = Objects.requireNonNull(recorderStart, "recorderStart");
    if (maxLayers < 1) {
      throw new IllegalArgumentException("maxLayers must be >= 1: " + maxLayers);
    }
    this.pool = ContextPool.create(List.copyOf(slots));
    this.profiling = Objects.requireNonNull(profiling, "profiling");
    this.fingerprint = fingerprint;
    this.borrowTimeout = Objects.requireNonNull(borrowTimeout, "borrowTimeout");
    this.maxLayers = maxLayers;
    this.buildReport = buildReport;
  }

  /**
   * A listener for the log pipeline's run-time events: an event reported on a thread whose launch is
   * running here is added to that launch's trace.
   */
  Consumer<TrtLogEvent> eventListener() {
    return e -> {
      Target t = running.get(Thread.currentThread());
      if (t != null) {
        t.event(e.kind().eventKind(), e.severity().recordSeverity(), e.message());
      }
    };
  }

  /** Opens {@code trace}'s use of the engine; the profiling policy decides now, once. */
  Request open(InferenceTrace trace) {
    return new Request(Objects.requireNonNull(trace, "trace"), profiling.shouldProfile());
  }

  /** One launch as a whole request: {@code open}, one {@link Request#launch}, close. */
  boolean infer(InferenceTrace trace, Binder<C> binder) throws Exception {
    try (Request r = open(trace)) {
      return r.launch(binder);
    }
  }

  /** One request's launches. Not thread-safe: one launch at a time (as a generation loop runs). */
  final class Request implements AutoCloseable, Target {
    private final InferenceTrace trace;
    private final boolean profiled;
    private final LayerTable layers = LayerTable.create();
    private final AtomicBoolean closed = new AtomicBoolean();
    private int launches;
    private double gpuMs;
    /** The slot of the last launch: the next one prefers it (same context, stream and memory). */
    private int lastSlot = -1;

    private Request(InferenceTrace trace, boolean profiled) {
      this.trace = trace;
      this.profiled = profiled;
    }

    /** Whether this request's launches are profiled per layer. */
    boolean profiled() {
      return profiled;
    }

    /** Launches so far. */
    int launches() {
      return launches;
    }

    /** Device time of the launches so far (those that succeeded and were timed), ms. */
    double gpuMs() {
      return gpuMs;
    }

    /**
     * Runs one launch. The binder binds on the borrowed slot's context (the profiled one when this
     * request is profiled).
     *
     * @return false when TensorRT refused the launch or reported an error (the trace says which)
     * @throws ContextPoolTimeoutException when no slot became free within the borrow timeout
     * @throws IllegalStateException when the request was closed
     * @throws Exception what the binder threw (also recorded on the trace)
     */
    boolean launch(Binder<C> binder) throws Exception {
      if (closed.get()) {
        throw new IllegalStateException("launch on a closed request");
      }
      launches++;
      return execute(this, List.of(binder), profiled);
    }

    @Override
    public String requestId() {
      return trace.requestId();
    }

    @Override
    public int preferredSlot() {
      return lastSlot;
    }

    @Override
    public void borrowed(int slot) {
      lastSlot = slot;
    }

    @Override
    public InferenceTrace.@Nullable StageTimer hostStage() {
      return trace.stage(Stage.INFER);
    }

    @Override
    public void event(String kind, String severity, String message) {
      trace.event(kind, severity, message);
    }

    @Override
    public void gpuMs(double ms) {
      gpuMs += ms;
      trace.addGpuMs(ms);
    }

    @Override
    public void error(String errorType) {
      trace.error(errorType);
    }

    @Override
    public void error(Exception e) {
      trace.error(e);
    }

    @Override
    public void layers(ExecutionSlot<?> slot) {
      slot.drainLayers(layers::add);
    }

    private long range;

    @Override
    public void beforeEnqueue() {
      if (Nvtx.enabled()) {
        range = Nvtx.start(Nvtx.REQUEST_PREFIX + trace.requestId());
      }
    }

    @Override
    public void afterEnqueue() {
      if (range != 0) {
        Nvtx.end(range);
        range = 0;
      }
    }

    /**
     * Ends the request's use of the engine: attaches the aggregated layer table (the {@code
     * maxLayers} slowest layers, in engine order; the count left out in {@value
     * #LAYERS_DROPPED_ATTRIBUTE}) and, with a build report, each layer's explanation; writes the
     * fingerprint; tells the policy the request's latency once. Does not end the trace. Idempotent.
     */
    @Override
    public void close() {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      try {
        if (fingerprint != null) {
          trace.engineFingerprint(fingerprint);
        }
        if (profiled && layers.size() > 0) {
          trace.layers(layers.top(maxLayers));
          if (layers.size() > maxLayers) {
            trace.attribute(LAYERS_DROPPED_ATTRIBUTE, Integer.toString(layers.size() - maxLayers));
          }
          if (buildReport != null) {
            for (LayerTable.Explained x : layers.explain(buildReport, maxLayers)) {
              trace.attribute("trt_layer." + x.name(), x.summary());
            }
          }
        }
      } finally {
        profiling.onCompleted(trace.elapsedNanos() / 1e6, profiled);
      }
    }
  }

  /**
   * Runs one launch shared by the members declared on {@code launch} (their rows bound by {@code binder}):
   * the profiling policy decides for this launch; the CUDA-event time goes to {@link SharedLaunch#gpuMs},
   * TensorRT's errors and messages to the launch and through it to every member, the layer table of a
   * profiled launch to the launch's log line. Does not close {@code launch}.
   *
   * @return false when TensorRT refused the launch or reported an error (the launch says which)
   */
  boolean launch(SharedLaunch launch, Binder<C> binder) throws Exception {
    return launch(launch, List.of(binder));
  }

  /**
   * {@link #launch(SharedLaunch, Binder)} in several passes: each binder binds the context for one enqueue, the
   * passes enqueued one after another on the slot's stream between one pair of CUDA events (a step whose rows
   * differ in shape: a decode group and a prefill group). The launch stops at the first pass refused. A profiled
   * launch waits for each pass before the next to take its layer times (TensorRT reports the last enqueue's), so
   * its {@code gpu_ms} includes those waits; its layer table sums the passes.
   *
   * @throws IllegalArgumentException when {@code passes} is empty
   */
  boolean launch(SharedLaunch launch, List<? extends Binder<C>> passes) throws Exception {
    Objects.requireNonNull(launch, "launch");
    if (passes.isEmpty()) {
      throw new IllegalArgumentException("a launch needs at least one pass");
    }
    if (passes.size() > 1) {
      launch.passes(passes.size());
    }
    boolean profiledLaunch = profiling.shouldProfile();
    long start = System.nanoTime();
    LaunchRecorder rec = kernels.enabled() && kernels.shouldRecord(launch) ? recorder() : LaunchRecorder.OFF;
    Shared target = new Shared(launch, profiledLaunch ? LayerTable.create() : null, rec, kernels.requestId());
    try {
      return execute(target, passes, profiledLaunch);
    } finally {
      try {
        if (target.layers != null && target.layers.size() > 0) {
          launch.layers(target.layers.top(maxLayers));
        }
      } finally {
        profiling.onCompleted((System.nanoTime() - start) / 1e6, profiledLaunch);
      }
    }
  }

  /** The process's recorder, started on first use (the kernel policy picked a launch). */
  private LaunchRecorder recorder() {
    LaunchRecorder r = recorder;
    if (r == null) {
      r = Objects.requireNonNull(recorderStart.get(), "recorder");
      recorder = r;
    }
    return r;
  }

  /** Writes the kernel records held so far (a forced flush); done at once when none was ever started. */
  java.util.concurrent.CompletableFuture<Void> flushKernelRecords() {
    LaunchRecorder r = recorder;
    return r == null ? java.util.concurrent.CompletableFuture.completedFuture(null) : r.flush();
  }

  /**
   * The one execution path: borrows a slot (the target's preferred one when free), registers the target
   * for the thread's TensorRT messages, binds and enqueues each pass between the CUDA events, waits, hands the
   * device time, the layer times (profiled) and the recorded errors to the target, and returns the slot.
   */
  private boolean execute(Target target, List<? extends Binder<C>> passes, boolean profiled) throws Exception {
    try (ContextPool.Lease<ExecutionSlot<C>> lease = pool.borrow(borrowTimeout, target.requestId(), target.preferredSlot())) {
      target.borrowed(lease.slotId());
      ExecutionSlot<C> slot = lease.context();
      Thread me = Thread.currentThread();
      running.put(me, target);
      boolean ok = false;
      boolean threw = false;
      try {
        InferenceTrace.StageTimer host = target.hostStage();
        try {
          ok = enqueue(slot, target, passes, profiled);
        } finally {
          if (host != null) {
            host.close();
          }
        }
        double gpu = slot.gpuMs();
        if (ok && !Double.isNaN(gpu)) {
          target.gpuMs(gpu);
        }
        if (profiled && ok) {
          target.layers(slot);
        }
      } catch (Exception e) {
        threw = true;
        target.error(e);
        throw e;
      } finally {
        // Both run however the launch ended: the slot's errors are this target's, and the thread is no
        // longer this target's once the lease goes back.
        try {
          ok = recordErrors(slot, target, ok, threw);
        } finally {
          running.remove(me, target);
        }
      }
      return ok;
    }
  }

  /**
   * Binds and enqueues the passes between the slot's events and waits for them. Nothing is enqueued when the
   * first binder throws; when a later one throws, what was enqueued is still ended and waited for (its buffers are
   * in use on the stream) before the exception goes on, and the launch is not timed.
   */
  private static <C> boolean enqueue(ExecutionSlot<C> slot, Target target, List<? extends Binder<C>> passes,
      boolean profiled) throws Exception {
    boolean ok = false;
    boolean begun = false;
    try {
      for (int i = 0; i < passes.size(); i++) {
        ok = false;
        passes.get(i).bind(slot.context(profiled));
        if (!begun) {
          target.beforeEnqueue();
          begun = true;
          slot.begin();
        }
        ok = slot.enqueue(profiled);
        if (!ok) {
          break;
        }
        if (profiled && i < passes.size() - 1) {
          slot.synchronize();
          target.layers(slot);
        }
      }
    } finally {
      if (begun) {
        try {
          slot.end(ok);
        } finally {
          target.afterEnqueue();
        }
        try {
          slot.synchronize();
        } finally {
          target.finished(); // also when the wait failed: a recorder counts its launches in flight
        }
      }
    }
    return ok;
  }

  /** Where one launch's outcome goes: a request's own trace, or a shared launch (and its members). */
  private interface Target {
    /** For the pool's timeout message; null for a shared launch. */
    @Nullable String requestId();

    /** The slot to prefer (the last one used), or -1. */
    int preferredSlot();

    void borrowed(int slot);

    /** The host-time stage around bind, launch and wait, or null (a shared launch times itself). */
    InferenceTrace.@Nullable StageTimer hostStage();

    void event(String kind, String severity, String message);

    void gpuMs(double ms);

    void error(String errorType);

    void error(Exception e);

    /** Takes the per-layer times of the profiled launch just run on {@code slot}. */
    void layers(ExecutionSlot<?> slot);

    /** Just before the enqueue, on the launching thread: NVTX range, CUPTI correlation. */
    default void beforeEnqueue() {}

    /** Just after the enqueue (however it ended), on the same thread: undoes {@link #beforeEnqueue()}. */
    default void afterEnqueue() {}

    /** The launch finished on the device (after the stream's synchronize). */
    default void finished() {}
  }

  /** A shared launch as a target: everything goes to the launch, which passes it to its members. */
  private static final class Shared implements Target {
    private final SharedLaunch launch;
    private final @Nullable LayerTable layers;
    private final LaunchRecorder recorder;
    private final @Nullable String requestRange;
    private boolean correlated;
    private boolean ranged;
    private long requestRangeId;

    Shared(SharedLaunch launch, @Nullable LayerTable layers, LaunchRecorder recorder, @Nullable String requestRange) {
      this.launch = launch;
      this.layers = layers;
      this.recorder = recorder;
      this.requestRange = requestRange;
    }

    @Override
    public void beforeEnqueue() {
      if (Nvtx.enabled()) {
        ranged = true;
        Nvtx.push(Nvtx.LAUNCH_PREFIX + launch.id());
        if (requestRange != null && launch.hasMember(requestRange)) {
          requestRangeId = Nvtx.start(Nvtx.REQUEST_PREFIX + requestRange);
        }
      }
      if (recorder != LaunchRecorder.OFF) {
        correlated = recorder.begin(launch.id());
      }
    }

    @Override
    public void afterEnqueue() {
      if (correlated) {
        recorder.end(launch.id());
      }
      if (ranged) {
        if (requestRangeId != 0) {
          Nvtx.end(requestRangeId);
        }
        Nvtx.pop();
      }
    }

    @Override
    public void finished() {
      if (correlated) {
        recorder.completed(launch.id(), launch.activityLog());
      }
    }

    @Override public @Nullable String requestId() { return null; }

    @Override public int preferredSlot() { return -1; }

    @Override public void borrowed(int slot) {}

    @Override public InferenceTrace.@Nullable StageTimer hostStage() { return null; }

    @Override public void event(String kind, String severity, String message) { launch.event(kind, severity, message); }

    @Override public void gpuMs(double ms) { launch.gpuMs(ms); }

    @Override public void error(String errorType) { launch.error(errorType); }

    @Override public void error(Exception e) { launch.error(e); }

    @Override
    public void layers(ExecutionSlot<?> slot) {
      if (layers != null) {
        slot.drainLayers(layers::add);
      }
    }
  }

  /** Turns the errors TensorRT recorded on the slot into events and the error type; false if any. */
  private static boolean recordErrors(ExecutionSlot<?> slot, Target target, boolean ok, boolean threw) {
    List<RecordedError> errors = slot.drainErrors();
    for (RecordedError err : errors) {
      TrtLogKind kind = TrtLogClassifier.classify(TrtSeverity.ERROR, err.description());
      target.event(kind.eventKind(), TrtSeverity.ERROR.recordSeverity(), err.description());
    }
    if (!errors.isEmpty()) {
      target.error("tensorrt." + errors.get(errors.size() - 1).codeName());
      return false;
    }
    if (!ok && !threw) {
      target.error("tensorrt.enqueue_failed");
    }
    return ok;
  }

  /** Waits until no request holds a slot; see {@link ContextPool#awaitIdle}. */
  boolean awaitIdle(Duration timeout) {
    return pool.awaitIdle(timeout);
  }

  ContextPoolStats stats() {
    return pool.stats();
  }

  @Override
  public void close() {
    pool.close();
  }
}
