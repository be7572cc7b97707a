// Over 400 lines: the engine's public surface (builder with its options, request and infer forms, the close protocol) with the javadoc each needs; execution itself is in TracedExecution.
package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.cuda.DeviceMemory;
import io.github.trtrace.tensorrt.cuda.GpuTimer;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.internal.cupti.CuptiRecorder;
import io.github.trtrace.tensorrt.internal.shim.LayerSampleConsumer;
import io.github.trtrace.tensorrt.internal.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.internal.shim.ShimProfiler;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * An {@link ICudaEngine} with a pool of execution slots, each with its own CUDA stream, CUDA event
 * pair, error recorder and two execution contexts sharing one block of activation memory: a plain
 * one, and one with the per-layer profiler (native shim) attached. A {@link Request} is one inference
 * request's use of the engine — a prefill launch and one launch per decoded token: each launch is
 * bound to the slot it borrows, so TensorRT errors reported on that slot land on that request; host
 * time is the {@code INFER} stage (nested inside {@code DECODE}, it adds to {@code infer_ms}), device
 * time ({@code gpu_ms}) comes from the CUDA events; when the {@link ProfilingPolicy} picks the request
 * (once, when it opens), all its launches run on profiled contexts and its per-layer times, summed
 * over the launches and capped per record, join the build report; the engine fingerprint goes on
 * every record. Unprofiled launches run on contexts without a profiler and pay nothing for it.
 *
 * <p>A service that batches runs each step as one {@linkplain #launch(SharedLaunch, Binder) shared launch}
 * for all its requests' rows: the same execution path, timed once, its GPU time split among the members by
 * the core's {@link SharedLaunch}; a {@link Request} is that path with one member.
 *
 * <pre>{@code
 * try (TracedEngine engine = TracedEngine.builder(cudaEngine).contexts(4).logPipeline(pipeline)
 *         .buildReport(report)                      // fingerprint + layer explanations
 *         .profiling(ProfilingPolicy.builder().sampleRate(0.01).slowThreshold(Duration.ofMillis(500)).profileAfterSlow(20).build()).build();
 *      InferenceTrace t = tracer.start("llama-8b");
 *      TracedEngine.Request r = engine.request(t)) {
 *   t.runStage(Stage.DECODE, () -> {
 *     r.launch((ctx, stream) -> bindPrefill(ctx, prompt));       // prefill: first token
 *     t.token();
 *     while (generating) {
 *       r.launch((ctx, stream) -> bindDecodeStep(ctx));          // one launch per token
 *       t.token();
 *     }
 *   });
 * }
 * }</pre>
 *
 * <p>A shared launch the {@link KernelRecordPolicy} picks (off by default) has its GPU kernels recorded through
 * CUPTI and written to the launch log as a {@code kernels} line; with an NVTX tool attached, each shared launch's
 * enqueue is inside an NVTX range {@code trtrace launch <id>} (see docs/tensorrt.md).
 *
 * <p>The engine itself stays yours: closing a {@code TracedEngine} destroys its contexts, streams,
 * events, activation memory and shim objects (in reverse order of creation), not the {@code
 * ICudaEngine}.
 */
public final class TracedEngine implements AutoCloseable {

  /** Binds inputs and outputs on the borrowed context, for launch on {@code stream}. */
  @FunctionalInterface
  public interface Binder {
    void bind(IExecutionContext context, CudaStream stream) throws Exception;
  }

  /**
   * One request's launches on the engine; {@link #close()} attaches the layer table and tells the
   * profiling policy the request's latency (once). It does not end the trace. One launch at a time.
   */
  public interface Request extends AutoCloseable {
    /**
     * Runs one launch and waits for it to finish on the device.
     *
     * @return false when TensorRT refused the launch or reported an error (the trace records which)
     * @throws ContextPoolTimeoutException when no context was free within the borrow timeout
     * @throws Exception what {@code binder} threw
     */
    boolean launch(Binder binder) throws Exception;

    /** Whether this request's launches are profiled per layer. */
    boolean profiled();

    /**
     * Device time (CUDA events) of this request's launches so far, in milliseconds: what {@code gpu_ms}
     * adds up, for callers that split it by phase (prefill, decode).
     */
    double gpuMs();

    @Override
    void close();
  }

  private final TracedExecution<Slot> execution;
  private final List<Slot> slots;
  private final @Nullable TrtLogPipeline pipeline;
  private final Consumer<TrtLogEvent> listener;
  private final Duration closeTimeout;
  private final @Nullable String fingerprint;
  private final AtomicBoolean closed = new AtomicBoolean();

  private TracedEngine(Builder b) {
    List<Slot> created = new ArrayList<>(b.contexts);
    try {
      for (int i = 0; i < b.contexts; i++) {
        created.add(new Slot(b.engine, i, !(b.profiling instanceof DefaultProfilingPolicy d && d.neverProfiles())));
      }
    } catch (RuntimeException e) {
      for (int i = created.size() - 1; i >= 0; i--) {
        created.get(i).close();
      }
      throw e;
    }
    this.slots = List.copyOf(created);
    List<ExecutionSlot<Slot>> seams = new ArrayList<>(slots.size());
    for (Slot s : slots) {
      seams.add(s.seam);
    }
    String fingerprint = b.fingerprint != null ? b.fingerprint
        : b.buildReport == null ? null : b.buildReport.engineFingerprint();
    this.fingerprint = fingerprint;
    KernelRecordPolicy kernels = b.kernels != null ? b.kernels : KernelRecordPolicy.fromSystemProperties();
    this.execution = new TracedExecution<>(seams, b.profiling, fingerprint, b.borrowTimeout, b.maxLayers, b.buildReport,
        kernels, CuptiRecorder::shared);
    this.closeTimeout = b.borrowTimeout;
    this.pipeline = b.pipeline;
    this.listener = execution.eventListener();
    if (pipeline != null) {
      pipeline.onEvent(listener);
    }
  }

  /** Starts a builder for {@code engine}. */
  public static Builder builder(ICudaEngine engine) {
    return new Builder(engine);
  }

  /** Opens {@code trace}'s request on the engine; the profiling policy decides now, for all its launches. */
  public Request request(InferenceTrace trace) {
    TracedExecution<Slot>.Request r = execution.open(trace);
    return new Request() {
      @Override
      public boolean launch(Binder binder) throws Exception {
        return r.launch(slot -> binder.bind(slot.bound, slot.stream));
      }

      @Override
      public boolean profiled() {
        return r.profiled();
      }

      @Override
      public double gpuMs() {
        return r.gpuMs();
      }

      @Override
      public void close() {
        r.close();
      }
    };
  }

  /**
   * Runs {@code trace}'s request as one launch (a request of its own) and waits for it to finish.
   *
   * @return false when TensorRT refused the launch or reported an error (the trace records which)
   * @throws ContextPoolTimeoutException when no context was free within the borrow timeout
   * @throws Exception what {@code binder} threw
   */
  public boolean infer(InferenceTrace trace, Binder binder) throws Exception {
    try (Request r = request(trace)) {
      return r.launch(binder);
    }
  }

  /**
   * Runs one launch shared by several requests — a step of continuous batching, or a dynamic batch — and
   * waits for it to finish: the bindings carry one row (or chunk) per member declared on {@code launch}
   * ({@link SharedLaunch#prefill}, {@link SharedLaunch#decode}, {@link SharedLaunch#rows}). The CUDA
   * events time the launch once ({@link SharedLaunch#gpuMs}; the core splits it among the members);
   * TensorRT's errors on the slot's context and its messages on this thread go to the launch and so to
   * every member's record ({@code error_type}, {@code failed_launch_id}); a launch the {@link
   * ProfilingPolicy} picks runs on the profiled context and its layer table goes to its launch-log line.
   * Open the launch with this engine's {@link #fingerprint()}; this method does not close it.
   *
   * <pre>{@code
   * try (SharedLaunch step = tracer.launch(engine.fingerprint())) {    // the scheduler thread
   *   for (Req r : decoding) step.decode(r.trace());
   *   engine.launch(step, (ctx, stream) -> bindRows(ctx, decoding));   // B rows, one enqueueV3
   * }
   * }</pre>
   *
   * @return false when TensorRT refused the launch or reported an error (the launch records which)
   * @throws ContextPoolTimeoutException when no context was free within the borrow timeout
   * @throws Exception what {@code binder} threw (also recorded on the launch)
   */
  public boolean launch(SharedLaunch launch, Binder binder) throws Exception {
    return execution.launch(launch, slot -> binder.bind(slot.bound, slot.stream));
  }

  /**
   * {@link #launch(SharedLaunch, Binder)} as several enqueues of one context, for a step whose rows do not share
   * one shape: each binder binds one pass (its own shapes and addresses), and the passes run one after another on
   * the slot's stream between one pair of CUDA events, so the launch is still timed once and its time split among
   * all its members. A continuous-batching step with a prefill chunk among decode rows is the case: one pass of
   * {@code B × 1} for the decode rows and one of {@code B' × S} for the chunks, instead of every decode row padded
   * to the chunk's S. The passes run in order and the launch stops at the first one TensorRT refuses. A launch the
   * {@link ProfilingPolicy} picks waits for each pass before the next (TensorRT reports the layer times of the last
   * enqueue), so its {@code gpu_ms} includes those waits; its layer table sums the passes.
   *
   * <pre>{@code
   * engine.launch(step, List.of(
   *     (ctx, stream) -> bindRows(ctx, decoding),      // B x 1
   *     (ctx, stream) -> bindRows(ctx, prefilling)));  // B' x S
   * }</pre>
   *
   * @return false when TensorRT refused a pass or reported an error (the launch records which)
   * @throws IllegalArgumentException when {@code passes} is empty
   * @throws ContextPoolTimeoutException when no context was free within the borrow timeout
   * @throws Exception what a binder threw (also recorded on the launch)
   */
  public boolean launch(SharedLaunch launch, List<? extends Binder> passes) throws Exception {
    List<TracedExecution.Binder<Slot>> bound = new ArrayList<>(passes.size());
    for (Binder b : passes) {
      Objects.requireNonNull(b, "pass");
      bound.add(slot -> b.bind(slot.bound, slot.stream));
    }
    return execution.launch(launch, bound);
  }

  /**
   * Writes the kernel records CUPTI holds so far to the launch log (a forced flush, on the recorder's thread)
   * and completes when they are queued there; at once when this engine never recorded kernels. For checks and
   * shutdown: records of launches still running on the device are not complete yet, and a launch whose records have
   * not all come is written as it is, its line marked {@code "complete": false}.
   */
  public CompletableFuture<Void> flushKernelRecords() {
    return execution.flushKernelRecords();
  }

  /** The engine fingerprint written on records and launches, or null when none was given. */
  public @Nullable String fingerprint() {
    return fingerprint;
  }

  /** Pool counters: borrows, waits, timeouts, contexts in use. */
  public ContextPoolStats poolStats() {
    return execution.stats();
  }

  /**
   * Refuses new launches, stops listening to the log pipeline, waits (up to the borrow timeout) for
   * launches in flight, then destroys the contexts and what is bound to them in reverse order of
   * creation. If launches are still running after that wait, nothing native is destroyed (a context
   * in use must not be freed under it): the slots are leaked and a warning is logged. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    execution.close();
    if (pipeline != null) {
      pipeline.removeListener(listener);
    }
    if (!execution.awaitIdle(closeTimeout)) {
      LoggerFactory.getLogger(TracedEngine.class).warn(
          "TracedEngine closed while {} launch(es) were still running after {} ms: its {} execution"
              + " slots are left allocated rather than destroyed under a running launch",
          execution.stats().inUse(), closeTimeout.toMillis(), slots.size());
      return;
    }
    for (int i = slots.size() - 1; i >= 0; i--) {
      slots.get(i).close();
    }
    try {
      execution.flushKernelRecords().get(closeTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      LoggerFactory.getLogger(TracedEngine.class).warn("TracedEngine closed before its kernel records were written: {}",
          e.toString());
    }
  }

  /** Options of a traced engine. */
  public static final class Builder {
    private final ICudaEngine engine;
    private int contexts = 1;
    private ProfilingPolicy profiling = ProfilingPolicy.never();
    private @Nullable String fingerprint;
    private @Nullable BuildReport buildReport;
    private @Nullable TrtLogPipeline pipeline;
    private Duration borrowTimeout = Duration.ofSeconds(30);
    private int maxLayers = 64;
    private @Nullable KernelRecordPolicy kernels;

    private Builder(ICudaEngine engine) {
      this.engine = Objects.requireNonNull(engine, "engine");
    }

    /** Number of execution slots (concurrent launches), 1..64; default 1. */
    public Builder contexts(int n) {
      if (n < 1 || n > 64) {
        throw new IllegalArgumentException("contexts must be between 1 and 64: " + n);
      }
      this.contexts = n;
      return this;
    }

    /** When to collect per-layer times; default never. */
    public Builder profiling(ProfilingPolicy policy) {
      this.profiling = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Which shared launches get their GPU kernels recorded (CUPTI), written to the launch log as {@code kernels}
     * lines; default {@link KernelRecordPolicy#fromSystemProperties()}, off unless an operator set {@value
     * KernelRecordPolicy#SAMPLE_PROPERTY} or {@value KernelRecordPolicy#REQUEST_PROPERTY}. Off: no CUPTI
     * library is loaded and no CUPTI call made.
     */
    public Builder kernelRecords(KernelRecordPolicy policy) {
      this.kernels = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** The engine fingerprint written on every record (default: the build report's). */
    public Builder fingerprint(String fingerprint) {
      this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
      return this;
    }

    /**
     * The engine's build report: its fingerprint goes on every record, and a profiled record's layers
     * are explained from it (attributes {@code trt_layer.<name>}: precision, tactic, fused or not).
     */
    public Builder buildReport(BuildReport report) {
      this.buildReport = Objects.requireNonNull(report, "report");
      return this;
    }

    /** At most this many layers (the slowest) in a profiled record's table; default 64. */
    public Builder maxLayersPerRecord(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxLayersPerRecord must be >= 1: " + n);
      }
      this.maxLayers = n;
      return this;
    }

    /** The pipeline of the {@code TensorRtLogger} the engine's runtime uses: its events reach traces. */
    public Builder logPipeline(TrtLogPipeline pipeline) {
      this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
      return this;
    }

    /** The longest a launch waits for a free context; default 30 s. */
    public Builder borrowTimeout(Duration timeout) {
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("borrowTimeout must not be negative: " + timeout);
      }
      this.borrowTimeout = timeout;
      return this;
    }

    /** Creates the contexts, streams, events, activation memory and shim objects. */
    public TracedEngine build() {
      return new TracedEngine(this);
    }
  }

  /**
   * One slot: a stream, an event pair, an error recorder, a profiler and two execution contexts (plain
   * and profiled) over one activation-memory block, used by one launch at a time; created and
   * destroyed together. With a policy that never profiles (the default), no profiler and no profiled
   * context: that saves a context and its profiler per slot. The context stays user-managed over a block the
   * slot allocates: slots whose one context let TensorRT allocate its memory ({@code createExecutionContext()})
   * were tried and measured slower per launch than user-managed slots (each against the same raw launch, launch by
   * launch: +0.5 % at B = 1, +1.3 to 1.4 % at B = 8, two runs on an H100; GPU-RESULTS.md, "Runs 35 to 38").
   */
  private static final class Slot {
    final CudaStream stream;
    final GpuTimer timer;
    final ShimErrorRecorder recorder;
    final @Nullable ShimProfiler profiler;
    final DeviceMemory activations;
    final IExecutionContext plain;
    final @Nullable IExecutionContext profiledContext;
    final ExecutionSlot<Slot> seam;
    IExecutionContext bound;
    boolean launched;

    Slot(ICudaEngine engine, int index, boolean profilable) {
      // Created in this order, released in reverse (close). The recorder and the profiler must
      // outlive the contexts: TensorRT calls them until a context is destroyed.
      List<AutoCloseable> made = new ArrayList<>();
      try {
        recorder = add(made, ShimErrorRecorder.create());
        profiler = profilable ? add(made, ShimProfiler.create()) : null;
        stream = add(made, CudaStream.createNonBlocking());
        timer = add(made, GpuTimer.create(stream));
        activations = add(made, DeviceMemory.allocate(engine.getDeviceMemorySizeV2()));
        plain = add(made, context(engine, index, "plain"));
        profiledContext = profilable ? add(made, context(engine, index, "profiled")) : null;
      } catch (RuntimeException e) {
        closeAll(made);
        throw e;
      }
      plain.setErrorRecorder(recorder.asTensorRt());
      if (profiledContext != null && profiler != null) {
        profiledContext.setErrorRecorder(recorder.asTensorRt());
        // Layer times are reported when asked (reportToProfiler), not on every enqueue.
        profiledContext.setEnqueueEmitsProfile(false);
        profiledContext.setProfiler(profiler.asTensorRt());
      }
      bound = plain;
      seam = new Seam();
    }

    private IExecutionContext context(ICudaEngine engine, int index, String which) {
      // Both contexts of the slot use one activation block: a slot runs one launch at a time.
      IExecutionContext c = engine.createExecutionContext(nvinfer.ExecutionContextAllocationStrategy.kUSER_MANAGED);
      if (c == null || c.isNull()) {
        throw new IllegalStateException("TensorRT could not create the " + which + " execution context of slot " + index);
      }
      c.setDeviceMemoryV2(activations.pointer(), activations.bytes());
      return c;
    }

    private static <T> T add(List<AutoCloseable> made, T item) {
      made.add(item instanceof IExecutionContext c ? () -> TensorRtObjects.destroy(c) : (AutoCloseable) item);
      return item;
    }

    /** Closes in reverse order; a failing step does not keep the earlier-created ones from closing. */
    private static void closeAll(List<AutoCloseable> made) {
      RuntimeException first = null;
      for (int i = made.size() - 1; i >= 0; i--) {
        try {
          made.get(i).close();
        } catch (Exception e) {
          if (first == null) {
            first = e instanceof RuntimeException re ? re : new IllegalStateException(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    }

    void close() {
      List<AutoCloseable> made = new ArrayList<>();
      add(made, recorder);
      if (profiler != null) {
        add(made, profiler);
      }
      add(made, stream);
      add(made, timer);
      add(made, activations);
      add(made, plain);
      if (profiledContext != null) {
        add(made, profiledContext);
      }
      closeAll(made);
    }

    /** The profiled context; a policy that never profiles asks for none, so a request for it is a bug here. */
    private IExecutionContext profiledContext() {
      IExecutionContext c = profiledContext;
      if (c == null) {
        throw new IllegalStateException("a profiled launch on a slot built without a profiled context");
      }
      return c;
    }

    private final class Seam implements ExecutionSlot<Slot> {
      @Override
      public Slot context(boolean profiled) {
        bound = profiled ? profiledContext() : plain;
        return Slot.this;
      }

      @Override
      public void begin() {
        launched = false;
        timer.start();
      }

      @Override
      public boolean enqueue(boolean profiled) {
        IExecutionContext c = profiled ? profiledContext() : plain;
        return c.enqueueV3(stream.handle());
      }

      @Override
      public void end(boolean ok) {
        timer.stop();
        launched = ok;
      }

      @Override
      public void synchronize() {
        stream.synchronize();
      }

      @Override
      public double gpuMs() {
        // After synchronize(): the stop event has completed, so no second wait on it.
        return launched ? timer.elapsedMsCompleted() : Double.NaN;
      }

      @Override
      public void drainLayers(LayerSampleConsumer consumer) {
        IExecutionContext c = profiledContext();
        c.reportToProfiler();
        if (profiler != null) {
          profiler.drain(consumer);
        }
      }

      @Override
      public List<RecordedError> drainErrors() {
        return recorder.drain();
      }

      @Override
      public void close() {
        Slot.this.close();
      }
    }
  }
}
