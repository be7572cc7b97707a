package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.testing.InMemorySink;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.trace.data.SpanData;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PropagationTest {
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT = "00-" + TRACE_ID + "-00f067aa0ba902b7-01";
  private static final OpenTelemetry W3C =
      OpenTelemetry.propagating(ContextPropagators.create(W3CTraceContextPropagator.getInstance()));

  private static SpanContext spanOf(Context c) {
    return Span.fromContext(c).getSpanContext();
  }

  @Test
  void singleValueMapsMatchHeaderNamesIgnoringCase() {
    SpanContext sc = spanOf(TraceHeaders.extractSingle(W3C, Map.of("TRACEPARENT", PARENT, "TraceState", "a=1")));
    assertThat(sc.isRemote()).isTrue();
    assertThat(sc.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(sc.getSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(sc.isSampled()).isTrue();
    assertThat(sc.getTraceState().get("a")).isEqualTo("1");
  }

  @Test
  void rawHeaderValuesAsAnHttpFilterKeepsThem() {
    SpanContext sc = spanOf(TraceHeaders.extract(W3C, PARENT, "k=v"));
    assertThat(sc.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(sc.getTraceState().get("k")).isEqualTo("v");
    assertThat(spanOf(TraceHeaders.extract(W3C, (String) null, null)).isValid()).isFalse();
  }

  @Test
  void repeatedTracestateHeadersAreJoined() {
    Map<String, List<String>> headers = new TreeMap<>();
    headers.put("traceparent", List.of(PARENT));
    headers.put("tracestate", List.of("a=1", "b=2"));
    SpanContext sc = spanOf(TraceHeaders.extract(W3C, headers));
    assertThat(sc.getTraceState().get("a")).isEqualTo("1");
    assertThat(sc.getTraceState().get("b")).isEqualTo("2");
  }

  @Test
  void malformedOrMissingTraceparentLeavesTheCurrentContext() {
    assertThat(spanOf(TraceHeaders.extractSingle(W3C, Map.of("traceparent", "00-zz-yy-01"))).isValid()).isFalse();
    assertThat(spanOf(TraceHeaders.extractSingle(W3C, Map.of())).isValid()).isFalse();
    assertThat(TraceHeaders.extract(W3C, Context.root(), null, null)).isSameAs(Context.root());
  }

  @Test
  void jdkHttpServerRequestOverLoopbackContinuesTheCallersTrace() throws Exception {
    try (OtelFixture fx = new OtelFixture()) {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/v1/completions", ex -> {
        try (ex; Scope s = HttpServerPropagation.extract(fx.sdk, ex).makeCurrent()) {
          String id = fx.tracer.call("llama-8b", t -> t.requestId());
          byte[] body = id.getBytes(java.nio.charset.StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
        }
      });
      server.start();
      try {
        HttpResponse<String> r =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/completions"))
                        .header("traceparent", PARENT)
                        .POST(HttpRequest.BodyPublishers.ofString("hi"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        SpanData root = fx.span("text_completion llama-8b");
        assertThat(root.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(root.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
        assertThat(fx.record(r.body()).traceId()).isEqualTo(TRACE_ID);
      } finally {
        server.stop(0);
      }
    }
  }

  @Test
  void servletRequestHeadersAreRead() {
    Map<String, List<String>> headers = Map.of("traceparent", List.of(PARENT), "tracestate", List.of("x=9"));
    HttpServletRequest request =
        (HttpServletRequest)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {HttpServletRequest.class},
                (proxy, method, args) -> {
                  switch (method.getName()) {
                    case "getHeaders":
                      return Collections.enumeration(headers.getOrDefault(((String) args[0]).toLowerCase(), List.of()));
                    case "getHeaderNames":
                      return Collections.enumeration(headers.keySet());
                    default:
                      throw new UnsupportedOperationException(method.getName());
                  }
                });
    SpanContext sc = spanOf(ServletPropagation.extract(W3C, request));
    assertThat(sc.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(sc.getTraceState().get("x")).isEqualTo("9");
  }

  @Test
  void withoutAnSdkTheHostsNoopStillLinksAnIncomingTraceToTheRecord() throws Exception {
    // OpenTelemetry.propagating: propagation only, no SDK. The span is the propagated parent itself.
    InMemorySink sink = InMemorySink.create();
    try (InferenceTracer tracer =
        InferenceTracer.builder().sink(sink).listener(TrtraceOpenTelemetry.create(W3C)).build()) {
      try (Scope s = TraceHeaders.extractSingle(W3C, Map.of("traceparent", PARENT)).makeCurrent()) {
        tracer.call("m", t -> 1);
      }
      tracer.flush().get(10, TimeUnit.SECONDS);
      assertThat(sink.records()).singleElement().satisfies(r -> assertThat(r.traceId()).isEqualTo(TRACE_ID));
    }
  }
}
