package io.github.trtrace.tensorrt.log;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.tensorrt.nvinfer.ILogger;

/**
 * The {@code ILogger} handed to TensorRT ({@code createInferBuilder(logger)}, {@code
 * createInferRuntime(logger)}); forwards every line to a {@link TrtLogPipeline}. The only class of
 * the pure-Java packages that touches JavaCPP. It keeps itself strongly reachable until {@link
 * #close()}, so the native side never calls into a collected object, and never throws into TensorRT.
 *
 * <pre>{@code
 * TensorRtLogger logger = TensorRtLogger.create(pipeline);
 * IBuilder builder = nvinfer.createInferBuilder(logger);
 * ...
 * builder.close();
 * logger.close(); // after every TensorRT object using it is destroyed
 * }</pre>
 */
public final class TensorRtLogger extends ILogger implements AutoCloseable {
  // Identity, not Pointer.equals (which compares native addresses).
  private static final Set<TensorRtLogger> LIVE =
      Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

  private final TrtLogPipeline pipeline;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong failures = new AtomicLong();

  private TensorRtLogger(TrtLogPipeline pipeline) {
    this.pipeline = pipeline;
  }

  /**
   * A logger forwarding to {@code pipeline}, registered until {@link #close()}.
   *
   * <p>Create ONE per process and pass it to every builder and runtime: TensorRT 10 keeps the first
   * logger a process hands to {@code createInferBuilder}/{@code createInferRuntime} and ignores later
   * ones (seen on the H200: "The logger passed into createInferBuilder differs from one already
   * registered ... the current new logger is ignored").
   */
  public static TensorRtLogger create(TrtLogPipeline pipeline) {
    TensorRtLogger logger = new TensorRtLogger(Objects.requireNonNull(pipeline, "pipeline"));
    LIVE.add(logger);
    return logger;
  }

  @Override
  public void log(ILogger.Severity severity, String msg) {
    try {
      // JavaCPP may hand over a fresh enum-like instance: intern before use (preset samples do so).
      int code = severity == null ? TrtSeverity.ERROR.code() : severity.intern().value;
      pipeline.log(code, msg);
    } catch (Throwable t) { // NOPMD: never throw into native code
      failures.incrementAndGet();
    }
  }

  /** The pipeline this logger forwards to. */
  public TrtLogPipeline pipeline() {
    return pipeline;
  }

  /** Callbacks that failed before reaching the pipeline (the pipeline counts its own). */
  public long failures() {
    return failures.get();
  }

  /**
   * Unregisters the logger so it can be collected, then releases the native peer. Call it only after
   * every builder/runtime created with it is destroyed. Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      LIVE.remove(this);
      super.close();
    }
  }
}
