package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.TraceParent;
import io.github.trtrace.http.HttpServerTracing;
import io.github.trtrace.http.ServletTracing;
import io.github.trtrace.http.TracedRequest;
import io.github.trtrace.testing.InMemorySink;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: one filter on the HTTP path. trace-http's filter alone (no OpenTelemetry extraction by the
 * host) parses {@code traceparent} once; the record and the request span get the same parent from it, and
 * the host's propagators are never asked to parse the header again.
 */
class SingleFilterTest {
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CALLER_SPAN = "00f067aa0ba902b7";
  private static final String VALID = "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01";

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final CountingPropagator propagator = new CountingPropagator();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
          .setPropagators(ContextPropagators.create(propagator))
          .build();
  private final InMemorySink sink = InMemorySink.create();
  private final InferenceTracer tracer =
      InferenceTracer.builder().sink(sink).listener(TrtraceOpenTelemetry.create(sdk)).build();

  @AfterEach
  void close() {
    tracer.close();
    sdk.close();
  }

  @Test
  void aValidTraceparentIsTheParentOfTheSpanAndTheTraceOfTheRecord() throws Exception {
    Served s = serveOverLoopback(Map.of("traceparent", VALID, "tracestate", "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7"));

    assertThat(s.span.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(s.span.getParentSpanId()).isEqualTo(CALLER_SPAN);
    assertThat(s.span.getParentSpanContext().isRemote()).isTrue();
    assertThat(s.span.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(s.span.getSpanContext().getTraceState().asMap())
        .containsExactly(Map.entry("congo", "t61rcWkgMzE"), Map.entry("rojo", "00f067aa0ba902b7"));
    assertThat(s.record.traceId()).isEqualTo(TRACE_ID);
    assertThat(s.record.spanId()).isEqualTo(s.span.getSpanId()); // the request span, child of the caller's
    assertThat(propagator.extracts).as("the host's propagators parse nothing").hasValue(0);
  }

  @Test
  void anInvalidTraceparentGivesNeitherTheSpanNorTheRecordAParent() throws Exception {
    Served s = serveOverLoopback(Map.of("traceparent", VALID.toUpperCase(), "tracestate", "a=1"));

    assertThat(s.span.getParentSpanContext().isValid()).isFalse();
    assertThat(s.span.getTraceId()).isNotEqualTo(TRACE_ID);
    assertThat(s.span.getSpanContext().getTraceState().isEmpty()).isTrue();
    assertThat(s.record.traceId()).isEqualTo(s.span.getTraceId());
    assertThat(s.record.spanId()).isEqualTo(s.span.getSpanId());
    assertThat(propagator.extracts).hasValue(0);
  }

  @Test
  void aHostileTraceparentIsDroppedAndAHostileTracestateDoesNotCostTheParent() throws Exception {
    String tooLong = VALID + "-" + "x".repeat(8_000);
    Served s = serveOverLoopback(Map.of("traceparent", tooLong));
    assertThat(s.span.getParentSpanContext().isValid()).isFalse();
    assertThat(s.record.traceId()).isEqualTo(s.span.getTraceId()).isNotEqualTo(TRACE_ID);

    spans.reset();
    StringBuilder members = new StringBuilder();
    for (int i = 0; i < 33; i++) { // one more than the specification allows: the whole list goes
      members.append(i == 0 ? "" : ",").append("k").append(i).append("=v");
    }
    Served t = serveOverLoopback(Map.of("traceparent", VALID, "tracestate", members.toString()));
    assertThat(t.span.getParentSpanId()).isEqualTo(CALLER_SPAN);
    assertThat(t.span.getSpanContext().getTraceState().isEmpty()).isTrue();
    assertThat(t.record.traceId()).isEqualTo(TRACE_ID);
    assertThat(propagator.extracts).hasValue(0);
  }

  @Test
  void theServletFilterReadsTheHeaderOnceAndHandsTheSameParentToTheRecordAndTheSpan() throws Exception {
    AtomicInteger traceparentReads = new AtomicInteger();
    HttpServletRequest request = servletRequest(Map.of("traceparent", VALID), traceparentReads);
    AtomicReference<@Nullable TraceParent> inContext = new AtomicReference<>();
    AtomicReference<@Nullable TracedRequest> decided = new AtomicReference<>();

    ServletTracing.filter().doFilter(request, servletResponse(), (req, resp) -> {
      TracedRequest r = ServletTracing.request((HttpServletRequest) req);
      decided.set(r);
      inContext.set(RequestContext.current().traceParent());
      tracer.run("llama-8b", t -> {}); // the plain tracer, inside the filter: no TracedRequest needed
    });

    assertThat(traceparentReads).as("the traceparent header is read once, by the filter").hasValue(1);
    TracedRequest r = decided.get();
    assertThat(r).isNotNull();
    assertThat(r.traceParent()).containsSame(inContext.get());
    InferenceRecord rec = record(r.requestId());
    SpanData span = onlySpan();
    assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(span.getParentSpanId()).isEqualTo(CALLER_SPAN);
    assertThat(rec.traceId()).isEqualTo(TRACE_ID);
    assertThat(rec.spanId()).isEqualTo(span.getSpanId());
    assertThat(propagator.extracts).hasValue(0);
  }

  @Test
  void aSpanTheHostMadeCurrentStaysTheParent() throws Exception {
    // Behind the host's own server span (an agent's), the request span nests under it as before.
    io.opentelemetry.api.trace.Span host = sdk.getTracer("host").spanBuilder("GET /v1").startSpan();
    HttpServletRequest request = servletRequest(Map.of("traceparent", VALID), new AtomicInteger());
    AtomicReference<String> id = new AtomicReference<>();
    try {
      Context.current().with(host).wrap(() -> {
        ServletTracing.filter().doFilter(request, servletResponse(), (req, resp) ->
            id.set(ServletTracing.request((HttpServletRequest) req).call(tracer, "llama-8b", t -> t.requestId())));
        return null;
      }).call();
    } finally {
      host.end();
    }
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join(); // the request span ends on the dispatcher's worker
    SpanData span = spans.getFinishedSpanItems().stream()
        .filter(d -> d.getName().equals("text_completion llama-8b")).findFirst().orElseThrow();
    assertThat(span.getParentSpanId()).isEqualTo(host.getSpanContext().getSpanId());
    assertThat(span.getKind()).isEqualTo(SpanKind.INTERNAL);
    assertThat(record(id.get()).spanId()).isEqualTo(span.getSpanId());
  }

  private record Served(SpanData span, InferenceRecord record) {}

  /** One request through a real JDK server with trace-http's filter only; the handler uses the plain tracer. */
  private Served serveOverLoopback(Map<String, String> headers) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/v1/completions", ex -> {
      try (ex) {
        String id = tracer.call("llama-8b", t -> t.requestId());
        byte[] body = id.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
      }
    }).getFilters().add(HttpServerTracing.filter());
    server.start();
    try {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/completions"));
      headers.forEach(b::header);
      HttpResponse<String> r = HttpClient.newHttpClient().send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      return new Served(onlySpan(), record(r.body()));
    } finally {
      server.stop(0);
    }
  }

  private SpanData onlySpan() {
    // the request span ends when the record is built, on the dispatcher's worker: flush before reading
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join();
    assertThat(spans.getFinishedSpanItems()).hasSize(1);
    return spans.getFinishedSpanItems().get(0);
  }

  private InferenceRecord record(String requestId) {
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join();
    return sink.findByRequestId(requestId).orElseThrow(() -> new AssertionError("no record " + requestId));
  }

  /** A servlet request with {@code headers}, counting how often {@code traceparent} is read. */
  private static HttpServletRequest servletRequest(Map<String, String> headers, AtomicInteger traceparentReads) {
    Map<String, Object> attributes = new HashMap<>();
    return (HttpServletRequest) Proxy.newProxyInstance(
        SingleFilterTest.class.getClassLoader(), new Class<?>[] {HttpServletRequest.class},
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "getHeader":
            case "getHeaders": {
              String name = ((String) args[0]).toLowerCase(java.util.Locale.ROOT);
              if (name.equals(TraceParent.HEADER)) {
                traceparentReads.incrementAndGet();
              }
              String v = headers.get(name);
              return method.getName().equals("getHeader") ? v
                  : Collections.enumeration(v == null ? List.of() : List.of(v));
            }
            case "getHeaderNames":
              return Collections.enumeration(headers.keySet());
            case "getAttribute":
              return attributes.get((String) args[0]);
            case "setAttribute":
              attributes.put((String) args[0], args[1]);
              return null;
            case "toString":
              return "request";
            default:
              throw new UnsupportedOperationException(method.getName());
          }
        });
  }

  private static HttpServletResponse servletResponse() {
    return (HttpServletResponse) Proxy.newProxyInstance(
        SingleFilterTest.class.getClassLoader(), new Class<?>[] {HttpServletResponse.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "isCommitted" -> false;
          case "setHeader" -> null;
          case "toString" -> "response";
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  /** The host's W3C propagator, counting every extraction it is asked for. */
  private static final class CountingPropagator implements TextMapPropagator {
    final AtomicInteger extracts = new AtomicInteger();
    private final TextMapPropagator w3c = W3CTraceContextPropagator.getInstance();

    @Override
    public Collection<String> fields() {
      return w3c.fields();
    }

    @Override
    public <C> void inject(Context context, @Nullable C carrier, TextMapSetter<C> setter) {
      w3c.inject(context, carrier, setter);
    }

    @Override
    public <C> Context extract(Context context, @Nullable C carrier, TextMapGetter<C> getter) {
      extracts.incrementAndGet();
      return w3c.extract(context, carrier, getter);
    }
  }
}
