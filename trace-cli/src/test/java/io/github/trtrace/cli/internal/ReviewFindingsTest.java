package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Defects a new user's review of the command line found: each test shows one, as a user runs the command. */
class ReviewFindingsTest {
  @TempDir Path dir;

  private static String rec(String id, String model, String status, String errorType, String latency) {
    return "{\"timestamp\":\"2026-12-01T09:00:00.000000Z\",\"request_id\":\"" + id + "\",\"model_name\":\"" + model
        + "\",\"status\":\"" + status + "\"" + (errorType == null ? "" : ",\"error_type\":\"" + errorType + "\"")
        + ",\"latency_ms\":" + latency + "}\n";
  }

  /** stats prints request_id, model_name and error_type as they are: escape sequences and CR/LF reach the terminal. */
  @Test
  void statsEscapesControlAndBidiCharactersLikeFindAndExplainDo() throws IOException {
    Path log = dir.resolve("inference.log");
    Files.writeString(log, rec("api-7\\r\\nFORGED line", "m\\u001b[2J", "error", "X\\u202eY", "12")
        + rec("api-8", "m", "success", null, "10"), StandardCharsets.UTF_8);
    Cli r = Cli.run("stats", log.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).doesNotContain("\u001b", "\r", "\u202e", "\nFORGED line");
    assertThat(r.out()).contains("api-7\\u000D\\u000AFORGED line", "m\\u001B[2J", "X\\u202EY");
  }

  /** find's "IDs that start alike" hint prints the logged IDs raw on stderr. */
  @Test
  void findsSimilarIdHintEscapesControlCharacters() throws IOException {
    Path log = dir.resolve("inference.log");
    Files.writeString(log, rec("api-7\\u001b[31mRED", "m", "success", null, "10"), StandardCharsets.UTF_8);
    Cli r = Cli.run("find", "api-7", log.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("IDs that start alike", "api-7\\u001B[31mRED").doesNotContain("\u001b");
  }

  /**
   * The operator's one-ID path: find on a batched record (the H200 capture) drops gpu_ms (no infer stage) and every
   * batching field, among them slowed_by, the requests whose prefill shared its steps.
   */
  @Test
  void findShowsTheRecordsBatchingFieldsAndGpuTime() throws IOException {
    Fixtures.copy("h200-batched", dir, "batched-records.jsonl.gz");
    Cli r = Cli.run("find", "req-b000", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("gpu_ms 6.08 ms", "launches 24", "1796173285973881..1796173285973904",
        "slot wait 1.44 ms", "req-b001 (26 prefill tokens", "req-b009", "req-b003");
  }

  /** A count beyond a long is printed as a different number (BigInteger.longValue wraps around). */
  @Test
  void findPrintsAHugeTokenCountAsWritten() throws IOException {
    Path log = dir.resolve("inference.log");
    Files.writeString(log, "{\"timestamp\":\"2026-12-01T09:00:00.000000Z\",\"request_id\":\"h1\",\"model_name\":\"m\","
        + "\"status\":\"success\",\"latency_ms\":10,\"input_tokens\":99999999999999999999}\n");
    Cli r = Cli.run("find", "h1", log.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).doesNotContain("7,766,279,631,452,241,919").contains("input tokens 99999999999999999999");
  }

  /**
   * A rotated .gz cut short (copied or compressed while the disk filled) ends the whole command with "Unexpected end
   * of ZLIB input stream", exit 2, naming no file, though the docs say the commands count, never fail on, a torn end.
   */
  @Test
  void aTruncatedGzipRotationIsCountedAsTornNotFatal() throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      sb.append(rec(String.format("api-%05d", i), "m", "success", null, "" + (10 + i % 7)));
    }
    byte[] gz;
    try (var bytes = new java.io.ByteArrayOutputStream(); var out = new GZIPOutputStream(bytes)) {
      out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
      out.finish();
      gz = bytes.toByteArray();
    }
    Files.write(dir.resolve("inference.log.1.gz"), Arrays.copyOf(gz, gz.length / 2));
    Files.writeString(dir.resolve("inference.log"), rec("api-live", "m", "success", null, "10"));
    Cli r = Cli.run("stats", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("inference.log.1.gz", "truncated");
    Cli f = Cli.run("find", "api-live", dir.toString());
    assertThat(f.code()).as(f.err()).isZero();
    assertThat(f.out()).contains("request api-live");
  }

  /** A missing or directory build report: the message is the bare path ("trtrace build-diff: nope.json") or "Is a directory". */
  @Test
  void aMissingBuildReportSaysWhatIsWrongWithWhichFile() {
    Path missing = dir.resolve("nope.build.json");
    Cli d = Cli.run("build-diff", missing.toString(), missing.toString());
    assertThat(d.code()).isEqualTo(2);
    assertThat(d.err()).contains(missing.toString()).containsIgnoringCase("no such file");
    Cli e = Cli.run("explain", "x", dir.toString(), "--build-report", dir.toString());
    assertThat(e.code()).isEqualTo(2);
    assertThat(e.err()).contains(dir.toString());
  }

  /** latency_ms 1e400 parses as Infinity and is kept: p50 "3607.1 s", max "Infinity s". */
  @Test
  void anInfiniteLatencyIsSkippedAsMalformed() throws IOException {
    Path log = dir.resolve("inference.log");
    Files.writeString(log, rec("a", "m", "success", null, "1e400") + rec("b", "m", "success", null, "10"));
    Cli r = Cli.run("stats", log.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("1 records, 1 malformed").doesNotContain("Infinity");
  }

  /** Limits outside their documented range were taken silently: a fusion-rate drop of 5 (help: 0..1), a knee of 0. */
  @Test
  void limitsOutsideTheirRangeAreRefusedWithTheOptionsName() throws IOException {
    Path report = dir.resolve("a.build.json");
    Cli g = Cli.run("gate", report.toString(), report.toString(), "--max-fusion-rate-drop", "5");
    assertThat(g.code()).isEqualTo(2);
    assertThat(g.err()).contains("--max-fusion-rate-drop", "0..1");
    Path log = dir.resolve("inference.log");
    Files.writeString(log, rec("a", "m", "success", null, "10"));
    for (String cmd : new String[] {"stats", "report"}) {
      Cli k = cmd.equals("stats") ? Cli.run(cmd, log.toString(), "--knee-min-count", "0")
          : Cli.run(cmd, log.toString(), "--knee-min-count", "0", "--html", dir.resolve("r.html").toString());
      assertThat(k.code()).as(cmd).isEqualTo(2);
      assertThat(k.err()).as(cmd).contains("--knee-min-count", ">= 1");
    }
  }

  /**
   * A batched request's gpu_ms is its shares of every launch it rode, prefill and decode: shown under infer it read
   * "gpu 5.2 ms, 210 % of infer" (the demo's api-demo-0023).
   */
  @Test
  void aBatchedRequestsGpuTimeIsNotShownAsAPartOfInfer() throws IOException {
    Path log = dir.resolve("inference.log");
    Files.writeString(log, "{\"timestamp\":\"2026-12-01T09:00:00.000000Z\",\"request_id\":\"b1\",\"model_name\":\"m\","
        + "\"status\":\"success\",\"latency_ms\":9.87,\"queue_ms\":0.1,\"infer_ms\":2.5,\"decode_ms\":5.3,"
        + "\"gpu_ms\":5.2,\"gpu_ms_method\":\"rows\",\"launch_count\":32}\n");
    Cli r = Cli.run("find", "b1", log.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).doesNotContain("of infer")
        .contains("gpu_ms 5.20 ms (its shares of the launches below, prefill and decode steps; share method rows)",
            "launches 32");
  }

  /** report --request with an ID the logs lack wrote the page and exited 0, so a script could not tell. */
  @Test
  void reportOfARequestTheLogsLackExits1() throws IOException {
    Path log = dir.resolve("inference.log");
    Files.writeString(log, rec("a", "m", "success", null, "10"));
    Cli r = Cli.run("report", log.toString(), "--html", dir.resolve("r.html").toString(), "--request", "nope");
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).contains("request nope: not found");
    assertThat(dir.resolve("r.html")).exists();
  }

  /** find printed a found record and said nothing of the lines it skipped (explain says it). */
  @Test
  void findSaysWhichLinesItSkippedEvenWhenItFindsTheRequest() throws IOException {
    Path log = dir.resolve("inference.log");
    Files.writeString(log, "not json\n" + rec("a", "m", "success", null, "10"));
    Cli r = Cli.run("find", "a", log.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("request a");
    assertThat(r.err()).contains("1 malformed");
  }
}
