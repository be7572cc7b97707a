package io.github.trtrace.otel;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Extracts an incoming W3C {@code traceparent}/{@code tracestate} (or whatever the host's
 * propagators read) from HTTP headers, so the request span continues the caller's trace. Header
 * names are matched case-insensitively; a header sent several times is joined with commas (as HTTP
 * allows, and as {@code tracestate} requires).
 *
 * <p>Make the returned context current around the traced request; the request span then becomes a
 * child of the caller's span:
 *
 * <pre>{@code
 * Context parent = TraceHeaders.extract(openTelemetry, exchange.getRequestHeaders()); // JDK HttpServer Headers
 * try (Scope s = parent.makeCurrent()) {
 *   tracer.run("llama-8b", t -> serve(t));
 * }
 * }</pre>
 *
 * <p><b>Behind trace-http's filter none of this is needed</b>: the filter parses {@code traceparent} once and
 * the request span takes that parent from the request's context. Use these for transports without that
 * filter, or for propagators other than W3C (B3, Jaeger) that the host configured. For servlet requests see
 * {@link ServletPropagation}; for the JDK server's exchange, {@link HttpServerPropagation}. Neither is
 * needed for plain maps.
 */
public final class TraceHeaders {
  private TraceHeaders() {}

  /** From a multi-valued header map (e.g. {@code com.sun.net.httpserver.Headers}, Netty, Vert.x adapters). */
  public static Context extract(OpenTelemetry openTelemetry, Map<String, ? extends Collection<String>> headers) {
    return extract(openTelemetry, Context.current(), headers, MultiValueGetter.INSTANCE);
  }

  /** From a single-valued header map. */
  public static Context extractSingle(OpenTelemetry openTelemetry, Map<String, String> headers) {
    return extract(openTelemetry, Context.current(), headers, SingleValueGetter.INSTANCE);
  }

  /**
   * From raw {@code traceparent} and {@code tracestate} header values; either may be null. Not for
   * trace-http's {@code TracedRequest}: its parent already reaches the request span.
   */
  public static Context extract(OpenTelemetry openTelemetry, @Nullable String traceparent, @Nullable String tracestate) {
    Map<String, String> headers = new HashMap<>(4);
    if (traceparent != null) {
      headers.put("traceparent", traceparent);
    }
    if (tracestate != null) {
      headers.put("tracestate", tracestate);
    }
    return extractSingle(openTelemetry, headers);
  }

  /** With the host's propagators and any getter, onto {@code base}; never throws (returns {@code base}). */
  static <C> Context extract(OpenTelemetry openTelemetry, Context base, @Nullable C carrier, TextMapGetter<C> getter) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    if (carrier == null) {
      return base;
    }
    try {
      return openTelemetry.getPropagators().getTextMapPropagator().extract(base, carrier, getter);
    } catch (RuntimeException e) {
      Internal.LOG.warn("trtrace: could not extract trace context from headers: {}", e.toString());
      return base;
    }
  }

  /** Joins the values of a repeated header with commas; {@code null} when there is none. */
  static @Nullable String join(@Nullable Collection<String> values) {
    if (values == null || values.isEmpty()) {
      return null;
    }
    if (values.size() == 1) {
      return values instanceof List<?> ? ((List<String>) values).get(0) : values.iterator().next();
    }
    return String.join(",", values);
  }

  /** The value of {@code key} in {@code map}, matching the key exactly first, then ignoring case. */
  static <V> @Nullable V lookup(Map<String, V> map, String key) {
    V v = map.get(key);
    if (v != null) {
      return v;
    }
    for (Map.Entry<String, V> e : map.entrySet()) {
      if (e.getKey() != null && e.getKey().equalsIgnoreCase(key)) {
        return e.getValue();
      }
    }
    return null;
  }

  private enum MultiValueGetter implements TextMapGetter<Map<String, ? extends Collection<String>>> {
    INSTANCE;

    // Deprecated (a default) in API 1.68 but abstract in older APIs a host may run: keep it.
    @SuppressWarnings("deprecation")
    @Override
    public Iterable<String> keys(Map<String, ? extends Collection<String>> carrier) {
      return carrier.keySet();
    }

    @Override
    public @Nullable String get(@Nullable Map<String, ? extends Collection<String>> carrier, String key) {
      if (carrier == null) {
        return null;
      }
      @SuppressWarnings("unchecked")
      Map<String, Collection<String>> m = (Map<String, Collection<String>>) carrier;
      return join(lookup(m, key));
    }
  }

  private enum SingleValueGetter implements TextMapGetter<Map<String, String>> {
    INSTANCE;

    // Deprecated (a default) in API 1.68 but abstract in older APIs a host may run: keep it.
    @SuppressWarnings("deprecation")
    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public @Nullable String get(@Nullable Map<String, String> carrier, String key) {
      return carrier == null ? null : lookup(carrier, key);
    }
  }
}
