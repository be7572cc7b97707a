package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Stage;
import io.github.trtrace.tensorrt.log.RecordedError;
import io.github.trtrace.tensorrt.log.TrtLogClassifier;
import io.github.trtrace.tensorrt.log.TrtLogEvent;
import io.github.trtrace.tensorrt.log.TrtLogKind;
import io.github.trtrace.tensorrt.log.TrtSeverity;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The request side of a traced engine, free of CUDA and TensorRT types: borrows a slot, binds the
 * request to it (so TensorRT messages and recorded errors land on that request), times the launch
 * on host and device, attaches per-layer times when the profiling policy asks for them, and returns
 * the slot.
 */
final class TracedExecution<C> implements AutoCloseable {

  /** Binds inputs and outputs (tensor addresses, shapes) on a borrowed context before launch. */
  @FunctionalInterface
  interface Binder<C> {
    void bind(C context) throws Exception;
  }

  private final ContextPool<ExecutionSlot<C>> pool;
  private final ProfilingPolicy profiling;
  private final @Nullable String fingerprint;
  private final Duration borrowTimeout;
  private final Map<String, InferenceTrace> running = new ConcurrentHashMap<>();

  TracedExecution(
      List<? extends ExecutionSlot<C>> slots,
      ProfilingPolicy profiling,
      @Nullable String fingerprint,
      Duration borrowTimeout) {
    this.pool = ContextPool.create(List.copyOf(slots));
    this.profiling = Objects.requireNonNull(profiling, "profiling");
    this.fingerprint = fingerprint;
    this.borrowTimeout = Objects.requireNonNull(borrowTimeout, "borrowTimeout");
  }

  /**
   * A listener for the log pipeline's run-time events: an event whose request is running here is
   * added to that request's trace.
   */
  Consumer<TrtLogEvent> eventListener() {
    return e -> {
      String id = e.requestId();
      InferenceTrace t = id == null ? null : running.get(id);
      if (t != null) {
        t.event(e.kind().eventKind(), e.severity().recordSeverity(), e.message());
      }
    };
  }

  /**
   * Runs one launch for {@code trace}'s request. The INFER stage covers bind, launch and
   * synchronisation; device time is added from the slot's CUDA events. Errors TensorRT reported on
   * the context become the trace's {@code error_type} ({@code tensorrt.<code name>}) and events.
   *
   * @return false when TensorRT refused the launch or reported an error (the trace says which)
   * @throws ContextPoolTimeoutException when no context became free within the borrow timeout
   * @throws Exception what the binder threw (also recorded on the trace)
   */
  boolean infer(InferenceTrace trace, Binder<C> binder) throws Exception {
    String requestId = trace.requestId();
    try (ContextPool.Lease<ExecutionSlot<C>> lease = pool.borrow(borrowTimeout, requestId)) {
      ExecutionSlot<C> slot = lease.context();
      boolean profile = profiling.shouldProfile();
      running.put(requestId, trace);
      boolean ok = false;
      boolean threw = false;
      try {
        slot.profiling(profile);
        // nested: inside an open DECODE stage, DECODE pauses and this launch adds to infer_ms
        InferenceTrace.StageTimer infer = trace.stage(Stage.INFER);
        try {
          binder.bind(slot.context());
          ok = slot.launch();
          slot.synchronize();
        } finally {
          infer.close();
        }
        double gpu = slot.gpuMs();
        if (ok && !Double.isNaN(gpu)) {
          trace.addGpuMs(gpu);
        }
        if (profile) {
          LayerTable table = LayerTable.create();
          slot.drainLayers(table::add);
          trace.layers(table.layers());
        }
      } catch (Exception e) {
        threw = true;
        trace.error(e);
        throw e;
      } finally {
        // Every step below runs even when one before it fails: the request leaves `running`, the
        // policy sees the latency and the lease goes back on every path.
        try {
          ok = recordErrors(slot, trace, ok, threw);
          if (profile) {
            slot.profiling(false);
          }
        } finally {
          if (fingerprint != null) {
            trace.engineFingerprint(fingerprint);
          }
          running.remove(requestId, trace);
          profiling.onCompleted(trace.elapsedNanos() / 1e6);
        }
      }
      return ok;
    }
  }

  /** Turns the errors TensorRT recorded on the slot into events and the error type; false if any. */
  private static boolean recordErrors(ExecutionSlot<?> slot, InferenceTrace trace, boolean ok, boolean threw) {
    List<RecordedError> errors = slot.drainErrors();
    for (RecordedError err : errors) {
      TrtLogKind kind = TrtLogClassifier.classify(TrtSeverity.ERROR, err.description());
      trace.event(kind.eventKind(), TrtSeverity.ERROR.recordSeverity(), err.description());
    }
    if (!errors.isEmpty()) {
      trace.error("tensorrt." + errors.get(errors.size() - 1).codeName());
      return false;
    }
    if (!ok && !threw) {
      trace.error("tensorrt.enqueue_failed");
    }
    return ok;
  }

  /** Waits until no request holds a slot; see {@link ContextPool#awaitIdle}. */
  boolean awaitIdle(Duration timeout) {
    return pool.awaitIdle(timeout);
  }

  ContextPool.Stats stats() {
    return pool.stats();
  }

  @Override
  public void close() {
    pool.close();
  }
}
