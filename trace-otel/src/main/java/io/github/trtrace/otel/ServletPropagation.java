package io.github.trtrace.otel;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Trace-context extraction from a Jakarta Servlet request. The servlet API is an optional,
 * {@code provided} dependency of trace-otel: only this class touches it, so hosts without a servlet
 * container never load it.
 *
 * <p>Not needed behind trace-http's filter, which already gives the request span the caller's parent.
 *
 * <pre>{@code
 * protected void doPost(HttpServletRequest req, HttpServletResponse resp) {
 *   try (Scope s = ServletPropagation.extract(openTelemetry, req).makeCurrent()) {
 *     tracer.run("llama-8b", t -> handle(req, resp, t));
 *   }
 * }
 * }</pre>
 */
public final class ServletPropagation {
  private ServletPropagation() {}

  /** The caller's trace context from the request's headers, on top of the current context. */
  public static Context extract(OpenTelemetry openTelemetry, HttpServletRequest request) {
    return TraceHeaders.extract(openTelemetry, Context.current(), request, Getter.INSTANCE);
  }

  private enum Getter implements TextMapGetter<HttpServletRequest> {
    INSTANCE;

    // Deprecated (a default) in API 1.68 but abstract in older APIs a host may run: keep it.
    @SuppressWarnings("deprecation")
    @Override
    public Iterable<String> keys(HttpServletRequest carrier) {
      Enumeration<String> names = carrier.getHeaderNames();
      return names == null ? List.of() : Collections.list(names);
    }

    @Override
    public @Nullable String get(@Nullable HttpServletRequest carrier, String key) {
      if (carrier == null) {
        return null;
      }
      // Servlet containers match header names case-insensitively already.
      Enumeration<String> values = carrier.getHeaders(key);
      return values == null ? null : TraceHeaders.join(Collections.list(values));
    }
  }
}
