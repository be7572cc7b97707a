package io.github.trtrace.tensorrt.log;

import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.ILogger;

/**
 * The {@code ILogger} handed to TensorRT ({@code createInferBuilder(logger)}, {@code
 * createInferRuntime(logger)}); forwards every line to a {@link TrtLogPipeline}. The only class of
 * the pure-Java packages that touches JavaCPP. It never throws into TensorRT.
 *
 * <p>TensorRT keeps the first logger a process gives it and may call it for the rest of the process
 * (later builders and runtimes, even with another logger passed, log to the first). So the native peer
 * is never freed: the logger stays strongly reachable for the life of the process, and {@link #close()}
 * only stops forwarding (lines arriving afterwards are counted in {@link #linesAfterClose()}).
 *
 * <pre>{@code
 * TensorRtLogger logger = TensorRtLogger.create(pipeline);  // one per process
 * IBuilder builder = nvinfer.createInferBuilder(logger);
 * ...
 * logger.close(); // optional: stops forwarding; TensorRT may still call it, safely
 * }</pre>
 */
public final class TensorRtLogger extends ILogger implements AutoCloseable {
  // Every logger ever created, for the life of the process: TensorRT may call any of them at any time,
  // and a collected JavaCPP object would free its native peer. Identity, not Pointer.equals (which
  // compares native addresses).
  private static final Set<TensorRtLogger> LIVE =
      Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

  private final TrtLogPipeline pipeline;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong afterClose = new AtomicLong();

  private TensorRtLogger(TrtLogPipeline pipeline) {
    this.pipeline = pipeline;
  }

  /**
   * A logger forwarding to {@code pipeline}; it is kept (never freed) for the life of the process.
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
    if (closed.get()) {
      afterClose.incrementAndGet();
      return;
    }
    try {
      // JavaCPP may hand over a fresh enum-like instance: intern before use (preset samples do so).
      int code = severity == null ? TrtSeverity.ERROR.code() : severity.intern().value;
      pipeline.log(code, msg);
    } catch (Throwable t) { // NOPMD: never throw into native code
      failures.incrementAndGet();
    }
  }

  /**
   * TensorRT 11's {@code IVersionedInterface::getAPILanguage()} for this logger: C++ ({@code kCPP}), the
   * value of TensorRT's own base implementation. Answered in Java because the 11.2 preset's adapter, for this
   * virtual inherited from {@code IVersionedInterface}, calls back into itself when a subclass does not
   * override it: on the H200 (TensorRT 11.2.1, preset 11.2-1.5.14) a call through the vtable ended in a
   * {@code StackOverflowError}. On TensorRT 10 the logger has no such slot and this method is never called
   * by TensorRT (hence no {@code @Override}: the same source compiles against every supported preset).
   */
  public nvinfer.APILanguage getAPILanguage() {
    return nvinfer.APILanguage.kCPP;
  }

  /** The pipeline this logger forwards to. */
  public TrtLogPipeline pipeline() {
    return pipeline;
  }

  /** Callbacks that failed before reaching the pipeline (the pipeline counts its own). */
  public long failures() {
    return failures.get();
  }

  /** Lines TensorRT sent after {@link #close()}: counted, not forwarded. */
  public long linesAfterClose() {
    return afterClose.get();
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return closed.get();
  }

  /** Whether this logger is kept reachable (always: TensorRT may call it until the process ends). */
  boolean isRetained() {
    return LIVE.contains(this);
  }

  /**
   * Stops forwarding to the pipeline. Deliberately frees nothing: TensorRT keeps the process's first
   * logger and may call it after every builder and runtime is gone, so the native peer must outlive any
   * call, which only the end of the process guarantees. Idempotent.
   */
  @Override
  public void close() {
    closed.set(true);
  }
}
