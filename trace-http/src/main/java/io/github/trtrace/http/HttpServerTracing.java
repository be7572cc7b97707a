package io.github.trtrace.http;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.context.TraceParent;
import io.github.trtrace.http.internal.RequestTracing;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * trtrace for the JDK's {@code com.sun.net.httpserver}: a filter that accepts or generates the request ID,
 * echoes it in {@value RequestIds#HEADER}, parses {@code traceparent} (once: the record and, with
 * trace-otel, the request span both take it from the context) and runs the handler with the
 * request's {@link RequestContext} current (SLF4J MDC {@code request_id} included).
 *
 * <pre>{@code
 * HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080), 0);
 * server.createContext("/v1/completions", exchange -> {
 *   if (!queue.offer(exchange)) {
 *     HttpServerTracing.reject(exchange, tracer, "llama-8b", 429);  // rejected record + 429 with the ID
 *     return;
 *   }
 *   ...
 * }).getFilters().add(HttpServerTracing.filter());
 * }</pre>
 */
public final class HttpServerTracing {
  // Not HttpExchange attributes: the JDK keeps them in the HttpContext, shared by every exchange of the
  // context (seen on JDK 17 and 25). Weak keys: an entry goes when its exchange is collected, however the
  // handler ends.
  private static final Map<HttpExchange, TracedRequest> REQUESTS = Collections.synchronizedMap(new WeakHashMap<>());
  // The request whose filter is running on this thread: a filter after ours may hand the handler a wrapping
  // exchange (the JDK's Filter.adaptRequest does), which REQUESTS does not know.
  private static final ThreadLocal<TracedRequest> FILTERING = new ThreadLocal<>();

  private HttpServerTracing() {}

  /** A new filter; add it to each {@code HttpContext} whose requests are traced. */
  public static Filter filter() {
    return new TracingFilter();
  }

  /**
   * The request as the filter decided it; for an exchange that a later filter wrapped, ask first on the
   * thread running the filter chain (the handler's), after which any thread gets it. Without the filter the
   * request is decided now, its ID echoed if the response headers are not sent yet, but no context is made
   * current.
   */
  public static TracedRequest request(HttpExchange exchange) {
    TracedRequest r = REQUESTS.get(exchange);
    if (r != null) {
      return r;
    }
    TracedRequest filtering = FILTERING.get();
    if (filtering != null) {
      // An exchange wrapped by a later filter, asked for on the filter's thread: the request the filter
      // decided, remembered for the wrapper too (a worker given the wrapper finds it).
      REQUESTS.put(exchange, filtering);
      return filtering;
    }
    return TracingFilter.decide(exchange);
  }

  /**
   * Answers an overloaded request: writes its {@code rejected} record (with the request ID and attribute
   * {@code http_status}), responds {@code httpStatus} with the {@value RequestIds#HEADER} header and a JSON
   * body {@code {"error":"too_many_requests","request_id":"..."}} (for {@code HEAD}, its
   * {@code Content-Length} only), and closes the exchange.
   *
   * @param httpStatus 429 or 503
   * @throws IllegalArgumentException for another status (nothing is recorded or sent then)
   * @throws IOException when the response cannot be written (the record is written anyway)
   */
  public static void reject(HttpExchange exchange, InferenceTracer tracer, String modelName, int httpStatus)
      throws IOException {
    RequestTracing.checkRejectStatus(httpStatus);
    TracedRequest r = request(exchange);
    byte[] body = RequestTracing.recordRejected(r, tracer, modelName, httpStatus);
    try (exchange) {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      if ("HEAD".equalsIgnoreCase(exchange.getRequestMethod())) {
        // The JDK sends no body for HEAD: a length passed here is refused (with a warning) and a body
        // written fails with 'stream closed'. The header says the length a GET would have.
        exchange.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
        exchange.sendResponseHeaders(httpStatus, -1);
        return;
      }
      exchange.sendResponseHeaders(httpStatus, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static final class TracingFilter extends Filter {
    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
      TracedRequest r = decide(exchange);
      TracedRequest outer = FILTERING.get();
      FILTERING.set(r);
      try (RequestContext.Scope s = r.context().open()) {
        chain.doFilter(exchange);
      } finally {
        if (outer == null) {
          FILTERING.remove();
        } else {
          FILTERING.set(outer);
        }
      }
    }

    static TracedRequest decide(HttpExchange exchange) {
      var headers = exchange.getRequestHeaders();
      List<String> ids = headers.getOrDefault(RequestIds.HEADER, List.of());
      TracedRequest r = RequestTracing.accept(ids,
          RequestTracing.traceParent(headers.getOrDefault(TraceParent.HEADER, List.of())),
          RequestTracing.traceState(headers.getOrDefault(TraceParent.TRACESTATE_HEADER, List.of())));
      REQUESTS.put(exchange, r);
      // The response code is set by sendResponseHeaders: -1 means the headers are not sent yet (always so
      // in the filter, which runs before the handler). Headers set later are dropped by the JDK.
      if (exchange.getResponseCode() == -1) {
        exchange.getResponseHeaders().set(RequestIds.HEADER, r.requestId());
      }
      return r;
    }

    @Override
    public String description() {
      return "trtrace: X-Request-ID, traceparent and the request context";
    }
  }
}
