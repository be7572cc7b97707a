package io.github.trtrace.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The JDK {@code HttpServer} filter over loopback. */
class HttpServerTracingTest extends FilterContractTest {
  private HttpServer server;
  private ExecutorService serverThreads;
  private ExecutorService workers;

  @Override
  URI start(InferenceTracer tracer) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    serverThreads = Executors.newFixedThreadPool(8);
    workers = RequestContext.wrap(Executors.newFixedThreadPool(4));
    server.setExecutor(serverThreads);
    server.createContext("/echo", ex -> respond(ex, 200, echo(HttpServerTracing.request(ex), tracer)))
        .getFilters().add(HttpServerTracing.filter());
    server.createContext("/tracestate", ex -> respond(ex, 200, traceStates(HttpServerTracing.request(ex))))
        .getFilters().add(HttpServerTracing.filter());
    server.createContext("/reject", ex -> HttpServerTracing.reject(ex, tracer, "echo-model", 429))
        .getFilters().add(HttpServerTracing.filter());
    server.createContext("/unavailable", ex -> HttpServerTracing.reject(ex, tracer, "echo-model", 503))
        .getFilters().add(HttpServerTracing.filter());
    // The handler hands the exchange to a worker, as an inference service does.
    server.createContext("/worker", ex -> workers.submit(() -> {
      respond(ex, 200, RequestContext.current().requestId() + " " + HttpServerTracing.request(ex).requestId());
      return null;
    })).getFilters().add(HttpServerTracing.filter());
    // Without the filter: the handler asks for the request before, or only after, sending its headers.
    server.createContext("/unfiltered-early", ex -> {
      String id = HttpServerTracing.request(ex).requestId();
      respond(ex, 200, id);
    });
    server.createContext("/unfiltered-late", ex -> {
      try (ex) {
        ex.sendResponseHeaders(200, 0);
        String id = HttpServerTracing.request(ex).requestId();
        String echoed = String.valueOf(ex.getResponseHeaders().getFirst(RequestIds.HEADER));
        try (OutputStream out = ex.getResponseBody()) {
          out.write((id + " echoed=" + echoed).getBytes(StandardCharsets.UTF_8));
        }
      }
    });
    server.start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @Override
  void stop() throws InterruptedException {
    server.stop(0);
    workers.shutdownNow();
    serverThreads.shutdownNow();
    serverThreads.awaitTermination(5, TimeUnit.SECONDS);
  }

  private static void respond(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (ex) {
      ex.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Test
  void aWorkerThreadSeesTheRequestOfTheExchangeItServes() throws Exception {
    HttpResponse<String> r = get("/worker", RequestIds.HEADER, "api-worker-1");

    assertThat(r.body()).isEqualTo("api-worker-1 api-worker-1");
  }

  @Test
  void concurrentRequestsEachKeepTheirOwnId() {
    // The JDK keeps HttpExchange attributes in the HttpContext, shared by all its exchanges (JDK 17 and 25):
    // the filter must not rely on them, or concurrent requests would see each other's IDs.
    List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      String id = String.format("api-conc-%04d", i);
      inFlight.add(client.sendAsync(
          HttpRequest.newBuilder(base.resolve("/worker")).header(RequestIds.HEADER, id).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    for (int i = 0; i < inFlight.size(); i++) {
      String id = String.format("api-conc-%04d", i);
      assertThat(inFlight.get(i).join().body()).isEqualTo(id + " " + id);
    }
  }

  @Test
  void withoutTheFilterTheIdIsEchoedWhileTheResponseHeadersAreNotSentYet() throws Exception {
    HttpResponse<String> r = get("/unfiltered-early", RequestIds.HEADER, "api-early-1");

    assertThat(r.body()).isEqualTo("api-early-1");
    assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly("api-early-1");
  }

  @Test
  void withoutTheFilterAndAfterTheHeadersWereSentTheResponseHeadersAreLeftAlone() throws Exception {
    HttpResponse<String> r = get("/unfiltered-late", RequestIds.HEADER, "api-late-1");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("api-late-1 echoed=null");
    assertThat(r.headers().firstValue(RequestIds.HEADER)).isEmpty();
  }

  @Test
  void rejectingWithAStatusOtherThan429Or503IsAClearErrorAndRecordsNothing() {
    assertThatThrownBy(() -> HttpServerTracing.reject(null, tracer, "m", 400))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("429 or 503");
    assertThat(records()).isEmpty();
  }
}
