package io.github.trtrace.core;

/**
 * A scope that restores what was current before; {@link #close()} on the thread that opened it.
 * Returned by {@link InferenceTrace#makeCurrent()} and {@link TraceListener.Handle#makeCurrent()}.
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
