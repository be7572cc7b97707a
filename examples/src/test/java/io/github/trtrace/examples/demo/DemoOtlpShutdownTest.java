package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19 item 8: a demo run shorter than the SDK's metric export interval (60 s) still delivers its
 * metrics to the OTLP endpoint, because closing the service closes the tracer and then the SDK, whose
 * close is the last export. Before, only a shutdown hook of the SDK's own closed it, and no
 * {@code /v1/metrics} request arrived.
 */
class DemoOtlpShutdownTest {

  @Test
  void aRunShorterThanTheExportIntervalDeliversItsMetricsOnClose(@TempDir Path dir) throws Exception {
    List<String> metrics = new CopyOnWriteArrayList<>();
    List<String> traces = new CopyOnWriteArrayList<>();
    HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    receiver.createContext("/v1/metrics", ex -> {
      try (ex) {
        // protobuf keeps strings as UTF-8: the metric names are readable in the body
        metrics.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.ISO_8859_1));
        ex.sendResponseHeaders(200, -1);
      }
    });
    receiver.createContext("/v1/traces", ex -> {
      try (ex) {
        traces.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.ISO_8859_1));
        ex.sendResponseHeaders(200, -1);
      }
    });
    receiver.start();
    try {
      String endpoint = "http://127.0.0.1:" + receiver.getAddress().getPort();
      DemoService.Config config = new DemoService.Config(0, 1, 4, dir.resolve("logs/inference.log"));
      long started = System.nanoTime();
      try (DemoService service = DemoService.start(config, new CpuBackend(Tokenizer.standard()), line -> {}, endpoint)) {
        URI uri = service.uri().resolve(DemoService.PATH);
        HttpResponse<String> r = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"hello there\",\"max_tokens\":4}")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(metrics).as("nothing exported before the 60 s interval").isEmpty();
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(60));
      assertThat(metrics).as("/v1/metrics requests after close").isNotEmpty();
      assertThat(String.join("", metrics)).contains("gen_ai.server.request.duration");
      assertThat(String.join("", traces)).contains("trtrace.request.id");
    } finally {
      receiver.stop(0);
    }
  }
}
