package io.github.trtrace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real SIGTERM to a Boot application under load: a child JVM runs {@link StreamingTestApp} with
 * {@code server.shutdown=graceful} and records in a JSON Lines file; clients keep streaming answers (20 tokens,
 * about 530 ms each) when the signal arrives. Boot's shutdown hook closes the context: the web server stops
 * accepting, the streams in flight are answered, and only then (a later SmartLifecycle phase) is the tracer
 * closed, so every answer a client received has its record on disk. With the tracer closed in the JVM's own hook
 * or with the beans, the records of the streams answered during the drain would be refused.
 */
class GracefulShutdownTest {
  private static final Pattern REQUEST_ID = Pattern.compile("\"request_id\":\"([^\"]+)\"");
  private static final int CLIENTS = 6;

  /** The child JVM: the application, then its port on standard output. */
  public static void main(String[] args) {
    ConfigurableApplicationContext ctx = new SpringApplication(StreamingTestApp.class).run(args);
    System.out.println("PORT=" + ctx.getEnvironment().getProperty("local.server.port"));
  }

  @Test
  void afterSigtermUnderLoadEveryAnswerTheClientsReceivedHasItsRecordOnDisk(@TempDir Path dir) throws Exception {
    Path records = dir.resolve("inference.log");
    Path out = dir.resolve("child.out");
    Process child = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), GracefulShutdownTest.class.getName(),
        "--server.port=0", "--server.shutdown=graceful", "--spring.lifecycle.timeout-per-shutdown-phase=30s",
        "--management.server.port=-1", "--spring.main.banner-mode=off",
        "--trtrace.log.path=" + records, "--trtrace.sample.rate=1")
        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    try {
      String base = "http://127.0.0.1:" + awaitPort(child, out);
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      Set<String> answered = ConcurrentHashMap.newKeySet();
      Set<String> answeredAfterSignal = ConcurrentHashMap.newKeySet();
      AtomicBoolean signalled = new AtomicBoolean();
      List<Future<?>> loops = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        loops.add(clients.submit(() -> {
          for (int i = 0; child.isAlive(); i++) {
            String id = "load-" + client + "-" + i;
            HttpRequest req = HttpRequest.newBuilder(URI.create(base + "/stream?tokens=20"))
                .header("X-Request-ID", id).timeout(Duration.ofSeconds(60)).build();
            try {
              HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
              if (r.statusCode() == 200 && r.body().contains("data:tok19")) { // the whole answer arrived
                answered.add(id);
                if (signalled.get()) {
                  answeredAfterSignal.add(id);
                }
              }
            } catch (IOException refusedOrCut) {
              // once the server stops accepting: this request was not answered, and is not counted
            }
          }
          return null;
        }));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (answered.size() < 2 * CLIENTS && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(answered).as("answers before the signal").hasSizeGreaterThanOrEqualTo(2 * CLIENTS);
      Thread.sleep(200); // into the next round of streams: the signal lands while they are being written
      signalled.set(true);
      Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(child.pid())).inheritIO().start();
      assertThat(kill.waitFor()).isZero();
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child exits after SIGTERM").isTrue();
      assertThat(child.exitValue()).as("exit status of a JVM ended by SIGTERM").isEqualTo(128 + 15);
      for (Future<?> loop : loops) {
        loop.get(60, TimeUnit.SECONDS);
      }

      String childOutput = Files.readString(out);
      assertThat(childOutput).contains("Commencing graceful shutdown").contains("Graceful shutdown complete");
      Set<String> onDisk = new HashSet<>();
      for (String line : Files.readAllLines(records, StandardCharsets.UTF_8)) {
        Matcher m = REQUEST_ID.matcher(line);
        if (m.find()) {
          onDisk.add(m.group(1));
        }
      }
      System.out.printf("answered %d (%d after SIGTERM), records on disk %d%n", answered.size(),
          answeredAfterSignal.size(), onDisk.size());
      assertThat(answeredAfterSignal).as("streams answered during the drain").isNotEmpty();
      assertThat(onDisk).as("records on disk; child output:%n%s", childOutput).containsAll(answered);
    } finally {
      clients.shutdownNow();
      child.destroyForcibly();
    }
  }

  /** The port the child printed, once it has started (its output is a file this test reads). */
  private static int awaitPort(Process child, Path out) throws IOException, InterruptedException {
    Pattern port = Pattern.compile("PORT=(\\d+)");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      Optional<String> found = Files.exists(out)
          ? port.matcher(Files.readString(out)).results().map(r -> r.group(1)).findFirst() : Optional.empty();
      if (found.isPresent()) {
        return Integer.parseInt(found.get());
      }
      if (!child.isAlive()) {
        throw new AssertionError("the child exited " + child.exitValue() + ":\n" + Files.readString(out));
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the child did not start in 120 s:\n" + Files.readString(out));
  }
}
