package io.github.trtrace.http.shutdown;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.context.RequestIds;
import java.io.File;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 19 §5: SIGTERM while the service keeps serving. A child JVM serves traced requests under load
 * from 6 client threads; SIGTERM reaches it while requests are in flight; the server stops gracefully
 * in its own shutdown hook while the tracer's hook runs beside it. Every request the client saw answered
 * 200 must have its record in the log. Before the drain, the tracer's hook closed at once and the
 * requests the server still finished were dropped as {@code droppedClosed}.
 */
class GracefulShutdownTest {
  private static final java.util.regex.Pattern REQUEST_ID = java.util.regex.Pattern.compile("\"request_id\":\"([^\"]*)\"");
  private static final Path JDK25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");
  private static final int CLIENTS = 6;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jdk", "jetty"})
  void everyRequestAnsweredDuringTheGracefulStopHasItsRecord(String server, @TempDir Path dir) throws Exception {
    Path log = dir.resolve("inference.log");
    Path stdout = dir.resolve("stdout.txt");
    Process child = new ProcessBuilder(java(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        GracefulServerChild.class.getName(), server, log.toString())
        .redirectOutput(stdout.toFile()) // a file, not a pipe: a full pipe would block the child's logging
        .redirectError(dir.resolve("stderr.txt").toFile())
        .start();
    String first = awaitPort(stdout, child);
    assertThat(first).as("child stderr: %s", stderr(dir)).startsWith("port ");
    URI uri = URI.create("http://127.0.0.1:" + first.substring(5).trim() + "/infer");

    Set<String> answered = ConcurrentHashMap.newKeySet();
    AtomicLong sigtermAt = new AtomicLong(Long.MAX_VALUE);
    AtomicLong answeredAfterSigterm = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> clients = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      int client = c;
      Thread t = new Thread(() -> {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
        for (int i = 0; !stop.get(); i++) {
          String id = "gs-" + client + "-" + i;
          try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).header(RequestIds.HEADER, id)
                .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
              assertThat(r.body()).isEqualTo(id);
              answered.add(id);
              if (System.nanoTime() > sigtermAt.get()) {
                answeredAfterSigterm.incrementAndGet();
              }
            }
          } catch (IOException refusedOrReset) {
            if (System.nanoTime() > sigtermAt.get()) {
              return; // the server stopped taking requests
            }
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "client-" + c);
      clients.add(t);
      t.start();
    }
    // under load: until 100 requests were answered (30 s at most on a loaded machine), then a little more
    long loadDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (answered.size() < 100 && System.nanoTime() < loadDeadline) {
      Thread.sleep(20);
    }
    Thread.sleep(200);
    sigtermAt.set(System.nanoTime());
    Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(child.pid())).inheritIO().start();
    assertThat(kill.waitFor()).isZero();
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("child exits").isTrue();
    stop.set(true);
    for (Thread t : clients) {
      t.join(30_000);
    }

    Set<String> recorded = new HashSet<>();
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      java.util.regex.Matcher m = REQUEST_ID.matcher(line);
      assertThat(m.find()).as(line).isTrue();
      recorded.add(m.group(1));
    }
    Set<String> missing = new HashSet<>(answered);
    missing.removeAll(recorded);
    System.out.printf("GracefulShutdownTest %s: %d requests answered 200 (%d after SIGTERM), %d records, %d answered without a record%n",
        server, answered.size(), answeredAfterSigterm.get(), recorded.size(), missing.size());
    assertThat(answered).as("requests answered under load").hasSizeGreaterThanOrEqualTo(100);
    assertThat(answeredAfterSigterm.get()).as("requests the graceful stop still answered").isPositive();
    assertThat(missing).as("answered 200 but no record; child stderr: %s", stderr(dir)).isEmpty();
    assertThat(recorded).as("a record for every request the server handled").containsAll(answered);
  }

  /** The child's {@code port N} line, once printed (60 s at most, for a loaded machine). */
  private static String awaitPort(Path stdout, Process child) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline && child.isAlive()) {
      for (String line : Files.readAllLines(stdout, StandardCharsets.UTF_8)) {
        if (line.startsWith("port ")) {
          return line;
        }
      }
      Thread.sleep(20);
    }
    child.destroyForcibly();
    return "no port line: " + Files.readString(stdout, StandardCharsets.UTF_8);
  }

  private static String java() {
    Path home = Files.isDirectory(JDK25) ? JDK25 : Path.of(System.getProperty("java.home"));
    return home.resolve("bin").resolve("java").toString();
  }

  private static String stderr(Path dir) {
    try {
      String s = Files.readString(dir.resolve("stderr.txt"));
      return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    } catch (IOException e) {
      return e.toString();
    }
  }
}
