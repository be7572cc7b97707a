package io.github.trtrace.tensorrt.internal.shim;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.tensorrt.nvinfer.IProgressMonitor;

/**
 * A native {@code nvinfer1::IProgressMonitor} that records the build's phase tree (start, step, finish)
 * for Java to drain, and lets Java cancel the build: after {@link #cancel()}, {@code stepComplete}
 * returns false and TensorRT abandons the build.
 *
 * <p>Keep it alive, and do not {@link #close()} it, until the build using the builder config returns.
 *
 * <pre>{@code
 * ShimProgressMonitor monitor = ShimProgressMonitor.create();
 * config.setProgressMonitor(monitor.asTensorRt());
 * ProgressBar bar = ProgressBar.create(30);
 * // on a timer while buildSerializedNetwork runs on another thread:
 * monitor.drain().forEach(bar::accept); System.err.print("\r" + bar.render());
 * }</pre>
 */
public final class ShimProgressMonitor implements AutoCloseable {
  /** Events buffered by {@link #create()} between drains. */
  public static final int DEFAULT_CAPACITY = 16_384;

  private static final int BATCH = 1024;
  private static final ProgressEvent.Type[] TYPES = ProgressEvent.Type.values();

  private final NativeHandle handle;
  private final int[] types = new int[BATCH];
  private final int[] values = new int[BATCH];
  private final long[] nanos = new long[BATCH];
  private final String[] phases = new String[BATCH];
  private final String[] parents = new String[BATCH];
  private final long[] stats = new long[3];
  private long dropped;
  private volatile boolean cancelled;

  private ShimProgressMonitor(long address) {
    this.handle = new NativeHandle(address, "TensorRT progress monitor shim");
  }

  /** A monitor buffering up to {@link #DEFAULT_CAPACITY} events between drains. */
  public static ShimProgressMonitor create() {
    return create(DEFAULT_CAPACITY);
  }

  /** A monitor buffering up to {@code capacity} events between drains; later ones are counted and dropped. */
  public static ShimProgressMonitor create(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    }
    NativeShim.load();
    return new ShimProgressMonitor(ShimNative.monitorCreate(capacity));
  }

  /** The native object's address (an {@code nvinfer1::IProgressMonitor*}). */
  public long address() {
    return handle.get("ShimProgressMonitor");
  }

  /** This monitor as the preset's {@code IProgressMonitor}, for {@code IBuilderConfig.setProgressMonitor}. */
  public IProgressMonitor asTensorRt() {
    return new IProgressMonitor(ShimPointers.at(address()));
  }

  /** Removes and returns the events recorded since the last drain, in call order. */
  public synchronized List<ProgressEvent> drain() {
    long address = handle.get("ShimProgressMonitor");
    List<ProgressEvent> out = new ArrayList<>();
    while (true) {
      int n = ShimNative.monitorDrain(address, types, values, nanos, phases, parents, stats);
      dropped += stats[1];
      for (int i = 0; i < n; i++) {
        out.add(new ProgressEvent(TYPES[types[i]], phases[i], parents[i], values[i], nanos[i]));
      }
      if (n < BATCH) {
        return out;
      }
    }
  }

  /** Asks TensorRT to abandon the build: every later {@code stepComplete} returns false. */
  public synchronized void cancel() {
    cancelled = true;
    ShimNative.monitorSetCancelled(handle.get("ShimProgressMonitor"), true);
  }

  /** Whether {@link #cancel()} was called. */
  public boolean isCancelled() {
    return cancelled;
  }

  /** Events dropped because the buffer was full, counted up to the last drain. */
  public synchronized long droppedEvents() {
    return dropped;
  }

  /** Frees the native object. Only call once no build uses it. Idempotent. */
  @Override
  public synchronized void close() {
    long address = handle.take();
    if (address != 0) {
      ShimNative.monitorFree(address);
    }
  }
}
