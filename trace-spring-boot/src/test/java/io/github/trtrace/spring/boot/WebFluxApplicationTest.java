package io.github.trtrace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.testing.InMemorySink;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

@SpringBootTest(
    classes = WebFluxApplicationTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.main.web-application-type=reactive", "spring.reactor.context-propagation=auto"})
class WebFluxApplicationTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(App.Answers.class)
  static class App {
    @Bean
    InMemorySink memorySink() {
      return InMemorySink.create();
    }

    @RestController
    static class Answers {
      private static final Logger log = LoggerFactory.getLogger(Answers.class);
      private final InferenceTracer tracer;

      Answers(InferenceTracer tracer) {
        this.tracer = tracer;
      }

      @GetMapping(path = "/stream", produces = "text/event-stream")
      Flux<ServerSentEvent<String>> stream(ServerWebExchange exchange, @RequestParam(name = "tokens") int tokens) {
        InferenceTrace t = TrtraceWebFilter.request(exchange).startTrace(tracer, "test-model");
        Flux<ServerSentEvent<String>> chunks = Flux.range(0, tokens)
            .concatMap(i -> Mono.delay(Duration.ofMillis(
                i == 0 ? StreamingTestApp.FIRST_TOKEN_MS : StreamingTestApp.TOKEN_MS)).thenReturn(i))
            .map(i -> ServerSentEvent.builder("tok" + i).build());
        return ReactiveTracedStreams.trace(chunks, t, e -> 1);
      }

      /** The request ID in the MDC of a thread of Reactor's parallel scheduler. */
      @GetMapping("/mdc")
      Mono<String> mdc() {
        return Mono.delay(Duration.ofMillis(10)).map(x -> {
          log.info("answering on {}", Thread.currentThread().getName());
          return String.valueOf(MDC.get("request_id"));
        });
      }
    }
  }

  @Autowired Environment env;
  @Autowired InMemorySink sink;
  @Autowired InferenceTracer tracer;
  private final HttpClient http = HttpClient.newHttpClient();

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + env.getProperty("local.server.port") + path);
  }

  private InferenceRecord record(String id) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (sink.findByRequestId(id).isEmpty() && System.nanoTime() < deadline) {
      tracer.flush().get();
      Thread.sleep(20);
    }
    return sink.findByRequestId(id).orElseThrow(() -> new AssertionError("no record " + id));
  }

  @Test
  void theRequestIdReachesTheMdcOnReactorsThreadsAndIsEchoed() throws Exception {
    HttpResponse<String> r = http.send(
        HttpRequest.newBuilder(uri("/mdc")).header("X-Request-ID", "flux-mdc-1").build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.headers().firstValue("X-Request-ID")).hasValue("flux-mdc-1");
    assertThat(r.body()).isEqualTo("flux-mdc-1");
    HttpResponse<String> hostile = http.send(
        HttpRequest.newBuilder(uri("/mdc")).header("X-Request-ID", "<bad id>").build(),
        HttpResponse.BodyHandlers.ofString());
    String id = hostile.headers().firstValue("X-Request-ID").orElseThrow();
    assertThat(id).startsWith("req-");
    assertThat(hostile.body()).isEqualTo(id);
  }

  @Test
  void aStreamedFluxRecordsTtftAndTokensAndACancelledClient() throws Exception {
    HttpRequest req = HttpRequest.newBuilder(uri("/stream?tokens=5")).header("X-Request-ID", "flux-1").build();
    long start = System.nanoTime();
    HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    double clientTtft = Double.NaN;
    int chunks = 0;
    try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.startsWith("data:") && chunks++ == 0) {
          clientTtft = (System.nanoTime() - start) / 1e6;
        }
      }
    }
    assertThat(chunks).isEqualTo(5);
    InferenceRecord rec = record("flux-1");
    System.out.printf("webflux ttft_ms record %.1f, client %.1f%n", rec.ttftMs(), clientTtft);
    assertThat(rec.status()).isEqualTo(Status.SUCCESS);
    assertThat(rec.outputTokens()).isEqualTo(5);
    assertThat(rec.ttftMs()).isBetween((double) StreamingTestApp.FIRST_TOKEN_MS, clientTtft + 25);

    HttpResponse<InputStream> gone = http.send(
        HttpRequest.newBuilder(uri("/stream?tokens=500")).header("X-Request-ID", "flux-gone").build(),
        HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader in = new BufferedReader(new InputStreamReader(gone.body(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.startsWith("data:")) {
          break;
        }
      }
    }
    InferenceRecord cancelled = record("flux-gone");
    assertThat(cancelled.status()).isEqualTo(Status.CANCELLED);
    assertThat(cancelled.outputTokens()).isBetween(1, 499);
  }
}
