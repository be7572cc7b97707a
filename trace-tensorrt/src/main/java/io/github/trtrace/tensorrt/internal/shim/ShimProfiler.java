package io.github.trtrace.tensorrt.internal.shim;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.tensorrt.nvinfer.IProfiler;

/**
 * A native {@code nvinfer1::IProfiler} that buffers {@code reportLayerTime} calls (layer names interned,
 * bounded buffer, overflow counted) so that Java drains them in one JNI call instead of one upcall per layer.
 *
 * <p>Keep this object alive, and do not {@link #close()} it, for as long as TensorRT may call it: that is,
 * as long as the execution context it is set on lives (or until {@code setProfiler(null)}).
 *
 * <p>TensorRT 10 and 11 lay out {@code IProfiler} differently (11 made it an {@code IVersionedInterface});
 * {@link #create()} picks the layout of the TensorRT loaded in this process ({@link TensorRtAbi}).
 *
 * <pre>{@code
 * ShimProfiler profiler = ShimProfiler.create();
 * context.setProfiler(profiler.asTensorRt());
 * context.enqueueV3(stream); cudaStreamSynchronize(stream);
 * profiler.drain((layer, ms) -> System.out.println(layer + " " + ms));
 * }</pre>
 */
public final class ShimProfiler implements AutoCloseable {
  /** Samples buffered natively by {@link #create()}. */
  public static final int DEFAULT_CAPACITY = 65_536;

  private static final int BATCH = 4096;

  private final NativeHandle handle;
  private final TensorRtAbi abi;
  private final List<String> names = new ArrayList<>();
  private final int[] ids = new int[BATCH];
  private final float[] ms = new float[BATCH];
  private final long[] counts = new long[3];
  private long dropped;

  private ShimProfiler(long address, TensorRtAbi abi) {
    this.handle = new NativeHandle(address, "TensorRT profiler shim");
    this.abi = abi;
  }

  /**
   * A profiler buffering up to {@link #DEFAULT_CAPACITY} samples between drains, laid out for the loaded
   * TensorRT.
   *
   * @throws IllegalStateException when TensorRT cannot be loaded (its version decides the layout)
   */
  public static ShimProfiler create() {
    return create(DEFAULT_CAPACITY);
  }

  /**
   * A profiler buffering up to {@code capacity} samples between drains (later samples are counted and
   * dropped), laid out for the loaded TensorRT ({@link TensorRtAbi#ofLoadedTensorRt()}).
   */
  public static ShimProfiler create(int capacity) {
    checkCapacity(capacity);
    return create(capacity, TensorRtAbi.ofLoadedTensorRt());
  }

  /** A profiler laid out for TensorRT generation {@code abi}; hand it only to that TensorRT. */
  public static ShimProfiler create(int capacity, TensorRtAbi abi) {
    checkCapacity(capacity);
    java.util.Objects.requireNonNull(abi, "abi");
    NativeShim.load();
    return new ShimProfiler(ShimNative.profilerCreate(capacity, abi.major()), abi);
  }

  private static void checkCapacity(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    }
  }

  /** The TensorRT generation this profiler's vtable is laid out for. */
  public TensorRtAbi abi() {
    return abi;
  }

  /** The native object's address (an {@code nvinfer1::IProfiler*} of generation {@link #abi()}). */
  public long address() {
    return handle.get("ShimProfiler");
  }

  /** This profiler as the preset's {@code IProfiler}, for {@code IExecutionContext.setProfiler}. Needs TensorRT. */
  public IProfiler asTensorRt() {
    return new IProfiler(ShimPointers.at(address()));
  }

  /**
   * Hands every buffered sample to {@code consumer}, in arrival order, and empties the buffer.
   *
   * @return the number of samples handed over
   */
  public synchronized int drain(LayerSampleConsumer consumer) {
    long address = handle.get("ShimProfiler");
    int total = 0;
    while (true) {
      String[] fresh = ShimNative.profilerDrain(address, abi.major(), names.size(), ids, ms, counts);
      for (String name : fresh) {
        names.add(name);
      }
      dropped += counts[1];
      int n = (int) counts[0];
      for (int i = 0; i < n; i++) {
        consumer.accept(names.get(ids[i]), ms[i]);
      }
      total += n;
      if (counts[2] == 0 || n == 0) {
        return total;
      }
    }
  }

  /** Samples dropped because the buffer was full (or the name table was), counted up to the last drain. */
  public synchronized long droppedSamples() {
    return dropped;
  }

  /** Distinct layer names seen up to the last drain. */
  public synchronized int layerNameCount() {
    return names.size();
  }

  /** Frees the native object. Only call once TensorRT no longer references it. Idempotent. */
  @Override
  public synchronized void close() {
    long address = handle.take();
    if (address != 0) {
      ShimNative.profilerFree(address, abi.major());
    }
  }
}
