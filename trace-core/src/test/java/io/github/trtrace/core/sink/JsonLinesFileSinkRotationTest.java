package io.github.trtrace.core.sink;

import static io.github.trtrace.core.sink.JsonLinesTestFiles.requestIds;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 11, defect 4 (rotation failure, gzip off the writer thread) and file permissions. */
class JsonLinesFileSinkRotationTest {
  @TempDir Path dir;

  private Path file() {
    return dir.resolve("inference.log");
  }

  private Path rotated(int index, boolean gz) {
    return dir.resolve("inference.log." + index + (gz ? ".gz" : ""));
  }

  private static InferenceRecord record(String id) {
    return InferenceRecord.builder(id, "llama-3-8b").latencyMs(12.5).build();
  }

  private static List<String> write(JsonLinesFileSink sink, String prefix, int count) throws IOException {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(prefix + i);
      sink.write(List.of(record(prefix + i)));
    }
    return ids;
  }

  @Test
  void aFailingRotationKeepsEveryRotatedFileAndKeepsWritingToTheCurrentOneWithABackOff() throws IOException {
    for (int k = 1; k <= 3; k++) {
      Files.writeString(rotated(k, false), "history " + k + "\n");
    }
    AtomicInteger attempts = new AtomicInteger();
    Mover refusing =
        (from, to) -> {
          if (from.equals(file())) {
            attempts.incrementAndGet();
            throw new AccessDeniedException(from.toString(), to.toString(), "rename refused");
          }
          Mover.DEFAULT.move(from, to);
        };
    List<String> expected;
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file())
            .maxFileBytes(1024)
            .maxRotatedFiles(3)
            .gzipRotated(false)
            .mover(refusing)
            .build()) {
      expected = write(sink, "req-", 200);
      sink.flush();
      assertThat(sink.rotationFailures()).as("one attempt, then the back-off").isEqualTo(1);
      assertThat(sink.linesLost()).isZero();
    }
    assertThat(attempts).hasValue(1);
    // The first attempt dropped the oldest (retention) and shifted the others up before the refused
    // rename; nothing was deleted after that.
    assertThat(Files.readString(rotated(2, false))).isEqualTo("history 1\n");
    assertThat(Files.readString(rotated(3, false))).isEqualTo("history 2\n");
    assertThat(requestIds(file())).containsExactlyElementsOf(expected);
  }

  @Test
  void rotatedFilesAreCompressedOffTheWritingThread() throws IOException {
    Queue<Runnable> compressions = new ArrayDeque<>();
    List<String> expected = new ArrayList<>();
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file()).maxFileBytes(2048).maxRotatedFiles(5).compressor(compressions::add).build()) {
      while (!Files.exists(rotated(1, false))) {
        expected.addAll(write(sink, "req-" + expected.size() + "-", 1));
      }
      // write() returned after the rotation; the compression has not run on this thread
      assertThat(compressions).hasSize(1);
      assertThat(rotated(1, true)).doesNotExist();
      compressions.poll().run();
      assertThat(rotated(1, true)).exists();
      assertThat(rotated(1, false)).doesNotExist();
      sink.flush();
      List<String> all = new ArrayList<>(requestIds(rotated(1, true)));
      all.addAll(requestIds(file()));
      assertThat(all).containsExactlyElementsOf(expected);
    }
  }

  @Test
  void logFilesAreCreatedOwnerWriteGroupReadAndNeverWorldReadable() throws IOException {
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file()).maxFileBytes(2048).maxRotatedFiles(5).build()) {
      write(sink, "req-", 60);
    }
    assertThat(rotated(1, true)).exists();
    for (Path p : List.of(file(), rotated(1, true))) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p))).as("%s", p).isEqualTo("rw-r-----");
    }
  }

  @Test
  void filePermissionsAreConfigurable() throws IOException {
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).filePermissions("rw-------").build()) {
      write(sink, "req-", 1);
    }
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file()))).isEqualTo("rw-------");
  }

  @Test
  void aRotatedFileIsCompressedEvenWhenReopeningTheLogAfterTheRenameFails() throws IOException {
    AtomicInteger opens = new AtomicInteger();
    ChannelOpener failingOnce = f -> {
      if (opens.incrementAndGet() == 2) { // the reopen after the first rotation
        throw new IOException("Too many open files");
      }
      return ChannelOpener.DEFAULT.open(f);
    };
    long lost;
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).maxFileBytes(1024).maxRotatedFiles(50)
        .channelOpener(failingOnce).build()) {
      for (int i = 0; i < 40; i++) {
        try {
          sink.write(List.of(record("req-" + i)));
        } catch (IOException expected) {
          // the record that found no file: counted below
        }
      }
      lost = sink.linesLost();
    }
    assertThat(opens).hasValueGreaterThan(2);
    assertThat(lost).isEqualTo(1);
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("every rotated file compressed").allMatch(n -> n.equals("inference.log") || n.endsWith(".gz"))
          .hasSizeGreaterThan(2);
    }
  }

  @Test
  void withNoRotatedFilesKeptThoseOfAnEarlierRunAreDeletedOnRotation() throws IOException {
    // "beyond maxRotatedFiles they are deleted": an earlier run kept 2, this one keeps none
    Files.write(rotated(1, true), new byte[0]);
    Files.write(rotated(2, false), new byte[0]);
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).maxFileBytes(1024).maxRotatedFiles(0).build()) {
      write(sink, "req-", 40);
    }
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactly(file());
    }
  }

  @Test
  void aPathThatIsNotARegularFileIsWrittenToButNeverRotated() throws Exception {
    // TRTRACE_LOG_PATH=/dev/stdout in a container: a pipe, here a named one; renaming it away and
    // creating a regular file in its place loses every later record, and gzipping the renamed pipe waits forever
    Path fifo = file();
    org.junit.jupiter.api.Assumptions.assumeTrue(
        new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo");
    java.util.concurrent.CompletableFuture<byte[]> read = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return Files.readAllBytes(fifo);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    List<String> expected = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
        java.time.Duration.ofSeconds(30), () -> {
          try (JsonLinesFileSink sink = JsonLinesFileSink.builder(fifo).maxFileBytes(1024).maxRotatedFiles(3).build()) {
            List<String> ids = write(sink, "req-", 40);
            assertThat(sink.rotationFailures()).isZero();
            return ids;
          }
        });
    String text = new String(read.get(30, java.util.concurrent.TimeUnit.SECONDS), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(text.lines().map(l -> io.github.trtrace.core.json.RecordFixtures.parse(l).get("request_id").asText()))
        .containsExactlyElementsOf(expected);
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactly(fifo);
    }
    assertThat(Files.isRegularFile(fifo)).isFalse();
  }
}
