package com.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ZeroCodeTest {
  @Autowired Environment env;
  @Autowired MeterRegistry meters;

  @Test
  void theStarterAloneGivesRecordsEchoedIdsMetersAndHealth() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + env.getProperty("local.server.port");
    HttpResponse<String> r = http.send(
        HttpRequest.newBuilder(URI.create(base + "/hello")).header("X-Request-ID", "zero-code-1").build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.body()).isEqualTo("hello");
    assertThat(r.headers().firstValue("X-Request-ID")).hasValue("zero-code-1");

    Path log = Path.of("target/inference.log");
    long deadline = System.nanoTime() + 10_000_000_000L;
    List<String> lines = List.of();
    while (System.nanoTime() < deadline) {
      lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
      if (lines.stream().anyMatch(l -> l.contains("\"request_id\":\"zero-code-1\""))) {
        break;
      }
      Thread.sleep(20);
    }
    assertThat(lines).anySatisfy(l -> assertThat(l)
        .contains("\"request_id\":\"zero-code-1\"").contains("\"model_name\":\"hello\"").contains("\"status\":\"success\""));
    assertThat(meters.get("trtrace.records.written").functionCounter().count()).isGreaterThanOrEqualTo(1);
    assertThat(meters.get("trtrace.queue.depth").gauge()).isNotNull();

    String health = http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/health")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertThat(JsonPath.<String>read(health, "$.components.trtrace.status")).isEqualTo("UP");
  }
}
