/**
 * GPU metrics from NVML (through the JavaCPP CUDA preset) for trtrace's GPU-metrics poller.
 *
 * <pre>{@code
 * GpuMetricsSource gpu = NvmlMetricsSource.openOrNoop(0);
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.nvml;

import org.jspecify.annotations.NullMarked;
