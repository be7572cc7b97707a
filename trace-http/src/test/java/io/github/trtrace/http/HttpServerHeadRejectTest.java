package io.github.trtrace.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.testing.InMemorySink;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A HEAD request rejected with {@link HttpServerTracing#reject}: the JDK refuses a body (and a content
 * length passed to {@code sendResponseHeaders}) on HEAD, so the body must not be written.
 */
class HttpServerHeadRejectTest {
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final CompletableFuture<Optional<Throwable>> rejectOutcome = new CompletableFuture<>();
  private InMemorySink sink;
  private InferenceTracer tracer;
  private HttpServer server;
  private URI base;

  @BeforeEach
  void start() throws Exception {
    sink = InMemorySink.create();
    tracer = InferenceTracer.builder().sink(sink).build();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    server.createContext("/reject", ex -> {
      try {
        HttpServerTracing.reject(ex, tracer, "head-model", 429);
        rejectOutcome.complete(Optional.empty());
      } catch (Throwable e) {
        rejectOutcome.complete(Optional.of(e));
        throw e;
      }
    }).getFilters().add(HttpServerTracing.filter());
    server.start();
    base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @AfterEach
  void stop() {
    server.stop(0);
    tracer.close();
  }

  @Test
  void aRejectedHeadRequestGetsTheStatusAndIdWithoutAnErrorInTheHandler() throws Exception {
    HttpResponse<String> r = client.send(
        HttpRequest.newBuilder(base.resolve("/reject")).method("HEAD", HttpRequest.BodyPublishers.noBody())
            .header(RequestIds.HEADER, "api-head-1").timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(rejectOutcome.get(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly("api-head-1");
    assertThat(r.body()).isEmpty();
    assertThat(r.headers().firstValue("Content-Length"))
        .hasValue(Integer.toString("{\"error\":\"too_many_requests\",\"request_id\":\"api-head-1\"}".length()));
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join();
    assertThat(sink.records()).singleElement().satisfies(rec -> {
      assertThat(rec.requestId()).isEqualTo("api-head-1");
      assertThat(rec.status()).isEqualTo(Status.REJECTED);
    });
  }
}
