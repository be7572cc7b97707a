package io.github.trtrace.otel.zipkin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.testing.InMemorySink;
import io.github.trtrace.otel.GenAiConvention;
import io.github.trtrace.otel.TrtraceOpenTelemetry;
import io.opentelemetry.exporter.zipkin.ZipkinSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real tracing backend: the Zipkin server (io.zipkin:zipkin-server:3.6.1, exec jar) runs on
 * loopback in its own JVM; trace-otel's spans reach it through the OTel SDK's Zipkin exporter and are
 * queried back over Zipkin's HTTP API by trace ID and by the request-ID tag.
 */
class ZipkinBackendTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Process zipkin;
  private static Path log;
  private static String api;

  @BeforeAll
  static void startZipkin() throws Exception {
    Path jar = Path.of(System.getProperty("zipkin.jar", "target/zipkin/zipkin-server-exec.jar"));
    assertThat(jar).as("zipkin exec jar copied by the build").exists();
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    api = "http://127.0.0.1:" + port;
    log = Files.createTempFile("zipkin", ".log");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>(List.of(
        java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(),
        "--armeria.ports[0].ip=127.0.0.1",
        "--armeria.ports[0].port=" + port,
        "--armeria.ports[0].protocols[0]=http",
        "--logging.level.root=WARN"));
    zipkin = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      if (!zipkin.isAlive()) {
        throw new AssertionError("zipkin exited:\n" + Files.readString(log));
      }
      try {
        HttpResponse<String> r = get(api + "/health");
        if (r.statusCode() == 200 && r.body().contains("UP")) {
          return;
        }
      } catch (IOException notYet) {
        // still starting
      }
      Thread.sleep(250);
    }
    throw new AssertionError("zipkin did not become healthy in 120 s:\n" + Files.readString(log));
  }

  @AfterAll
  static void stopZipkin() throws InterruptedException {
    if (zipkin != null) {
      zipkin.destroy();
      if (!zipkin.waitFor(15, TimeUnit.SECONDS)) {
        zipkin.destroyForcibly();
      }
    }
  }

  @Test
  void spansAreQueriedBackByTraceIdAndByRequestIdTag() throws Exception {
    SdkTracerProvider tracers =
        SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(
                ZipkinSpanExporter.builder().setEndpoint(api + "/api/v2/spans").build()))
            .build();
    InMemorySink sink = InMemorySink.create();
    String requestId = "req-zipkin-" + Long.toHexString(System.nanoTime());
    try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(tracers).build();
        InferenceTracer tracer =
            InferenceTracer.builder().sink(sink).listener(TrtraceOpenTelemetry.create(sdk)).build()) {
      RequestContext.with(requestId).build().call(() -> tracer.call("llama-8b", t -> {
        t.runStage(Stage.PREPROCESS, () -> {});
        t.runStage(Stage.DECODE, () -> t.runStage(Stage.INFER, t::token));
        return 1;
      }));
      tracer.flush().get(10, TimeUnit.SECONDS);
      assertThat(tracers.forceFlush().join(10, TimeUnit.SECONDS).isSuccess()).isTrue();
    }
    String traceId = sink.findByRequestId(requestId).orElseThrow().traceId();
    assertThat(traceId).hasSize(32);

    JsonNode trace = awaitJson(api + "/api/v2/trace/" + traceId, n -> n.isArray() && n.size() == 4);
    List<String> names = new ArrayList<>();
    trace.forEach(s -> names.add(s.get("name").asText()));
    assertThat(names).containsExactlyInAnyOrder("text_completion llama-8b", "preprocess", "decode", "tensorrt.infer");
    JsonNode root = find(trace, "text_completion llama-8b");
    assertThat(root.get("kind").asText()).isEqualTo("SERVER");
    assertThat(root.get("tags").get(GenAiConvention.REQUEST_ID.getKey()).asText()).isEqualTo(requestId);
    assertThat(root.get("tags").get("gen_ai.provider.name").asText()).isEqualTo("tensorrt");
    assertThat(find(trace, "tensorrt.infer").get("parentId").asText()).isEqualTo(find(trace, "decode").get("id").asText());

    String byTag =
        api + "/api/v2/traces?lookback=3600000&limit=10&annotationQuery="
            + URLEncoder.encode(GenAiConvention.REQUEST_ID.getKey() + "=" + requestId, StandardCharsets.UTF_8);
    JsonNode found = awaitJson(byTag, n -> n.isArray() && n.size() == 1);
    assertThat(found.get(0).get(0).get("traceId").asText()).isEqualTo(traceId);
  }

  private static JsonNode find(JsonNode trace, String name) {
    for (JsonNode s : trace) {
      if (s.get("name").asText().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no span " + name + " in " + trace);
  }

  interface Ready {
    boolean test(JsonNode n);
  }

  /** Zipkin stores asynchronously: poll the query until it answers as expected (bounded). */
  private static JsonNode awaitJson(String url, Ready ready) throws Exception {
    JsonNode last = null;
    for (int i = 0; i < 100; i++) {
      HttpResponse<String> r = get(url);
      if (r.statusCode() == 200) {
        last = JSON.readTree(r.body());
        if (ready.test(last)) {
          return last;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("zipkin query " + url + " last answered " + last + "\nlog:\n" + Files.readString(log));
  }

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
