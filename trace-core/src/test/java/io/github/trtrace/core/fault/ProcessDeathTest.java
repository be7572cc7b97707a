package io.github.trtrace.core.fault;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11 fault 2: a host JVM that dies while tracing. SIGTERM runs the shutdown hook (on by
 * default), which writes every accepted record; SIGKILL leaves whole lines but for at most a torn
 * last one, and a restarted writer appends cleanly after it.
 */
class ProcessDeathTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest(name = "{0} threads at {1} requests/s each (0 = full speed)")
  @CsvSource({"1, 2000", "2, 0"})
  void sigtermWritesEveryAcceptedRecord(int threads, int perSecond, @TempDir Path dir) throws Exception {
    Path log = dir.resolve("inference.log");
    ChildJvm.Running child =
        ChildJvm.withTestClasspath()
            .run(TracingChild.class, log.toString(), "0", String.valueOf(threads), String.valueOf(perSecond))
            .awaitOutput("ready", 30);
    Thread.sleep(500);
    ChildJvm.Result r = child.terminate().awaitExit(30);

    assertThat(r.exitCode()).as("%s", r).isEqualTo(143);
    assertThat(r.stat("workerEnded")).as("the shutdown hook closed the dispatcher: %s", r).isEqualTo(1);
    List<String> lines = completeLines(log);
    Set<String> ids = new HashSet<>();
    for (String line : lines) {
      ids.add(JSON.readTree(line).get("request_id").asText());
    }
    assertThat(ids).as("unique request IDs").hasSameSizeAs(lines);
    long accepted = r.stat("accepted");
    assertThat(accepted).as("%s", r).isPositive();
    assertThat(lines).as("lines on disk = records accepted; %s", r).hasSize((int) accepted);
    assertThat(r.stat("written")).isEqualTo(accepted);
    assertThat(r.stat("lost")).isZero();
    System.out.printf("SIGTERM, %d threads at %d/s: %s%n", threads, perSecond, r.stdout().lines()
        .filter(l -> l.startsWith("stats")).findFirst().orElse(""));
  }

  @Test
  void sigkillLeavesOnlyWholeLinesButTheLastAndARestartedWriterAppendsCleanlyAfterIt(@TempDir Path dir)
      throws Exception {
    Path log = dir.resolve("inference.log");
    ChildJvm.Running child =
        ChildJvm.withTestClasspath().run(TracingChild.class, log.toString(), "0", "2", "0").awaitOutput("ready", 30);
    Thread.sleep(700);
    ChildJvm.Result r = child.kill().awaitExit(30);
    assertThat(r.exitCode()).isEqualTo(137);
    assertThat(r.stdout()).doesNotContain("stats"); // no shutdown hook ran

    String killed = Files.readString(log, StandardCharsets.UTF_8);
    List<String> lines = killed.lines().toList();
    int torn = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (!parses(lines.get(i))) {
        assertThat(i).as("only the last line may be torn").isEqualTo(lines.size() - 1);
        assertThat(killed).doesNotEndWith("\n");
        torn++;
      }
    }
    assertThat(lines.size() - torn).as("complete lines written before the kill").isPositive();

    // A restarted host appends after the torn line, never onto it.
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(log).build()) {
      sink.write(List.of(InferenceRecord.builder("req-after-restart", "m").latencyMs(1).build()));
    }
    List<String> after = Files.readString(log, StandardCharsets.UTF_8).lines().toList();
    long unparsable = after.stream().filter(l -> !parses(l)).count();
    assertThat(unparsable).isEqualTo(torn);
    assertThat(JSON.readTree(after.get(after.size() - 1)).get("request_id").asText()).isEqualTo("req-after-restart");
    System.out.printf("SIGKILL at full load: %d complete lines, %d torn; restart appended cleanly%n",
        lines.size() - torn, torn);
  }

  private static boolean parses(String line) {
    try {
      return JSON.readTree(line).has("request_id");
    } catch (IOException e) {
      return false;
    }
  }

  /** Every line of the file; fails on a torn last line. */
  static List<String> completeLines(Path log) throws IOException {
    String text = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(text).endsWith("\n");
    List<String> lines = text.lines().toList();
    for (String line : lines) {
      JsonNode node = JSON.readTree(line);
      assertThat(node.isObject()).isTrue();
    }
    return lines;
  }
}
