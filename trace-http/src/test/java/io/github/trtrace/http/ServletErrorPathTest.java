package io.github.trtrace.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.context.RequestIds;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Error answers of a servlet behind the filter, in a real embedded Jetty 12 (ee10) over loopback. */
class ServletErrorPathTest {
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private Server server;
  private URI base;

  @BeforeEach
  void start() throws Exception {
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addFilter(new FilterHolder(ServletTracing.filter()), "/*",
        EnumSet.of(DispatcherType.REQUEST, DispatcherType.ERROR));
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
        throw new IllegalStateException("engine failed");
      }
    }), "/throws");
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.sendError(500, "engine failed");
      }
    }), "/send-error");
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.sendError(400, "bad prompt");
      }
    }), "/bad-request");
    server.setHandler(context);
    server.start();
    base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
  }

  private HttpResponse<String> get(String path, String id) throws Exception {
    return client.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
        .header(RequestIds.HEADER, id).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aServletThatThrowsIsAnswered500WithTheCallersId() throws Exception {
    HttpResponse<String> r = get("/throws", "api-err-1");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly("api-err-1");
  }

  @Test
  void sendError500KeepsTheCallersId() throws Exception {
    HttpResponse<String> r = get("/send-error", "api-err-2");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly("api-err-2");
  }

  @Test
  void sendError400KeepsTheCallersId() throws Exception {
    HttpResponse<String> r = get("/bad-request", "api-err-3");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly("api-err-3");
  }
}
