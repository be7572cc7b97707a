package io.github.trtrace.core.gpu;

/**
 * Reads GPU metrics. Polled by a background thread at a fixed interval, never on the request path;
 * records carry the latest reading. {@code trace-tensorrt} provides an NVML implementation.
 *
 * <pre>{@code
 * InferenceTracer.builder().gpuMetrics(NvmlMetricsSource.open(0), Duration.ofMillis(500)).build();
 * }</pre>
 */
public interface GpuMetricsSource extends AutoCloseable {

  /** Reads the current metrics. May block briefly (driver call); may throw, which is counted. */
  GpuReading read() throws Exception;

  /** Releases the backend. */
  @Override
  default void close() {}

  /** The source used when none is configured: always {@link GpuReading#UNKNOWN}. */
  static GpuMetricsSource noop() {
    return () -> GpuReading.UNKNOWN;
  }
}
