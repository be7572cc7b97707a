package io.github.trtrace.tensorrt.internal.shim;

/**
 * Receives one per-layer timing that TensorRT reported to a {@link ShimProfiler}.
 *
 * <pre>{@code
 * profiler.drain((layer, ms) -> table.add(layer, ms));
 * }</pre>
 */
@FunctionalInterface
public interface LayerSampleConsumer {
  /** One call of {@code IProfiler::reportLayerTime(layerName, ms)}, in the order TensorRT made them. */
  void accept(String layerName, float ms);
}
