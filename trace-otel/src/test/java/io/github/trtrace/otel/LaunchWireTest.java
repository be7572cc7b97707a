package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
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
 * Shared launches over the real OTLP wire (as {@code OtlpWireTest}): a launch span per launch, linked
 * to each member's request span with its GPU share; the request spans carry the batching summary; the
 * launch metrics arrive, labelled by phase and never by request ID.
 */
class LaunchWireTest {
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
  void aLaunchSpanIsLinkedToEveryMembersRequestSpanOverOtlp() throws Exception {
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
      TrtraceOpenTelemetry otel = TrtraceOpenTelemetry.builder(sdk).build();
      try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).listener(otel).build()) {
        InferenceTrace a = tracer.start("llama-8b", "req-wire-a");
        InferenceTrace b = tracer.start("llama-8b", "req-wire-b");
        try (SharedLaunch l = tracer.launch("sha256:wire")) {
          l.prefill(a, 300).decode(b).gpuMs(4.0);
        }
        try (SharedLaunch l = tracer.launch("sha256:wire")) {
          l.decode(a).decode(b).gpuMs(1.0);
        }
        a.close();
        b.close();
        tracer.flush().get(10, TimeUnit.SECONDS);
      }
      assertThat(tracers.forceFlush().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
      assertThat(meters.forceFlush().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
    }
    List<Span> spans =
        traces.stream()
            .flatMap(r -> r.getResourceSpansList().stream())
            .flatMap(rs -> rs.getScopeSpansList().stream())
            .flatMap(ss -> ss.getSpansList().stream())
            .toList();
    Map<String, Span> requests = spans.stream().filter(s -> s.getName().equals("text_completion llama-8b"))
        .collect(Collectors.toMap(s -> attrs(s).get("trtrace.request.id").getStringValue(), s -> s));
    List<Span> launches = spans.stream().filter(s -> s.getName().equals(GenAiConvention.SPAN_LAUNCH)).toList();
    assertThat(requests).containsOnlyKeys("req-wire-a", "req-wire-b");
    assertThat(launches).hasSize(2);
    Span first = launches.stream().filter(s -> attrs(s).get("trtrace.launch.phase").getStringValue().equals("mixed"))
        .findFirst().orElseThrow();
    Map<String, AnyValue> la = attrs(first);
    assertThat(la.get("trtrace.launch.batch_size").getIntValue()).isEqualTo(2);
    assertThat(la.get("trtrace.launch.prefill_tokens").getIntValue()).isEqualTo(300);
    assertThat(la.get("trtrace.launch.gpu.duration").getDoubleValue()).isEqualTo(0.004);
    assertThat(la.get("trtrace.gpu.share_method").getStringValue()).isEqualTo("tokens");
    assertThat(first.getParentSpanId().isEmpty()).isTrue();
    assertThat(first.getLinksList()).hasSize(2);
    double shares = 0;
    for (Span.Link link : first.getLinksList()) {
      Map<String, AnyValue> linkAttrs = link.getAttributesList().stream()
          .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
      Span member = requests.get(linkAttrs.get("trtrace.request.id").getStringValue());
      assertThat(link.getTraceId()).isEqualTo(member.getTraceId());
      assertThat(link.getSpanId()).isEqualTo(member.getSpanId());
      shares += linkAttrs.get("trtrace.gpu.share").getDoubleValue();
    }
    assertThat(shares).isCloseTo(0.004, org.assertj.core.data.Offset.offset(1e-12));
    Map<String, AnyValue> ra = attrs(requests.get("req-wire-b"));
    assertThat(ra.get("trtrace.launch.count").getIntValue()).isEqualTo(2);
    assertThat(ra.get("trtrace.batch_size.max").getIntValue()).isEqualTo(2);
    assertThat(ra.get("trtrace.gpu.share_method").getStringValue()).isEqualTo("tokens");
    assertThat(ra.get("trtrace.neighbour_prefill.launches").getIntValue()).isEqualTo(1);
    assertThat(ra.get("trtrace.slowed_by").getArrayValue().getValues(0).getStringValue()).isEqualTo("req-wire-a:300");

    Map<String, Metric> metricByName =
        metrics.stream()
            .flatMap(r -> r.getResourceMetricsList().stream())
            .flatMap(rm -> rm.getScopeMetricsList().stream())
            .flatMap(sm -> sm.getMetricsList().stream())
            .collect(Collectors.toMap(Metric::getName, m -> m, (x, y) -> x));
    assertThat(metricByName).containsKeys("trtrace.launch.batch_size", "trtrace.launch.duration");
    var batchSizes = metricByName.get("trtrace.launch.batch_size").getHistogram().getDataPointsList();
    assertThat(batchSizes.stream().mapToLong(p -> p.getCount()).sum()).isEqualTo(2);
    assertThat(batchSizes.stream().mapToDouble(p -> p.getSum()).sum()).isEqualTo(4.0);
    for (var p : batchSizes) {
      assertThat(p.getAttributesList()).extracting(KeyValue::getKey).containsExactly("trtrace.launch.phase");
    }
    assertThat(metricByName.get("trtrace.launch.duration").getUnit()).isEqualTo("s");
  }

  private static Map<String, AnyValue> attrs(Span s) {
    return s.getAttributesList().stream().collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
  }
}
