/**
 * HTTP integration: filters for Jakarta Servlet containers ({@link io.github.trtrace.http.ServletTracing})
 * and the JDK's {@code com.sun.net.httpserver} ({@link io.github.trtrace.http.HttpServerTracing}) that
 * accept or generate the request ID from {@code X-Request-ID}, echo it in the response, read W3C
 * {@code traceparent}, make the request context current for the handler, and record rejected requests.
 *
 * <pre>{@code
 * HttpContext c = server.createContext("/v1/completions", handler);
 * c.getFilters().add(HttpServerTracing.filter());
 * // in the handler, when the queue is full:
 * HttpServerTracing.reject(exchange, tracer, "llama-8b", 429);
 * }</pre>
 */
@NullMarked
package io.github.trtrace.http;

import org.jspecify.annotations.NullMarked;
