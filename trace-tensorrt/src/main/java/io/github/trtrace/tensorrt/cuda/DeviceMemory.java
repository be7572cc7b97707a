package io.github.trtrace.tensorrt.cuda;

import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;

import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * A block of device memory owned by Java ({@code cudaMalloc}, freed on {@link #close()}): tensor
 * buffers for an engine's inputs and outputs, or the activation memory shared by execution contexts.
 *
 * <pre>{@code
 * try (DeviceMemory logits = DeviceMemory.allocate(vocab * 4L)) {
 *   context.setTensorAddress("logits", logits.pointer());
 * }
 * }</pre>
 */
public final class DeviceMemory implements AutoCloseable {
  private final Pointer pointer;
  private final long bytes;
  private final AtomicBoolean closed = new AtomicBoolean();

  private DeviceMemory(Pointer pointer, long bytes) {
    this.pointer = pointer;
    this.bytes = bytes;
  }

  /**
   * Allocates {@code bytes} (at least 1 is asked for, so a zero-size request still has an address).
   *
   * @throws CudaException when the device has no room
   */
  public static DeviceMemory allocate(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0: " + bytes);
    }
    Pointer p = new Pointer();
    CudaException.check("cudaMalloc", cudaMalloc(p, Math.max(1, bytes)));
    return new DeviceMemory(p, bytes);
  }

  /** The device address, for {@code setTensorAddress} and CUDA calls. */
  public Pointer pointer() {
    return pointer;
  }

  /** Size in bytes. */
  public long bytes() {
    return bytes;
  }

  /** Copies {@code host} (its position to its limit, in bytes) to offset {@code offset}; synchronous. */
  public void copyFrom(Pointer host, long offset, long count) {
    checkRange(offset, count);
    CudaException.check("cudaMemcpy", cudaMemcpy(new BytePointer(pointer).position(offset), host, count,
        cudaMemcpyHostToDevice));
  }

  /** Copies {@code count} bytes at {@code offset} into {@code host}; synchronous. */
  public void copyTo(Pointer host, long offset, long count) {
    checkRange(offset, count);
    CudaException.check("cudaMemcpy", cudaMemcpy(host, new BytePointer(pointer).position(offset), count,
        cudaMemcpyDeviceToHost));
  }

  /** Queues a copy of {@code count} host bytes to offset {@code offset} on {@code stream}. */
  public void copyFromAsync(Pointer host, long offset, long count, CudaStream stream) {
    checkRange(offset, count);
    CudaException.check("cudaMemcpyAsync", cudaMemcpyAsync(new BytePointer(pointer).position(offset), host, count,
        cudaMemcpyHostToDevice, stream.handle()));
  }

  /** Queues a copy of {@code count} bytes at {@code offset} into {@code host} on {@code stream}. */
  public void copyToAsync(Pointer host, long offset, long count, CudaStream stream) {
    checkRange(offset, count);
    CudaException.check("cudaMemcpyAsync", cudaMemcpyAsync(host, new BytePointer(pointer).position(offset), count,
        cudaMemcpyDeviceToHost, stream.handle()));
  }

  private void checkRange(long offset, long count) {
    if (offset < 0 || count < 0 || offset + count > bytes) {
      throw new IndexOutOfBoundsException("range [" + offset + ", " + (offset + count) + ") outside " + bytes + " bytes");
    }
  }

  /** Frees the memory. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      CudaException.check("cudaFree", cudaFree(pointer));
    }
  }
}
