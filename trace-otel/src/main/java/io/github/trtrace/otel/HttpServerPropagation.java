package io.github.trtrace.otel;

import com.sun.net.httpserver.HttpExchange;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;

/**
 * Trace-context extraction for the JDK's built-in {@code com.sun.net.httpserver} (module {@code
 * jdk.httpserver}). Kept in its own class so nothing else in trace-otel needs that module.
 *
 * <p>Not needed behind trace-http's filter, which already gives the request span the caller's parent.
 *
 * <pre>{@code
 * server.createContext("/v1/completions", exchange -> {
 *   try (Scope s = HttpServerPropagation.extract(openTelemetry, exchange).makeCurrent()) {
 *     tracer.run("llama-8b", t -> handle(exchange, t));
 *   }
 * });
 * }</pre>
 */
public final class HttpServerPropagation {
  private HttpServerPropagation() {}

  /** The caller's trace context from the exchange's request headers, on top of the current context. */
  public static Context extract(OpenTelemetry openTelemetry, HttpExchange exchange) {
    return TraceHeaders.extract(openTelemetry, exchange.getRequestHeaders());
  }
}
