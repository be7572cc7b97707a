package io.github.trtrace.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.testing.InMemorySink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A filter after trtrace's that hands the handler a wrapping exchange (as the JDK's own
 * {@code Filter.adaptRequest}, Java 18+, does): the handler's {@link HttpServerTracing#request} must still
 * be the request the filter decided, echoed and made current, not a second one.
 */
class HttpServerWrappedExchangeTest {
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private InMemorySink sink;
  private InferenceTracer tracer;
  private HttpServer server;
  private URI base;

  @BeforeEach
  void start() throws Exception {
    sink = InMemorySink.create();
    tracer = InferenceTracer.builder().sink(sink).build();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    HttpContext context = server.createContext("/wrapped", ex -> {
      TracedRequest r = HttpServerTracing.request(ex);
      r.run(tracer, "wrapped-model", t -> t.outputTokens(1));
      byte[] body = (RequestContext.current().requestId() + " " + r.requestId()).getBytes(StandardCharsets.UTF_8);
      try (ex) {
        ex.sendResponseHeaders(200, body.length);
        try (OutputStream out = ex.getResponseBody()) {
          out.write(body);
        }
      }
    });
    context.getFilters().add(HttpServerTracing.filter());
    context.getFilters().add(new Filter() {
      @Override
      public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        chain.doFilter(new Wrapping(exchange));
      }

      @Override
      public String description() {
        return "wraps the exchange";
      }
    });
    server.start();
    base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @AfterEach
  void stop() {
    server.stop(0);
    tracer.close();
  }

  @Test
  void theHandlerOfAWrappedExchangeGetsTheIdTheFilterEchoedAndMadeCurrent() throws Exception {
    HttpResponse<String> r = client.send(
        HttpRequest.newBuilder(base.resolve("/wrapped")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());

    String echoed = r.headers().firstValue(RequestIds.HEADER).orElseThrow();
    assertThat(r.body()).isEqualTo(echoed + " " + echoed);
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join();
    assertThat(sink.records()).singleElement().satisfies(rec -> assertThat(rec.requestId()).isEqualTo(echoed));
  }

  /** Delegates everything, as a filter's wrapper does. */
  private static final class Wrapping extends HttpExchange {
    private final HttpExchange d;

    Wrapping(HttpExchange d) {
      this.d = d;
    }

    @Override public Headers getRequestHeaders() { return d.getRequestHeaders(); }
    @Override public Headers getResponseHeaders() { return d.getResponseHeaders(); }
    @Override public URI getRequestURI() { return d.getRequestURI(); }
    @Override public String getRequestMethod() { return d.getRequestMethod(); }
    @Override public HttpContext getHttpContext() { return d.getHttpContext(); }
    @Override public void close() { d.close(); }
    @Override public InputStream getRequestBody() { return d.getRequestBody(); }
    @Override public OutputStream getResponseBody() { return d.getResponseBody(); }
    @Override public void sendResponseHeaders(int code, long length) throws IOException { d.sendResponseHeaders(code, length); }
    @Override public InetSocketAddress getRemoteAddress() { return d.getRemoteAddress(); }
    @Override public int getResponseCode() { return d.getResponseCode(); }
    @Override public InetSocketAddress getLocalAddress() { return d.getLocalAddress(); }
    @Override public String getProtocol() { return d.getProtocol(); }
    @Override public Object getAttribute(String name) { return d.getAttribute(name); }
    @Override public void setAttribute(String name, Object value) { d.setAttribute(name, value); }
    @Override public void setStreams(InputStream i, OutputStream o) { d.setStreams(i, o); }
    @Override public HttpPrincipal getPrincipal() { return d.getPrincipal(); }
  }
}
