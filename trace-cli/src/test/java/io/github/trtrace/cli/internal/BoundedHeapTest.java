package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.cli.TrtraceCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stats} over 1.2 million lines in a child JVM limited to a 32 MiB heap: the log is about
 * 400 MB, so the run succeeds only if memory does not grow with the input.
 */
class BoundedHeapTest {
  static final long LINES = 1_200_000;
  static final String HEAP = "-Xmx32m";

  @TempDir Path dir;

  @Test
  void statsOnOnePointTwoMillionLinesRunsIn32MiBOfHeap() throws Exception {
    Path log = dir.resolve("inference.log");
    new SyntheticLog(3, true).write(log, LINES);
    SyntheticLog.append(log, "garbage\n{\"timestamp\":\"2026");
    assertThat(Files.size(log)).isGreaterThan(300_000_000L);

    Path out = dir.resolve("stats.json");
    Path err = dir.resolve("stats.err");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add(HEAP);
    cmd.add("-XX:+ExitOnOutOfMemoryError");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(TrtraceCli.class.getName());
    cmd.add("stats");
    cmd.add("--json");
    cmd.add(log.toString());
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("finished").isTrue();
    assertThat(p.exitValue()).as(Files.readString(err)).isZero();

    JsonNode j = new ObjectMapper().readTree(out.toFile());
    assertThat(j.at("/read/records").asLong()).isEqualTo(LINES);
    assertThat(j.at("/read/malformed").asLong()).isEqualTo(1);
    assertThat(j.at("/read/torn").asLong()).isEqualTo(1);
    assertThat(j.at("/input_tokens/knee/found").asBoolean()).isTrue();
    assertThat(j.get("slowest")).hasSize(10);
  }

}
