package io.github.trtrace.core.sink;

import static io.github.trtrace.core.sink.JsonLinesTestFiles.requestIds;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a JVM that died mid-rotation or mid-compression leaves beside the log: a half-written {@code
 * <name>.1.gz.tmp}, a rotated {@code <name>.N} never compressed, or both {@code <name>.N} and the {@code
 * <name>.N.gz} made of it. The next sink built on the file tidies them up, with real files.
 */
class JsonLinesFileSinkCrashLeftoversTest {
  @TempDir Path dir;

  private Path file() {
    return dir.resolve("inference.log");
  }

  private Path rotated(int index, String suffix) {
    return dir.resolve("inference.log." + index + suffix);
  }

  private static String lines(String prefix, int count) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < count; i++) {
      text.append("{\"request_id\":\"").append(prefix).append(i).append("\"}\n");
    }
    return text.toString();
  }

  private static void gzip(Path to, String text) throws IOException {
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(to))) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private List<Path> filesInDir() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }

  private List<String> rotatedIds(int upTo) throws IOException {
    List<String> ids = new ArrayList<>();
    for (int k = upTo; k >= 1; k--) {
      for (String suffix : List.of("", ".gz")) {
        if (Files.exists(rotated(k, suffix))) {
          ids.addAll(requestIds(rotated(k, suffix)));
        }
      }
    }
    return ids;
  }

  @Test
  void aCompressionCutShortByACrashIsDoneAgainAndItsTmpFileRemoved() throws IOException {
    Files.writeString(rotated(1, ""), lines("a-", 50));
    Files.write(rotated(1, ".gz.tmp"), new byte[] {0x1f, (byte) 0x8b, 8, 0}); // half a gzip header
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).build()) {
      sink.flush();
    } // close() waits for the compression
    assertThat(filesInDir()).containsExactlyInAnyOrder(file(), rotated(1, ".gz"));
    assertThat(requestIds(rotated(1, ".gz"))).hasSize(50).startsWith("a-0").endsWith("a-49");
  }

  @Test
  void aRotatedFileLeftBesideItsCompressedCopyIsKeptOnce() throws IOException {
    // the crash came after the .gz was moved into place, before the plain file was deleted
    Files.writeString(rotated(1, ""), lines("b-", 20));
    gzip(rotated(1, ".gz"), lines("b-", 20));
    Files.writeString(rotated(2, ""), lines("c-", 20));
    gzip(rotated(2, ".gz"), lines("c-", 20));
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).gzipRotated(false).build()) {
      sink.flush();
    }
    assertThat(filesInDir()).containsExactlyInAnyOrder(file(), rotated(1, ""), rotated(2, ""));
    assertThat(rotatedIds(2)).doesNotHaveDuplicates().hasSize(40);
  }

  @Test
  void plainRotatedFilesLeftByACrashAreCompressedAndRetentionStillHolds() throws IOException {
    Files.writeString(rotated(1, ""), lines("r1-", 10));
    gzip(rotated(2, ".gz"), lines("r2-", 10));
    Files.writeString(rotated(3, ""), lines("r3-", 10));
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).maxFileBytes(2048).maxRotatedFiles(3).build()) {
      for (int i = 0; i < 20; i++) { // more than one file's worth: at least one rotation
        sink.write(List.of(InferenceRecord.builder("new-" + i, "m").latencyMs(1).build()));
      }
      sink.flush();
    }
    assertThat(filesInDir()).containsExactlyInAnyOrder(file(), rotated(1, ".gz"), rotated(2, ".gz"), rotated(3, ".gz"));
    assertThat(rotatedIds(3)).doesNotHaveDuplicates().doesNotContain("r3-0").contains("new-0");
  }
}
