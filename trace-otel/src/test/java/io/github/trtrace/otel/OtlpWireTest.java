package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.testing.InMemorySink;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Over the wire: the real SDK with the OTLP/HTTP protobuf exporters posts to a receiver on loopback,
 * which decodes the requests with the OTLP protobuf classes.
 */
class OtlpWireTest {
  private final List<ExportTraceServiceRequest> traces = new CopyOnWriteArrayList<>();
  private final List<ExportMetricsServiceRequest> metrics = new CopyOnWriteArrayList<>();
  private final List<String> contentTypes = new CopyOnWriteArrayList<>();
  private HttpServer receiver;

  @BeforeEach
  void startReceiver() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext("/v1/traces", ex -> receive(ex, b -> {
      traces.add(parse(ExportTraceServiceRequest::parseFrom, b));
      return ExportTraceServiceResponse.getDefaultInstance().toByteArray();
    }));
    receiver.createContext("/v1/metrics", ex -> receive(ex, b -> {
      metrics.add(parse(ExportMetricsServiceRequest::parseFrom, b));
      return ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
    }));
    receiver.start();
  }

  @AfterEach
  void stopReceiver() {
    receiver.stop(0);
  }

  interface Parser<T> {
    T parse(byte[] bytes) throws com.google.protobuf.InvalidProtocolBufferException;
  }

  private static <T> T parse(Parser<T> p, byte[] bytes) {
    try {
      return p.parse(bytes);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  private void receive(HttpExchange ex, Function<byte[], byte[]> handler) throws IOException {
    try (ex) {
      contentTypes.add(ex.getRequestHeaders().getFirst("Content-Type"));
      InputStream in = ex.getRequestBody();
      if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
        in = new GZIPInputStream(in);
      }
      byte[] response = handler.apply(in.readAllBytes());
      ex.getResponseHeaders().add("Content-Type", "application/x-protobuf");
      ex.sendResponseHeaders(200, response.length);
      ex.getResponseBody().write(response);
    }
  }

  @Test
  void spansAttributesAndMetricsArriveOverOtlpHttpProtobuf() throws Exception {
    String base = "http://127.0.0.1:" + receiver.getAddress().getPort();
    SdkMeterProvider meters =
        SdkMeterProvider.builder()
            .registerMetricReader(
                PeriodicMetricReader.builder(
                        OtlpHttpMetricExporter.builder().setEndpoint(base + "/v1/metrics").build())
                    .setInterval(Duration.ofHours(1))
                    .build())
            .build();
    SdkTracerProvider tracers =
        SdkTracerProvider.builder()
            .addSpanProcessor(
                BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder().setEndpoint(base + "/v1/traces").build())
                    .build())
            .build();
    InMemorySink sink = InMemorySink.create();
    try (OpenTelemetrySdk sdk =
        OpenTelemetrySdk.builder().setTracerProvider(tracers).setMeterProvider(meters).build()) {
      TrtraceOpenTelemetry otel = TrtraceOpenTelemetry.builder(sdk).serverAddress("127.0.0.1", 8080).build();
      try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).listener(otel).build()) {
        RequestContext.with("req-wire-1").build().call(() -> tracer.call("llama-8b", t -> {
          t.runStage(Stage.QUEUE, () -> {});
          t.runStage(Stage.DECODE, () -> {
            t.runStage(Stage.INFER, () -> {});
            t.token();
            t.token();
          });
          t.inputTokens(7);
          t.event("tensorrt.fusion", "warning", "not fused");
          return 1;
        }));
        tracer.flush().get(10, TimeUnit.SECONDS);
      }
      assertThat(tracers.forceFlush().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      assertThat(meters.forceFlush().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
    }

    assertThat(contentTypes).contains("application/x-protobuf");
    List<Span> spans =
        traces.stream()
            .flatMap(r -> r.getResourceSpansList().stream())
            .flatMap(rs -> rs.getScopeSpansList().stream())
            .peek(ss -> assertThat(ss.getScope().getName()).isEqualTo(GenAiConvention.INSTRUMENTATION_SCOPE))
            .flatMap(ss -> ss.getSpansList().stream())
            .toList();
    Map<String, Span> byName = spans.stream().collect(Collectors.toMap(Span::getName, s -> s));
    assertThat(byName).containsOnlyKeys("text_completion llama-8b", "queue", "decode", "tensorrt.infer");
    Span root = byName.get("text_completion llama-8b");
    assertThat(root.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
    assertThat(byName.get("decode").getParentSpanId()).isEqualTo(root.getSpanId());
    assertThat(byName.get("tensorrt.infer").getParentSpanId()).isEqualTo(byName.get("decode").getSpanId());
    assertThat(root.getStartTimeUnixNano()).isLessThanOrEqualTo(byName.get("queue").getStartTimeUnixNano());
    assertThat(root.getEndTimeUnixNano()).isGreaterThanOrEqualTo(byName.get("decode").getEndTimeUnixNano());
    Map<String, AnyValue> attrs = root.getAttributesList().stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
    assertThat(attrs.get("trtrace.request.id").getStringValue()).isEqualTo("req-wire-1");
    assertThat(attrs.get("gen_ai.provider.name").getStringValue()).isEqualTo("tensorrt");
    assertThat(attrs.get("gen_ai.usage.input_tokens").getIntValue()).isEqualTo(7);
    assertThat(attrs.get("gen_ai.usage.output_tokens").getIntValue()).isEqualTo(2);
    assertThat(attrs.get("server.port").getIntValue()).isEqualTo(8080);
    assertThat(attrs.get("trtrace.time_to_first_token").hasDoubleValue()).isTrue();
    assertThat(attrs.get("gen_ai.latency.e2e").hasDoubleValue()).isTrue();
    assertThat(root.getEventsList()).extracting(Span.Event::getName).containsExactly("tensorrt.fusion");
    // the record names the same trace, so either finds the other
    var record = sink.findByRequestId("req-wire-1").orElseThrow();
    assertThat(record.traceId()).isEqualTo(HexFormat.of().formatHex(root.getTraceId().toByteArray()));
    assertThat(record.spanId()).isEqualTo(HexFormat.of().formatHex(root.getSpanId().toByteArray()));

    Map<String, Metric> metricByName =
        metrics.stream()
            .flatMap(r -> r.getResourceMetricsList().stream())
            .flatMap(rm -> rm.getScopeMetricsList().stream())
            .flatMap(sm -> sm.getMetricsList().stream())
            .collect(Collectors.toMap(Metric::getName, m -> m, (a, b) -> a));
    assertThat(metricByName)
        .containsKeys(
            "gen_ai.server.request.duration",
            "gen_ai.server.time_to_first_token",
            "gen_ai.server.time_per_output_token",
            "trtrace.server.token.usage",
            "trtrace.tensorrt.events");
    var duration = metricByName.get("gen_ai.server.request.duration").getHistogram().getDataPoints(0);
    assertThat(duration.getCount()).isEqualTo(1);
    assertThat(duration.getExplicitBoundsList()).isEqualTo(GenAiConvention.BUCKETS_REQUEST_DURATION);
    assertThat(duration.getAttributesList()).extracting(KeyValue::getKey).doesNotContain("trtrace.request.id");
    assertThat(metricByName.get("gen_ai.server.time_to_first_token").getUnit()).isEqualTo("s");
  }

  @Test
  void autoconfiguredSdkExportsToTheOtlpEndpointItIsGiven() throws Exception {
    // What OTEL_EXPORTER_OTLP_ENDPOINT=... does for a host using the SDK's autoconfiguration (given
    // here as the equivalent properties, since a test cannot set its own environment).
    String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort();
    OpenTelemetrySdk sdk =
        io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk.builder()
            .addPropertiesSupplier(() -> Map.of(
                "otel.exporter.otlp.endpoint", endpoint,
                "otel.exporter.otlp.protocol", "http/protobuf",
                "otel.service.name", "trtrace-test",
                "otel.logs.exporter", "none",
                "otel.metric.export.interval", "3600000"))
            .disableShutdownHook()
            .build()
            .getOpenTelemetrySdk();
    try (sdk;
        InferenceTracer tracer =
            InferenceTracer.builder().sink(InMemorySink.create()).listener(TrtraceOpenTelemetry.create(sdk)).build()) {
      RequestContext.with("req-auto-1").build().call(() -> tracer.call("m", t -> 1));
      assertThat(sdk.getSdkTracerProvider().forceFlush().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      assertThat(sdk.getSdkMeterProvider().forceFlush().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
    }
    var resource = traces.get(0).getResourceSpans(0).getResource();
    assertThat(resource.getAttributesList())
        .anySatisfy(kv -> {
          assertThat(kv.getKey()).isEqualTo("service.name");
          assertThat(kv.getValue().getStringValue()).isEqualTo("trtrace-test");
        });
    assertThat(traces.get(0).getResourceSpans(0).getScopeSpans(0).getSpans(0).getName()).isEqualTo("text_completion m");
    assertThat(metrics).isNotEmpty();
  }

  /**
   * Issue 19 item 8: a run shorter than the SDK's metric export interval (the default 60 s) exports its
   * metrics only when the SDK is closed; the host closes the tracer first (its last spans and metrics are
   * recorded), then the SDK, as the demo now does. Without the SDK's close nothing leaves: the demo's 45 s
   * run posted no /v1/metrics.
   */
  @Test
  void aRunShorterThanTheExportIntervalExportsItsMetricsWhenTheSdkClosesAfterTheTracer() throws Exception {
    String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort();
    OpenTelemetrySdk sdk =
        io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk.builder()
            .addPropertiesSupplier(() -> Map.of(
                "otel.exporter.otlp.endpoint", endpoint,
                "otel.exporter.otlp.protocol", "http/protobuf",
                "otel.logs.exporter", "none"))
            .disableShutdownHook()
            .build()
            .getOpenTelemetrySdk();
    InferenceTracer tracer =
        InferenceTracer.builder().sink(InMemorySink.create()).listener(TrtraceOpenTelemetry.create(sdk)).build();
    RequestContext.with("req-short-run").build().call(() -> tracer.call("m", t -> 1));
    tracer.close();
    assertThat(metrics).as("nothing before the 60 s interval").isEmpty();
    sdk.close(); // no forceFlush: the SDK's close is the run's only metric export
    assertThat(metrics).isNotEmpty();
    assertThat(metrics.stream()
            .flatMap(r -> r.getResourceMetricsList().stream())
            .flatMap(rm -> rm.getScopeMetricsList().stream())
            .flatMap(sm -> sm.getMetricsList().stream())
            .map(Metric::getName))
        .contains("gen_ai.server.request.duration");
  }
}
