package io.github.trtrace.core.sink;

import static io.github.trtrace.core.sink.JsonLinesTestFiles.lines;
import static io.github.trtrace.core.sink.JsonLinesTestFiles.requestIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.json.RecordFixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonLinesFileSinkTest {

  @TempDir Path dir;

  private Path file() {
    return dir.resolve("inference.log");
  }

  /** A valid record with the given ID and a model name full of characters that need escaping. */
  private static InferenceRecord record(String requestId) {
    return InferenceRecord.builder(requestId, "model \"x\"\n\u2028\u202e\\")
        .timestamp(Instant.parse("2026-11-30T08:00:00.123456Z"))
        .status(Status.SUCCESS)
        .latencyMs(12.5)
        .inputTokens(3)
        .outputTokens(7)
        .attribute("tenant", "a\tb")
        .build();
  }

  /** Writes {@code count} records in batches of ten, returning their IDs in order. */
  private static List<String> writeRecords(RecordSink sink, String prefix, int count) throws IOException {
    List<String> ids = new ArrayList<>();
    List<InferenceRecord> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String id = prefix + i;
      ids.add(id);
      batch.add(record(id));
      if (batch.size() == 10 || i == count - 1) {
        sink.write(batch);
        batch.clear();
      }
    }
    return ids;
  }

  private Path rotated(int index, boolean gz) {
    return dir.resolve("inference.log." + index + (gz ? ".gz" : ""));
  }

  private List<Path> filesInDir() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }

  @Test
  void writesEveryCharacterAsUtf8ExactlyAsTheEncoderProducedIt() throws IOException {
    // one, two, three and four UTF-8 bytes, a pure-ASCII record, and a long one past the first buffer size
    InferenceRecord mixed =
        InferenceRecord.builder("req-utf8", "mod\u00e8le-\u4e16\u754c-\uD83D\uDE00").status(Status.SUCCESS).latencyMs(1).attribute("k", "\u00e9".repeat(3000)).build();
    InferenceRecord ascii = InferenceRecord.builder("req-ascii", "plain").status(Status.SUCCESS).latencyMs(1).build();
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).build()) {
      sink.write(List.of(mixed, ascii, mixed));
    }
    String expected = io.github.trtrace.core.RecordConvention.toJson(mixed);
    assertThat(lines(file()))
        .containsExactly(expected, io.github.trtrace.core.RecordConvention.toJson(ascii), expected);
    assertThat(Files.readAllBytes(file()))
        .isEqualTo((expected + "\n" + io.github.trtrace.core.RecordConvention.toJson(ascii) + "\n" + expected + "\n")
            .getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void rotatesBySizeIntoGzipFilesWithoutLosingOrSplittingALine() throws IOException {
    List<String> expected;
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file()).maxFileBytes(4096).maxRotatedFiles(100).build()) {
      expected = writeRecords(sink, "req-rot-", 300);
      sink.flush();
      assertThat(sink.linesWritten()).isEqualTo(300);
    }
    List<String> all = new ArrayList<>();
    int index = 1;
    while (Files.exists(rotated(index + 1, true))) {
      index++;
    }
    assertThat(index).as("number of rotated files").isGreaterThan(5);
    for (int i = index; i >= 1; i--) {
      Path gz = rotated(i, true);
      assertThat(Files.exists(rotated(i, false))).as("plain copy of %s", gz).isFalse();
      List<String> ids = requestIds(gz);
      assertThat(ids).isNotEmpty();
      assertThat(String.join("\n", lines(gz)).length() + ids.size())
          .as("uncompressed size of %s", gz)
          .isLessThanOrEqualTo(4096);
      all.addAll(ids);
    }
    all.addAll(requestIds(file()));
    assertThat(all).containsExactlyElementsOf(expected);
    assertThat(filesInDir()).noneMatch(p -> p.toString().endsWith(".tmp"));
  }

  @Test
  void keepsOnlyTheNewestRotatedFiles() throws IOException {
    List<String> expected;
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file()).maxFileBytes(2048).maxRotatedFiles(3).build()) {
      expected = writeRecords(sink, "req-ret-", 200);
    }
    assertThat(filesInDir())
        .containsExactlyInAnyOrder(file(), rotated(1, true), rotated(2, true), rotated(3, true));
    List<String> kept = new ArrayList<>();
    for (int i = 3; i >= 1; i--) {
      kept.addAll(requestIds(rotated(i, true)));
    }
    kept.addAll(requestIds(file()));
    // the newest records survive, contiguous and in order, ending with the last one written
    assertThat(expected).endsWith(kept.toArray(String[]::new));
  }

  @Test
  void aRestartWithFewerRotatedFilesKeepsNoneBeyondTheNewLimit() throws IOException {
    // a previous run kept 6 rotated files; this one is configured to keep 2
    for (int i = 1; i <= 6; i++) {
      Files.write(rotated(i, true), new byte[0]);
    }
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file()).maxFileBytes(2048).maxRotatedFiles(2).build()) {
      writeRecords(sink, "req-restart-", 100);
    }
    assertThat(filesInDir())
        .as("\"beyond maxRotatedFiles they are deleted\"")
        .containsExactlyInAnyOrder(file(), rotated(1, true), rotated(2, true));
  }

  @Test
  void rotatesIntoPlainFilesWhenGzipIsOff() throws IOException {
    List<String> expected;
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file()).maxFileBytes(4096).maxRotatedFiles(50).gzipRotated(false).build()) {
      expected = writeRecords(sink, "req-plain-", 60);
    }
    List<String> all = new ArrayList<>();
    for (int i = 50; i >= 1; i--) {
      assertThat(Files.exists(rotated(i, true))).isFalse();
      if (Files.exists(rotated(i, false))) {
        all.addAll(requestIds(rotated(i, false)));
      }
    }
    all.addAll(requestIds(file()));
    assertThat(Files.exists(rotated(1, false))).isTrue();
    assertThat(all).containsExactlyElementsOf(expected);
  }

  @Test
  void tornLastLineFromACrashNeverMergesWithTheNextRecord() throws IOException {
    String complete = RecordJsonLine.of("req-before-crash");
    String torn = "{\"timestamp\":\"2026-11-30T08:00:00.000000Z\",\"request_id\":\"req-tor";
    Files.writeString(file(), complete + torn, StandardCharsets.UTF_8);
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).build()) {
      sink.write(List.of(record("req-after-crash")));
    }
    List<String> lines = lines(file());
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).isEqualTo(complete.strip());
    assertThat(lines.get(1)).isEqualTo(torn);
    assertThat(RecordFixtures.parse(lines.get(2)).get("request_id").asText()).isEqualTo("req-after-crash");
  }

  @Test
  void appendsToACompleteFileWithoutABlankLine() throws IOException {
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).build()) {
      sink.write(List.of(record("req-first-run")));
    }
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).build()) {
      sink.write(List.of(record("req-second-run")));
    }
    assertThat(requestIds(file())).containsExactly("req-first-run", "req-second-run");
  }

  @Test
  void keepsRecordsBufferedUntilTheFlushIntervalHasPassed() throws IOException {
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file()).flushInterval(Duration.ofHours(1)).build()) {
      sink.write(List.of(record("req-buffered")));
      assertThat(Files.size(file())).isZero();
      sink.flush();
      assertThat(requestIds(file())).containsExactly("req-buffered");
    }
  }

  @Test
  void flushesOnALaterWriteOnceTheIntervalHasPassed() throws IOException {
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file()).flushInterval(Duration.ofMillis(100)).build()) {
      sink.write(List.of(record("req-timed")));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                sink.write(List.of());
                return requestIds(file()).equals(List.of("req-timed"));
              });
    }
  }

  @Test
  void zeroFlushIntervalWritesEveryBatchThrough() throws IOException {
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).flushInterval(Duration.ZERO).build()) {
      sink.write(List.of(record("req-a"), record("req-b")));
      assertThat(requestIds(file())).containsExactly("req-a", "req-b");
    }
  }

  @Test
  void fsyncForcesTheFileOnEveryFlush() throws IOException {
    AtomicInteger forces = new AtomicInteger();
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file())
            .fsync(true)
            .channelOpener(f -> new CountingFileChannel(ChannelOpener.DEFAULT.open(f), forces))
            .build()) {
      sink.write(List.of(record("req-durable")));
      sink.flush();
      assertThat(forces.get()).isEqualTo(1);
      sink.flush();
      assertThat(forces.get()).isEqualTo(2);
      assertThat(requestIds(file())).containsExactly("req-durable");
    }
  }

  @Test
  void withoutFsyncNothingIsForced() throws IOException {
    AtomicInteger forces = new AtomicInteger();
    try (JsonLinesFileSink sink =
        JsonLinesFileSink.builder(file())
            .channelOpener(f -> new CountingFileChannel(ChannelOpener.DEFAULT.open(f), forces))
            .build()) {
      sink.write(List.of(record("req-fast")));
      sink.flush();
    }
    assertThat(forces.get()).isZero();
  }

  @Test
  void writesALineLargerThanTheBuffer() throws IOException {
    InferenceRecord.Builder b = InferenceRecord.builder("req-huge", "m").latencyMs(1);
    for (int i = 0; i < 40; i++) {
      b.attribute("k" + i, "\u65e5".repeat(4000));
    }
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).build()) {
      sink.write(List.of(record("req-small-1"), b.build(), record("req-small-2")));
    }
    assertThat(requestIds(file())).containsExactly("req-small-1", "req-huge", "req-small-2");
  }

  @Test
  void writeAfterCloseFailsWithAnIoException() throws IOException {
    JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).build();
    sink.close();
    assertThatThrownBy(() -> sink.write(List.of(record("req-late"))))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void nameSaysWhereTheLinesGo() throws IOException {
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(file()).build()) {
      assertThat(sink.name()).isEqualTo("jsonl:" + file());
    }
  }

  @Test
  void rejectsBadConfigurationWithAClearMessage() {
    JsonLinesFileSink.Builder b = JsonLinesFileSink.builder(file());
    assertThatThrownBy(() -> b.maxFileBytes(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxFileBytes");
    assertThatThrownBy(() -> b.maxRotatedFiles(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxRotatedFiles");
    assertThatThrownBy(() -> b.flushInterval(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("flushInterval");
    assertThatThrownBy(() -> JsonLinesFileSink.builder(Path.of("/"))).isInstanceOf(IllegalArgumentException.class);
  }

  /** One record's line, as the sink writes it. */
  private static final class RecordJsonLine {
    static String of(String requestId) {
      StringBuilder sb = new StringBuilder();
      io.github.trtrace.core.RecordConvention.appendJsonLine(record(requestId), sb);
      return sb.toString();
    }
  }
}
