package io.github.trtrace.tensorrt.internal.shim;

import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.tensorrt.nvinfer.IErrorRecorder;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * A native {@code nvinfer1::IErrorRecorder} that keeps the errors TensorRT reports (code, description,
 * time) until Java drains them. While a recorder is attached TensorRT reports errors to it and
 * <em>not</em> to the {@code ILogger}: drain it, or the errors vanish from the logs.
 *
 * <p>TensorRT counts its references ({@code incRefCount}/{@code decRefCount}); {@link #close()} frees the
 * native object only when that count is zero, otherwise it keeps it (a small leak, logged) rather than let
 * TensorRT call freed memory. Every reported error is treated as fatal for the current TensorRT call,
 * like TensorRT's own sample recorder.
 *
 * <p>Two views: TensorRT's ({@code getNbErrors}, {@code getErrorDesc}: every error since the last {@code
 * clear()}, whose description pointers stay valid until then) and Java's ({@link #drain()}: errors not
 * drained yet). A drain never touches TensorRT's view, and TensorRT's {@code clear()} never discards
 * undrained errors. Both keep at most the capacity; more are counted ({@link #droppedErrors()}, and
 * {@code hasOverflowed()} for TensorRT's view) until {@link #clear()}.
 *
 * <pre>{@code
 * ShimErrorRecorder recorder = ShimErrorRecorder.create();
 * builder.setErrorRecorder(recorder.asTensorRt());
 * IHostMemory plan = builder.buildSerializedNetwork(network, config);
 * recorder.drain().forEach(e -> log.error("{}: {}", e.codeName(), e.description()));
 * }</pre>
 */
public final class ShimErrorRecorder implements AutoCloseable {
  /** Errors kept by {@link #create()} between drains. */
  public static final int DEFAULT_CAPACITY = 256;

  private static final RateLimitedLogger LEAK_LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger(ShimErrorRecorder.class), 60_000);

  private final NativeHandle handle;
  private final int capacity;
  private final long[] stats = new long[3];
  private int @Nullable [] drainCodes;
  private long @Nullable [] drainMicros;
  private String @Nullable [] drainDescs;
  private long dropped;
  private long reported;

  private ShimErrorRecorder(long address, int capacity) {
    this.handle = new NativeHandle(address, "TensorRT error recorder shim");
    this.capacity = capacity;
  }

  /** A recorder keeping up to {@link #DEFAULT_CAPACITY} errors between drains. */
  public static ShimErrorRecorder create() {
    return create(DEFAULT_CAPACITY);
  }

  /** A recorder keeping up to {@code capacity} errors between drains; further ones set {@code hasOverflowed}. */
  public static ShimErrorRecorder create(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    }
    NativeShim.load();
    return new ShimErrorRecorder(ShimNative.recorderCreate(capacity), capacity);
  }

  /** The native object's address (an {@code nvinfer1::IErrorRecorder*}). */
  public long address() {
    return handle.get("ShimErrorRecorder");
  }

  /** This recorder as the preset's {@code IErrorRecorder}, for {@code setErrorRecorder}. Needs TensorRT. */
  public IErrorRecorder asTensorRt() {
    return new IErrorRecorder(ShimPointers.at(address()));
  }

  /** Removes and returns the errors recorded since the last drain, oldest first. */
  public synchronized List<RecordedError> drain() {
    long address = handle.get("ShimErrorRecorder");
    // Drained after every launch, almost always empty: the arrays are this recorder's, made on first
    // use and reused (under the monitor), and an empty drain allocates nothing.
    int[] codes = drainCodes;
    long[] micros = drainMicros;
    String[] descs = drainDescs;
    if (codes == null || micros == null || descs == null) {
      codes = drainCodes = new int[capacity];
      micros = drainMicros = new long[capacity];
      descs = drainDescs = new String[capacity];
    }
    int n = ShimNative.recorderDrain(address, codes, micros, descs, stats);
    dropped += stats[1];
    reported = stats[2];
    if (n == 0) {
      return List.of();
    }
    List<RecordedError> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(new RecordedError(codes[i], descs[i], micros[i]));
      descs[i] = null; // not kept past the drain
    }
    return out;
  }

  /**
   * {@code IErrorRecorder::clear()}: empties TensorRT's view (invalidating its {@code getErrorDesc}
   * pointers) so it can take {@code capacity} more errors. Call it only while no TensorRT call that uses
   * this recorder is running (for example after {@code buildSerializedNetwork} returned). Errors not
   * drained yet stay drainable.
   */
  public synchronized void clear() {
    ShimNative.recorderClear(handle.get("ShimErrorRecorder"));
  }

  /** Errors not kept because the recorder was full, counted up to the last drain. */
  public synchronized long droppedErrors() {
    return dropped;
  }

  /** Errors reported by TensorRT in total, kept or not, as of the last drain. */
  public synchronized long reportedErrors() {
    return reported;
  }

  /** TensorRT's current reference count on this recorder. */
  public synchronized int refCount() {
    return ShimNative.recorderRefCount(handle.get("ShimErrorRecorder"));
  }

  /**
   * Frees the native object when TensorRT holds no reference; otherwise leaves it allocated and logs
   * a warning (detach it with {@code setErrorRecorder(null)} or destroy the TensorRT object first). Idempotent.
   */
  @Override
  public synchronized void close() {
    if (!handle.isOpen()) {
      return;
    }
    int refs = ShimNative.recorderRefCount(handle.get("ShimErrorRecorder"));
    if (refs > 0) {
      handle.take();
      LEAK_LOG.warn("ShimErrorRecorder closed while TensorRT still holds {} reference(s): native recorder kept"
          + " allocated so TensorRT cannot call freed memory", refs);
      return;
    }
    long address = handle.take();
    if (address != 0) {
      ShimNative.recorderFree(address);
    }
  }
}
