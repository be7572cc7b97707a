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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host JVM that dies while tracing: SIGTERM runs the shutdown hook (on by default), which writes
 * every accepted record.
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
