package io.github.trtrace.core.sink;

import static io.github.trtrace.core.sink.JsonLinesTestFiles.requestIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceRecord.Event;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A real full file system: a 256 KiB tmpfs mounted for this test (needs root). */
class JsonLinesFileSinkDiskFullTest {

  private static Path mountPoint;
  private static boolean mounted;

  @BeforeAll
  static void mountSmallTmpfs() throws Exception {
    mountPoint = Files.createTempDirectory("trtrace-full-fs");
    String result = run("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint.toString());
    if (result != null) {
      Files.deleteIfExists(mountPoint);
      Assumptions.abort("cannot mount a size-limited tmpfs (needs root): " + result);
    }
    mounted = true;
  }

  @AfterAll
  static void unmount() throws Exception {
    if (mounted) {
      String result = run("umount", mountPoint.toString());
      if (result != null) {
        throw new IllegalStateException("could not unmount " + mountPoint + ": " + result);
      }
    }
    if (mountPoint != null) {
      Files.deleteIfExists(mountPoint);
    }
  }

  /** Runs a command; null on success, else its exit code and output. */
  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return String.join(" ", command) + " timed out";
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + out;
  }

  private static InferenceRecord record(String id) {
    return InferenceRecord.builder(id, "llama-3-8b")
        .latencyMs(12.5)
        .addEvent(new Event("tensorrt.warning", "warning", "padding ".repeat(40), 1.0))
        .build();
  }

  @Test
  void failsWithWholeLinesOnlyWhenTheDiskIsFullAndRecoversOnceSpaceIsFreed() throws IOException {
    Path filler = mountPoint.resolve("filler");
    try (OutputStream out = Files.newOutputStream(filler)) {
      out.write(new byte[128 * 1024]);
    }
    Path log = mountPoint.resolve("inference.log");
    List<String> attempted = new ArrayList<>();
    IOException failure = null;
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(log).flushInterval(Duration.ZERO).maxFileBytes(0).build()) {
      for (int b = 0; b < 1000 && failure == null; b++) {
        List<InferenceRecord> batch = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
          String id = "req-full-" + b + "-" + i;
          attempted.add(id);
          batch.add(record(id));
        }
        try {
          sink.write(batch);
        } catch (IOException e) {
          failure = e;
        }
      }
      if (failure == null) {
        fail("the 256 KiB file system never filled up");
      }
      assertThat(failure).hasMessageContaining("lines not written");
      assertThat(sink.linesLost()).isPositive();

      // Only complete lines in the file, and exactly those the sink reports as written.
      List<String> afterFailure = requestIds(log);
      assertThat(afterFailure).hasSize((int) sink.linesWritten());
      assertThat(attempted).startsWith(afterFailure.toArray(String[]::new));
      assertThat(sink.linesWritten() + sink.linesLost()).isEqualTo(attempted.size());

      // Still full: a further write fails the same clean way.
      long sizeBefore = Files.size(log);
      boolean stillFull = false;
      try {
        sink.write(List.of(record("req-still-full")));
        sink.flush();
      } catch (IOException e) {
        stillFull = true;
      }
      assertThat(stillFull).isTrue();
      assertThat(Files.size(log)).isEqualTo(sizeBefore);

      Files.delete(filler);
      sink.write(List.of(record("req-after-space-1"), record("req-after-space-2")));
      sink.flush();
      List<String> recovered = requestIds(log);
      assertThat(recovered).endsWith("req-after-space-1", "req-after-space-2");
      assertThat(recovered).hasSize((int) sink.linesWritten());
    }
  }
}
