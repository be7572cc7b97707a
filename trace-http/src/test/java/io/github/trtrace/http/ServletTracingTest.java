package io.github.trtrace.http;

import io.github.trtrace.core.InferenceTracer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** The servlet filter in a real embedded Jetty 12 (ee10, Servlet 6) over loopback. */
class ServletTracingTest extends FilterContractTest {
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
        ServletTracing.reject(req, resp, tracer, "echo-model", 429);
      }
    }), "/reject");
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        ServletTracing.reject(req, resp, tracer, "echo-model", 503);
      }
    }), "/unavailable");
    server.setHandler(context);
    server.start();
    return URI.create("http://127.0.0.1:" + connector.getLocalPort());
  }

  @Override
  void stop() throws Exception {
    server.stop();
  }
}
