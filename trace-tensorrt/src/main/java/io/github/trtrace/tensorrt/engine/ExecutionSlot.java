package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.tensorrt.log.RecordedError;
import io.github.trtrace.tensorrt.shim.LayerSampleConsumer;
import java.util.List;

/**
 * One execution context of an engine with everything bound to it: its stream, its CUDA event pair,
 * its error recorder and its profiler. The seam between the pure-Java request orchestration in
 * {@link TracedExecution} (tested in CI) and the CUDA/TensorRT calls in {@link TracedEngine} (run on
 * the GPU).
 *
 * @param <C> the execution context type handed to the caller's binder
 */
interface ExecutionSlot<C> extends AutoCloseable {

  /** The execution context the caller binds tensors on. */
  C context();

  /** Installs (true) or removes (false) the per-layer profiler for the next launch. */
  void profiling(boolean enabled);

  /** Records the start event, enqueues the engine, records the stop event. False = enqueue refused. */
  boolean launch();

  /** Waits for the launch to finish on the device. */
  void synchronize();

  /** Device time of the last launch (CUDA event pair), milliseconds; NaN when unknown. */
  double gpuMs();

  /** Hands the per-layer times of the last profiled launch to {@code consumer}. */
  void drainLayers(LayerSampleConsumer consumer);

  /** Errors TensorRT reported on this context since the last drain. */
  List<RecordedError> drainErrors();

  @Override
  void close();
}
