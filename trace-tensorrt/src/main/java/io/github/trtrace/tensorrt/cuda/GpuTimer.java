package io.github.trtrace.tensorrt.cuda;

import static org.bytedeco.cuda.global.cudart.cudaErrorNotReady;
import static org.bytedeco.cuda.global.cudart.cudaEventCreate;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cudaEventQuery;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaEventSynchronize;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.cuda.cudart.CUevent_st;

/**
 * Device-side timing of the work queued on one stream between {@link #start()} and {@link #stop()}, with a
 * pair of CUDA events. Reusable: start/stop/elapsed as often as needed; one timer per concurrent measurement.
 * Not thread-safe.
 *
 * <pre>{@code
 * try (GpuTimer timer = GpuTimer.create(stream)) {
 *   timer.start(); context.enqueueV3(stream.handle()); timer.stop();
 *   record.gpuMs(timer.elapsedMs());
 * }
 * }</pre>
 */
public final class GpuTimer implements AutoCloseable {
  private final CudaStream stream;
  private final CUevent_st begin = new CUevent_st();
  private final CUevent_st end = new CUevent_st();
  /**
   * Where {@code cudaEventElapsedTime} writes: a direct buffer, which the binding passes by its address; a
   * {@code float[]} is copied in and out by JNI on every call. The read is on the path of every timed launch, after
   * its wait: 644 ns with a {@code float[]}, 576 ns into a direct buffer (an H100, GPU-RESULTS.md "Runs 43 to 45").
   */
  private final FloatBuffer ms = ByteBuffer.allocateDirect(Float.BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer();
  private final AtomicBoolean closed = new AtomicBoolean();
  private boolean started;
  private boolean stopped;

  private GpuTimer(CudaStream stream) {
    this.stream = stream;
    CudaException.check("cudaEventCreate", cudaEventCreate(begin));
    int rc = cudaEventCreate(end);
    if (rc != 0) {
      cudaEventDestroy(begin);
      CudaException.check("cudaEventCreate", rc);
    }
  }

  /** A timer on {@code stream}. */
  public static GpuTimer create(CudaStream stream) {
    return new GpuTimer(stream);
  }

  /** A timer on the legacy default stream. */
  public static GpuTimer create() {
    return new GpuTimer(CudaStream.defaultStream());
  }

  /** Records the start event on the stream. */
  public void start() {
    CudaException.check("cudaEventRecord", cudaEventRecord(begin, stream.handle()));
    started = true;
    stopped = false;
  }

  /** Records the stop event on the stream (after the work to time was queued). */
  public void stop() {
    if (!started) {
      throw new IllegalStateException("GpuTimer.stop() before start()");
    }
    CudaException.check("cudaEventRecord", cudaEventRecord(end, stream.handle()));
    stopped = true;
  }

  /** Whether the stop event has completed on the device (never blocks). */
  public boolean isDone() {
    if (!stopped) {
      return false;
    }
    int rc = cudaEventQuery(end);
    if (rc == cudaErrorNotReady) {
      return false;
    }
    CudaException.check("cudaEventQuery", rc);
    return true;
  }

  /** Milliseconds of device time between start and stop; waits for the stop event to complete. */
  public float elapsedMs() {
    if (!stopped) {
      throw new IllegalStateException("GpuTimer.elapsedMs() before start() and stop()");
    }
    CudaException.check("cudaEventSynchronize", cudaEventSynchronize(end));
    CudaException.check("cudaEventElapsedTime", cudaEventElapsedTime(ms, begin, end));
    return ms.get(0);
  }

  /**
   * Milliseconds of device time between start and stop, for a caller that already waited for the stream
   * (or the stop event): reads the elapsed time directly, and waits for the stop event only if the device
   * says it has not completed yet. Saves the extra {@code cudaEventSynchronize} of {@link #elapsedMs()} on
   * the per-launch path.
   */
  public float elapsedMsCompleted() {
    if (!stopped) {
      throw new IllegalStateException("GpuTimer.elapsedMsCompleted() before start() and stop()");
    }
    int rc = cudaEventElapsedTime(ms, begin, end);
    if (rc == cudaErrorNotReady) {
      return elapsedMs();
    }
    CudaException.check("cudaEventElapsedTime", rc);
    return ms.get(0);
  }

  /** Destroys both events. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      cudaEventDestroy(begin);
      cudaEventDestroy(end);
    }
  }
}
