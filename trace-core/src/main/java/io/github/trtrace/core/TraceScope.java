package io.github.trtrace.core;

/**
 * A scope that makes a trace current on one thread and restores what was current before. Returned by
 * {@link InferenceTrace#makeCurrent()} and {@link TraceListener.Handle#makeCurrent()}.
 *
 * <p>Thread rule, the same as {@link io.github.trtrace.core.context.RequestContext.Scope}'s: close it
 * on the thread that opened it, innermost scope first (try-with-resources does both). (The other
 * closeable of a trace, {@link InferenceTrace.StageTimer}, is not a scope: it may be closed on any
 * thread.)
 *
 * <p>Naming rule across trtrace: a type called {@code Scope} ({@code TraceScope}, {@code RequestContext.Scope})
 * makes something current and is closed on the thread that opened it; a closeable that makes nothing
 * current is named for what it does ({@link InferenceTrace.StageTimer}, trace-tensorrt's {@code
 * TrtLogPipeline.Capture}) and may be closed on any thread.
 *
 * <pre>{@code
 * worker.submit(() -> {
 *   try (TraceScope scope = trace.makeCurrent()) {   // request_id in RequestContext and the MDC here
 *     log.info("running on {}", Thread.currentThread().getName());
 *   }
 * });
 * }</pre>
 */
@FunctionalInterface
public interface TraceScope extends AutoCloseable {
  /** A scope that makes nothing current and restores nothing. */
  TraceScope NOOP = () -> {};

  /** Restores what was current before this scope was opened. Idempotent; never throws. */
  @Override
  void close();
}
