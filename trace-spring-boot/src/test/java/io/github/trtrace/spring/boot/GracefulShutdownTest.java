package io.github.trtrace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.testing.InMemorySink;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What SIGTERM does to a Boot application (its shutdown hook closes the context), with requests in flight:
 * the graceful shutdown lets them finish, and every one answered leaves its record, because the tracer is closed
 * after the web server stopped (with the tracer's own JVM hook, or closed with the beans, records of the drain
 * would be refused).
 */
class GracefulShutdownTest {

  @Test
  void everyRequestAnsweredDuringTheDrainLeavesItsRecord() throws Exception {
    SpringApplication app = new SpringApplication(StreamingTestApp.class);
    ConfigurableApplicationContext ctx = app.run(
        "--server.port=0", "--server.shutdown=graceful", "--spring.lifecycle.timeout-per-shutdown-phase=20s",
        "--management.server.port=-1");
    InMemorySink sink = ctx.getBean(InMemorySink.class);
    InferenceTracer tracer = ctx.getBean(InferenceTracer.class);
    String base = "http://127.0.0.1:" + ctx.getEnvironment().getProperty("local.server.port");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    http.send(HttpRequest.newBuilder(URI.create(base + "/complete")).build(), HttpResponse.BodyHandlers.ofString());
    tracer.flush().get(); // the warm-up's record is written asynchronously: let it land before clearing
    sink.clear();
    long before = tracer.stats().started();

    // streams of 20 tokens take 150 + 19 x 20 = 530 ms: close the context while all are in flight
    List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      inFlight.add(http.sendAsync(
          HttpRequest.newBuilder(URI.create(base + "/stream?tokens=20")).header("X-Request-ID", "drain-" + i).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (tracer.stats().started() - before < 8 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(tracer.stats().started() - before).isEqualTo(8);
    ctx.close();

    int answered = 0;
    for (CompletableFuture<HttpResponse<String>> f : inFlight) {
      HttpResponse<String> r = f.get(30, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("data:tok19");
      answered++;
    }
    assertThat(answered).isEqualTo(8);
    assertThat(sink.records()).hasSize(8).allSatisfy(r -> assertThat(r.outputTokens()).isEqualTo(20));
    assertThat(tracer.stats().dispatcher().droppedClosed()).isZero();
  }
}
