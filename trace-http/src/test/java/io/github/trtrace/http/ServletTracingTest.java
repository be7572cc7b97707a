package io.github.trtrace.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.context.RequestIds;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The servlet filter in a real embedded Jetty 12 (ee10, Servlet 6) over loopback. */
class ServletTracingTest extends FilterContractTest {
  private final AtomicReference<@Nullable Throwable> rejectFailure = new AtomicReference<>();
  private Server server;

  @Override
  URI start(InferenceTracer tracer) throws Exception {
    server = new Server();
    // Jetty answers 431 above 8 KiB of headers by default; allow the 10 KiB hostile ID through to the filter.
    HttpConfiguration http = new HttpConfiguration();
    http.setRequestHeaderSize(32 * 1024);
    ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addFilter(new FilterHolder(ServletTracing.filter()), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain;charset=utf-8");
        resp.getWriter().write(echo(ServletTracing.request(req), tracer));
      }
    }), "/echo");
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain;charset=utf-8");
        resp.getWriter().write(traceStates(ServletTracing.request(req)));
      }
    }), "/tracestate");
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        ServletTracing.reject(req, resp, tracer, "echo-model", 429);
      }
    }), "/reject");
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        ServletTracing.reject(req, resp, tracer, "echo-model", 503);
      }
    }), "/unavailable");
    // The handler already wrote through getWriter() (buffered, not sent) and then finds it is overloaded.
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain;charset=utf-8");
        resp.getWriter().write("partial answer");
        rejectRecordingFailure(req, resp, tracer);
      }
    }), "/writer-then-reject");
    // The same with a writer whose encoding is not ASCII-compatible: the JSON's chars take 2 bytes each.
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain;charset=UTF-16BE");
        resp.getWriter().write("partial answer");
        rejectRecordingFailure(req, resp, tracer);
      }
    }), "/utf16-writer-then-reject");
    // The handler already sent its 200 (committed) and rejects afterwards: only the record can still be written.
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain;charset=utf-8");
        resp.getWriter().write("already sent");
        resp.flushBuffer();
        rejectRecordingFailure(req, resp, tracer);
      }
    }), "/committed-then-reject");
    server.setHandler(context);
    server.start();
    return URI.create("http://127.0.0.1:" + connector.getLocalPort());
  }

  @Override
  void stop() throws Exception {
    server.stop();
  }

  /** Rejects with 429; what {@code reject} throws is kept in {@link #rejectFailure} rather than sent to Jetty. */
  private void rejectRecordingFailure(HttpServletRequest req, HttpServletResponse resp, InferenceTracer tracer) {
    try {
      ServletTracing.reject(req, resp, tracer, "echo-model", 429);
    } catch (Throwable t) { // what a host would see
      rejectFailure.set(t);
    }
  }

  @Test
  void aRejectionAfterTheHandlerUsedTheWriterIsAnsweredThroughTheWriter() throws Exception {
    HttpResponse<String> r = get("/writer-then-reject", RequestIds.HEADER, "api-writer-1");

    assertThat(rejectFailure.get()).isNull();
    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly("api-writer-1");
    assertThat(r.body()).isEqualTo("{\"error\":\"too_many_requests\",\"request_id\":\"api-writer-1\"}");
    assertThat(records()).singleElement().satisfies(rec -> {
      assertThat(rec.status()).isEqualTo(Status.REJECTED);
      assertThat(rec.attributes()).containsEntry("http_status", "429");
    });
  }

  @Test
  void aRejectionThroughAWriterOfATwoByteEncodingSendsTheWholeBody() throws Exception {
    HttpResponse<String> r = get("/utf16-writer-then-reject", RequestIds.HEADER, "api-writer-2");

    assertThat(rejectFailure.get()).isNull();
    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
        type -> assertThat(type).containsIgnoringCase("charset=UTF-16BE"));
    assertThat(r.body()).isEqualTo("{\"error\":\"too_many_requests\",\"request_id\":\"api-writer-2\"}");
  }

  @Test
  void aRejectionAfterTheResponseWasCommittedIsRecordedAndLeavesTheResponseAlone() throws Exception {
    HttpResponse<String> r = get("/committed-then-reject", RequestIds.HEADER, "api-committed-1");

    assertThat(rejectFailure.get()).isNull();
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("already sent");
    assertThat(records()).singleElement().satisfies(rec -> {
      assertThat(rec.requestId()).isEqualTo("api-committed-1");
      assertThat(rec.status()).isEqualTo(Status.REJECTED);
      assertThat(rec.attributes()).containsEntry("http_status", "429");
    });
  }
}
