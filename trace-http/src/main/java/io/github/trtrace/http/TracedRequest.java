package io.github.trtrace.http;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.InferenceTracer.TracedCallable;
import io.github.trtrace.core.InferenceTracer.TracedRunnable;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.TraceParent;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What the trtrace filter decided for one HTTP request: its request ID (the caller's {@code X-Request-ID}
 * when valid, otherwise a generated one), the caller's rejected value (sanitized) and the W3C trace
 * context. The filter has already echoed the ID in the response and made {@link #context()} current for
 * the handler; hand work to other threads through {@link RequestContext#wrap} executors.
 *
 * <pre>{@code
 * TracedRequest r = HttpServerTracing.request(exchange);   // or ServletTracing.request(servletRequest)
 * String answer = r.call(tracer, "llama-8b", t -> engine.generate(t, prompt));  // failures recorded
 * // a request whose work continues on another thread: start it here, end it there
 * InferenceTrace t = r.startTrace(tracer, "llama-8b");      // queue time starts now; trace_id linked
 * pool.submit(() -> serve(t, body));                       // pool = RequestContext.wrap(executor)
 * }</pre>
 */
public interface TracedRequest {

  /** The request ID echoed in the response: always {@linkplain io.github.trtrace.core.context.RequestIds#isValid valid}. */
  String requestId();

  /** True when the caller sent no valid {@code X-Request-ID} and {@link #requestId()} was generated. */
  boolean requestIdGenerated();

  /** The caller's invalid {@code X-Request-ID}, sanitized and truncated; null when none was rejected. */
  @Nullable String rejectedRequestId();

  /**
   * The caller's trace context, when a valid {@code traceparent} header came in (with its
   * {@code tracestate}); the same object as {@code context().traceParent()}.
   */
  Optional<TraceParent> traceParent();

  /**
   * The caller's raw {@code tracestate} header (for a propagator that needs it), several headers joined
   * with {@code ','} in order; null when absent.
   */
  @Nullable String traceState();

  /** The request's context: its ID and, when one was rejected, {@code rejected_request_id}. */
  RequestContext context();

  /**
   * Starts a trace for this request under {@link #context()} (on whatever thread calls it). The context
   * carries the caller's {@link #traceParent()}, parsed once by the filter, so the trace is linked to the
   * caller's trace: {@code trace_id} from {@code traceparent}, {@code span_id} the caller's span (the span
   * of this request that exists in the tracing backend when nothing else exports one). With trace-otel
   * installed as a listener, its request span is a child of the caller's span and the record gets that
   * span's IDs instead: nothing else to install on the HTTP path.
   *
   * <p>The trace is not made current and must be ended by the caller, failures recorded before; prefer
   * {@link #call} / {@link #run}, which do both.
   */
  InferenceTrace startTrace(InferenceTracer tracer, String modelName);

  /**
   * Traces this request around {@code body}, as {@link InferenceTracer#call(String, TracedCallable)}
   * does (trace current for the body, a throwable recorded and rethrown unchanged, trace ended), with
   * the trace started by {@link #startTrace}: this request's ID and the caller's trace context.
   */
  default <T, E extends Throwable> T call(InferenceTracer tracer, String modelName, TracedCallable<T, E> body)
      throws E {
    return InferenceTracer.callWith(startTrace(tracer, modelName), body);
  }

  /** {@link #call} for a body without a result. */
  default <E extends Throwable> void run(InferenceTracer tracer, String modelName, TracedRunnable<E> body)
      throws E {
    InferenceTracer.callWith(startTrace(tracer, modelName), t -> {
      body.run(t);
      return null;
    });
  }
}
