package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FindCommandTest {
  @TempDir static Path dir;

  /** A rotation set: inference.log.2.gz (oldest), inference.log.1, inference.log (live, torn last line). */
  @BeforeAll
  static void logs() throws IOException {
    SyntheticLog gen = new SyntheticLog(7, true);
    gen.write(dir.resolve("inference.log.2.gz"), 100);   // api-demo-0..99
    gen.write(dir.resolve("inference.log.1"), 100);      // 100..199
    gen.write(dir.resolve("inference.log"), 100);        // 200..299
    SyntheticLog.append(dir.resolve("inference.log.1"), "not json at all\n{\"request_id\":\"api-demo-5\"}\n");
    SyntheticLog.append(dir.resolve("inference.log"),
        "{\"timestamp\":\"2026-12-01T09:00:00.000000Z\",\"request_id\":\"api-demo-9000\",\"model_name\":\"tiny-llm\","
            + "\"status\":\"success\",\"latency_ms\":12.5,\"events\":[{\"kind\":\"runtime\",\"severity\":\"WARNING\","
            + "\"message\":\"Using an engine plan file across different models\",\"offset_ms\":3.5}],"
            + "\"output_flags\":[\"repetition\"],\"input_digest\":\"abc\u202Edef\"}\n"
            + "{\"timestamp\":\"2026-12-01T09:00:01.0000");
    Files.writeString(dir.resolve("notes.txt"), "{\"request_id\":\"api-demo-42\"}\n");
  }

  @Test
  void findsARequestInAGzippedRotatedFileWithItsWaterfall() {
    Cli r = Cli.run("find", "api-demo-42", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("request api-demo-42", "inference.log.2.gz:43", "model tiny-llm", "status success");
    assertThat(r.out()).containsPattern("queue +0\\.0 +[0-9.]+ +\\|#*");
    assertThat(r.out()).contains("preprocess", "infer", "  gpu", "decode", "postprocess", "TensorRT events: none");
    // notes.txt is not a log name: directories contribute log files only
    assertThat(r.out()).doesNotContain("notes.txt");
  }

  @Test
  void matchesTheIdExactlyNotAsASubstring() {
    Cli r = Cli.run("find", "api-demo-5", dir.toString());
    assertThat(r.code()).isZero();
    // api-demo-50..59 and 500..599 exist too; only lines whose request_id is exactly api-demo-5 are printed:
    // the record in the oldest file, and the incomplete line {"request_id":"api-demo-5"} in inference.log.1
    String[] found = r.out().split("\nrequest ", -1);
    assertThat(found).hasSize(2);
    assertThat(found[0]).startsWith("request api-demo-5   (").contains("inference.log.2.gz:6", "status success");
    assertThat(found[1]).startsWith("api-demo-5   (").contains("inference.log.1:" + 102);
    assertThat(r.out()).doesNotContain("api-demo-50", "api-demo-51", "api-demo-500");
    assertThat(r.err()).contains("2 records carry request ID api-demo-5");
  }

  @Test
  void showsEventsOutputFlagsAndEscapesBidiControls() {
    Cli r = Cli.run("find", "api-demo-9000", dir.resolve("inference.log").toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("TensorRT events (1):", "+3.5 ms", "WARNING", "runtime",
        "Using an engine plan file across different models", "output repetition", "(no stage times)");
    assertThat(r.out()).contains("abc\\u202Edef").doesNotContain("\u202E");
  }

  @Test
  void exitsWithOneWhenNotFoundAndNamesSimilarIds() {
    Cli r = Cli.run("find", "api-demo-3000", dir.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("request api-demo-3000 not found", "1 torn last line", "1 malformed");
  }

  @Test
  void missingPathIsAUsageError() {
    Cli r = Cli.run("find", "x", dir.resolve("nope.log").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("nope.log");
  }
}
