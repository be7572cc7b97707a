package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.internal.shim.LayerSampleConsumer;
import java.util.List;

/**
 * One execution slot of an engine with everything bound to it: its stream, its CUDA event pair, its
 * error recorder, and two execution contexts over one device-memory block — a plain one and one with
 * the per-layer profiler attached (TensorRT times every layer of every launch on a context that has a
 * profiler, and TensorRT 10.6 refuses {@code setProfiler(nullptr)}, so profiling is chosen per launch
 * by choosing the context, never by attaching and detaching). The seam between the pure-Java request
 * orchestration in {@link TracedExecution} (tested in CI) and the CUDA/TensorRT calls in {@link
 * TracedEngine} (run on the GPU).
 *
 * @param <C> the execution context type handed to the caller's binder
 */
interface ExecutionSlot<C> extends AutoCloseable {

  /** The context the next launch runs on: the profiled one when {@code profiled}. */
  C context(boolean profiled);

  /** Records the start event: the launch's enqueues follow, then {@link #end}. */
  void begin();

  /** Enqueues on the chosen context (one pass of the launch). False when TensorRT refused the enqueue. */
  boolean enqueue(boolean profiled);

  /**
   * Records the stop event. The launch is timed ({@link #gpuMs}) only when {@code ok}: every pass was
   * bound and accepted.
   */
  void end(boolean ok);

  /** Waits for the launch to finish on the device. */
  void synchronize();

  /** Device time of the last launch (CUDA event pair, around all its passes), milliseconds; NaN when unknown. */
  double gpuMs();

  /** Hands the per-layer times of the last profiled launch to {@code consumer}. */
  void drainLayers(LayerSampleConsumer consumer);

  /** Errors TensorRT reported on this slot's contexts since the last drain. */
  List<RecordedError> drainErrors();

  @Override
  void close();
}
