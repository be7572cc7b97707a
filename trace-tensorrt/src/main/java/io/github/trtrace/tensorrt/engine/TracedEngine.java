package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.cuda.GpuTimer;
import io.github.trtrace.tensorrt.log.RecordedError;
import io.github.trtrace.tensorrt.log.TrtLogEvent;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.shim.LayerSampleConsumer;
import io.github.trtrace.tensorrt.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.shim.ShimProfiler;
import io.github.trtrace.tensorrt.shim.TensorRtObjects;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;
import org.bytedeco.tensorrt.nvinfer.IProfiler;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * An {@link ICudaEngine} with a pool of execution contexts, each with its own CUDA stream, CUDA
 * event pair, error recorder and per-layer profiler (the native shim). {@link #infer} runs one
 * launch inside the current request: the request is bound to the context it borrows, so TensorRT
 * messages and errors reported on that context are attributed to it; host time becomes the INFER
 * stage, device time ({@code gpu_ms}) comes from the CUDA events; per-layer times are attached when
 * the {@link ProfilingPolicy} asks; the engine fingerprint goes on every record.
 *
 * <pre>{@code
 * try (TracedEngine engine = TracedEngine.builder(cudaEngine).contexts(4)
 *         .logPipeline(pipeline).fingerprint(report.engineFingerprint())
 *         .profiling(ProfilingPolicy.builder().sampleRate(0.01).afterSlow(500, 20).build()).build();
 *      InferenceTrace t = tracer.start("llama-8b")) {
 *   engine.infer(t, (ctx, stream) -> {
 *     ctx.setInputShape("input_ids", dims);
 *     ctx.setTensorAddress("input_ids", inputDevicePtr);
 *     ctx.setTensorAddress("logits", outputDevicePtr);
 *   });
 * }
 * }</pre>
 *
 * <p>The engine itself stays yours: closing a {@code TracedEngine} destroys its contexts, streams,
 * events and shim objects (in reverse order of creation), not the {@code ICudaEngine}.
 */
public final class TracedEngine implements AutoCloseable {

  /** Binds inputs and outputs on the borrowed context, for launch on {@code stream}. */
  @FunctionalInterface
  public interface Binder {
    void bind(IExecutionContext context, CudaStream stream) throws Exception;
  }

  private final TracedExecution<Slot> execution;
  private final List<Slot> slots;
  private final @Nullable TrtLogPipeline pipeline;
  private final Consumer<TrtLogEvent> listener;
  private final Duration closeTimeout;
  private final AtomicBoolean closed = new AtomicBoolean();

  private TracedEngine(Builder b) {
    List<Slot> created = new ArrayList<>(b.contexts);
    try {
      for (int i = 0; i < b.contexts; i++) {
        created.add(new Slot(b.engine, i));
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
    this.execution = new TracedExecution<>(seams, b.profiling, b.fingerprint, b.borrowTimeout);
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

  /**
   * Runs one launch of the engine for {@code trace}'s request and waits for it to finish.
   *
   * @return false when TensorRT refused the launch or reported an error (the trace records which)
   * @throws ContextPoolTimeoutException when no context was free within the borrow timeout
   * @throws Exception what {@code binder} threw
   */
  public boolean infer(InferenceTrace trace, Binder binder) throws Exception {
    return execution.infer(trace, slot -> binder.bind(slot.context, slot.stream));
  }

  /** Pool counters: borrows, waits, timeouts, contexts in use. */
  public ContextPool.Stats poolStats() {
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
              + " contexts are left allocated rather than destroyed under a running launch",
          execution.stats().inUse(), closeTimeout.toMillis(), slots.size());
      return;
    }
    for (int i = slots.size() - 1; i >= 0; i--) {
      slots.get(i).close();
    }
  }

  /** Options of a traced engine. */
  public static final class Builder {
    private final ICudaEngine engine;
    private int contexts = 1;
    private ProfilingPolicy profiling = ProfilingPolicy.never();
    private @Nullable String fingerprint;
    private @Nullable TrtLogPipeline pipeline;
    private Duration borrowTimeout = Duration.ofSeconds(30);

    private Builder(ICudaEngine engine) {
      this.engine = Objects.requireNonNull(engine, "engine");
    }

    /** Number of execution contexts (concurrent launches), 1..64; default 1. */
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

    /** The engine fingerprint written on every record (from the {@code BuildReport}). */
    public Builder fingerprint(String fingerprint) {
      this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
      return this;
    }

    /** The pipeline of the {@code TensorRtLogger} the engine's runtime uses: its events reach traces. */
    public Builder logPipeline(TrtLogPipeline pipeline) {
      this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
      return this;
    }

    /** The longest {@code infer} waits for a free context; default 30 s. */
    public Builder borrowTimeout(Duration timeout) {
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("borrowTimeout must not be negative: " + timeout);
      }
      this.borrowTimeout = timeout;
      return this;
    }

    /** Creates the contexts, streams, events and shim objects. */
    public TracedEngine build() {
      return new TracedEngine(this);
    }
  }

  /** One execution context and what is bound to it; created and destroyed together. */
  private static final class Slot {
    final IExecutionContext context;
    final CudaStream stream;
    final GpuTimer timer;
    final ShimErrorRecorder recorder;
    final ShimProfiler profiler;
    final IProfiler tensorRtProfiler;
    final ExecutionSlot<Slot> seam;
    boolean launched;

    Slot(ICudaEngine engine, int index) {
      // The recorder and the profiler must outlive the context: TensorRT calls them until the
      // context is destroyed, so they are released after it in close().
      recorder = ShimErrorRecorder.create();
      profiler = ShimProfiler.create();
      tensorRtProfiler = profiler.asTensorRt();
      stream = CudaStream.create();
      timer = GpuTimer.create(stream);
      IExecutionContext c = engine.createExecutionContext();
      if (c == null || c.isNull()) {
        timer.close();
        stream.close();
        profiler.close();
        recorder.close();
        throw new IllegalStateException(
            "TensorRT could not create execution context " + index + " (device memory?)");
      }
      context = c;
      context.setErrorRecorder(recorder.asTensorRt());
      // Layer times are reported when asked (reportToProfiler), not on every enqueue.
      context.setEnqueueEmitsProfile(false);
      seam = new Seam();
    }

    /** Releases in reverse order of creation; a failing step does not keep the later ones from running. */
    void close() {
      try {
        TensorRtObjects.destroy(context);
      } finally {
        try {
          timer.close();
        } finally {
          try {
            stream.close();
          } finally {
            try {
              profiler.close();
            } finally {
              recorder.close();
            }
          }
        }
      }
    }

    private final class Seam implements ExecutionSlot<Slot> {
      @Override
      public Slot context() {
        return Slot.this;
      }

      @Override
      public void profiling(boolean enabled) {
        context.setProfiler(enabled ? tensorRtProfiler : null);
      }

      @Override
      public boolean launch() {
        timer.start();
        boolean ok = context.enqueueV3(stream.handle());
        timer.stop();
        launched = ok;
        return ok;
      }

      @Override
      public void synchronize() {
        stream.synchronize();
      }

      @Override
      public double gpuMs() {
        return launched ? timer.elapsedMs() : Double.NaN;
      }

      @Override
      public void drainLayers(LayerSampleConsumer consumer) {
        if (context.getProfiler() != null && !context.getProfiler().isNull()) {
          context.reportToProfiler();
        }
        profiler.drain(consumer);
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
