/**
 * CUDA helpers on the JavaCPP CUDA preset: streams and event-pair GPU timing. Needs the CUDA driver.
 *
 * <pre>{@code
 * try (CudaStream stream = CudaStream.create(); GpuTimer timer = GpuTimer.create(stream)) {
 *   timer.start(); context.enqueueV3(stream.handle()); timer.stop();
 *   double gpuMs = timer.elapsedMs();
 * }
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.cuda;

import org.jspecify.annotations.NullMarked;
