package io.github.trtrace.tensorrt.cuda;

import static org.bytedeco.cuda.global.cudart.cudaStreamCreate;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreateWithFlags;
import static org.bytedeco.cuda.global.cudart.cudaStreamNonBlocking;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.cudart.cudaStreamSynchronize;

import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.cuda.cudart.CUstream_st;

/**
 * A CUDA stream owned by Java (created with {@code cudaStreamCreate}, destroyed on {@link #close()}), or
 * the legacy default stream.
 *
 * <pre>{@code
 * try (CudaStream stream = CudaStream.create()) {
 *   context.enqueueV3(stream.handle());
 *   stream.synchronize();
 * }
 * }</pre>
 */
public final class CudaStream implements AutoCloseable {
  private final CUstream_st handle;
  private final boolean owned;
  private final AtomicBoolean closed = new AtomicBoolean();

  private CudaStream(CUstream_st handle, boolean owned) {
    this.handle = handle;
    this.owned = owned;
  }

  /** A new stream on the current device. */
  public static CudaStream create() {
    CUstream_st s = new CUstream_st();
    CudaException.check("cudaStreamCreate", cudaStreamCreate(s));
    return new CudaStream(s, true);
  }

  /**
   * A new non-blocking stream ({@code cudaStreamNonBlocking}): it does not synchronise with the legacy
   * default stream, so another thread's {@code cudaMemcpy} on that stream does not stall its launches.
   */
  public static CudaStream createNonBlocking() {
    CUstream_st s = new CUstream_st();
    CudaException.check("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
    return new CudaStream(s, true);
  }

  /** The legacy default stream (handle 0); {@link #close()} does nothing. */
  public static CudaStream defaultStream() {
    return new CudaStream(new CUstream_st(), false);
  }

  /** The preset's stream handle, for TensorRT's {@code enqueueV3} and CUDA calls. */
  public CUstream_st handle() {
    return handle;
  }

  /** Waits until all work queued on this stream has finished. */
  public void synchronize() {
    CudaException.check("cudaStreamSynchronize", cudaStreamSynchronize(handle));
  }

  /** Destroys the stream (when created by {@link #create()}). Idempotent. */
  @Override
  public void close() {
    if (owned && closed.compareAndSet(false, true)) {
      CudaException.check("cudaStreamDestroy", cudaStreamDestroy(handle));
    }
  }
}
