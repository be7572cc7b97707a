package io.github.trtrace.http.shutdown;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.http.HttpServerTracing;
import io.github.trtrace.http.ServletTracing;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.concurrent.Executors;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;

/**
 * The service {@link GracefulShutdownTest} runs in a child JVM: an inference endpoint behind trtrace's
 * filter, on the JDK {@code HttpServer} or on Jetty, each stopping gracefully on SIGTERM from its own
 * shutdown hook as a real service does, and a tracer with the README's defaults ({@code
 * fromEnvironment()}, so the test can set {@code trtrace.shutdown.drain.ms}; shutdown hook on).
 *
 * <p>Arguments: {@code <jdk|jetty> <log file>}. Prints {@code port N} once serving. Each request is traced
 * by {@code tracer.run} (an {@code infer} stage of 20 ms), and answered 200 with its request ID only
 * after its trace ended: an answered request has offered its record.
 */
public final class GracefulServerChild {
  /** How long the servers' graceful stop waits for requests in flight. */
  static final int STOP_SECONDS = 5;

  private GracefulServerChild() {}

  public static void main(String[] args) throws Exception {
    InferenceTracer tracer = InferenceTracer.builder().fromEnvironment().jsonLinesFile(Path.of(args[1])).build();
    int port = args[0].equals("jetty") ? jetty(tracer) : jdk(tracer);
    System.out.println("port " + port);
    System.out.flush();
  }

  /** The traced work of one request; returns its request ID. */
  static String infer(InferenceTracer tracer) throws InterruptedException {
    return tracer.call("graceful-model", t -> {
      t.runStage(Stage.INFER, () -> Thread.sleep(20));
      t.outputTokens(4);
      return t.requestId();
    });
  }

  private static int jdk(InferenceTracer tracer) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(Executors.newFixedThreadPool(16));
    server.createContext("/infer", ex -> {
      try {
        respond(ex, infer(tracer));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        ex.sendResponseHeaders(500, -1);
        ex.close();
      }
    }).getFilters().add(HttpServerTracing.filter());
    server.start();
    // As a service does: on SIGTERM stop taking connections and let the exchanges in flight finish.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> server.stop(STOP_SECONDS), "http-server-stop"));
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange ex, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (ex) {
      ex.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  private static int jetty(InferenceTracer tracer) throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addFilter(new FilterHolder(ServletTracing.filter()), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        try {
          String id = infer(tracer);
          resp.setContentType("text/plain;charset=utf-8");
          resp.getWriter().write(id);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          resp.sendError(500);
        }
      }
    }), "/infer");
    // Jetty's graceful stop: GracefulHandler lets the requests in flight finish within the stop timeout,
    // and stopAtShutdown stops the server from Jetty's shutdown hook.
    GracefulHandler graceful = new GracefulHandler();
    graceful.setHandler(context);
    server.setHandler(graceful);
    server.setStopTimeout(STOP_SECONDS * 1000L);
    server.setStopAtShutdown(true);
    server.start();
    return connector.getLocalPort();
  }
}
