package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The analysis as values: the same figures {@code trtrace stats} prints, with a request ID for each finding. */
class LogAnalysisTest {
  @TempDir Path dir;

  private static String rec(String id, double atSeconds, String status, int tokens, double queueMs, double computeMs,
      String inFlag, String outFlag) {
    String ts = Instant.parse("2026-12-01T08:00:00Z").plusMillis(Math.round(atSeconds * 1000)).toString();
    return String.format(Locale.ROOT, "{\"timestamp\":\"%s\",\"request_id\":\"%s\",\"model_name\":\"m\",\"status\":\"%s\","
        + "\"latency_ms\":%.3f,\"input_tokens\":%d,\"queue_ms\":%.3f,\"infer_ms\":%.3f%s%s}", ts, id, status,
        queueMs + computeMs, tokens, queueMs, computeMs,
        inFlag == null ? "" : ",\"input_flags\":[\"" + inFlag + "\"]",
        outFlag == null ? "" : ",\"output_flags\":[\"" + outFlag + "\"]");
  }

  /**
   * Ten seconds of one arrival every 100 ms with input lengths over 16..2,416 tokens and a knee at 1,024; two
   * bidi inputs of which one garbled; at 5 s a burst of 40 short requests, half of them rejected and the other
   * half slow from queueing alone (1.3 s, as slow as the 2,224-token inputs); one late rejection at 9 s.
   */
  private Path log() throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      int tokens = 16 + (i * 24);
      double compute = 20 + 0.1 * tokens + 0.9 * Math.max(0, tokens - 1024);
      lines.add(rec(String.format("api-%04d", i), i * 0.1, "success", tokens, 1, compute, null, null));
    }
    lines.add(rec("api-bidi-clean", 1.05, "success", 20, 1, 22, "bidi_control", null));
    lines.add(rec("api-bidi-garbled", 2.05, "success", 20, 1, 22, "bidi_control", "repetition"));
    for (int i = 0; i < 40; i++) {
      boolean rejected = i % 2 == 0;
      lines.add(rec(String.format("api-b%03d", i), 5.0 + i * 0.002, rejected ? "rejected" : "success", 30,
          rejected ? 0 : 1277, rejected ? 0.01 : 23, null, null));
    }
    lines.add(rec("api-late-reject", 9.0, "rejected", 30, 0, 0.01, null, null));
    Path log = dir.resolve("inference.log");
    Files.write(log, lines, StandardCharsets.UTF_8);
    return log;
  }

  @Test
  void eachFindingComesWithItsFiguresAndARequestToLookAt() throws IOException {
    LogAnalysis a = LogAnalysis.read(List.of(log()));
    assertThat(a.records()).isEqualTo(143);

    LogAnalysis.KneeFit k = a.knee();
    assertThat(k.found()).as(k.summary()).isTrue();
    assertThat(k.tokens()).isCloseTo(1024, within(100.0));
    assertThat(k.slopeBefore()).isCloseTo(0.1, within(0.03));
    assertThat(k.slopeAfter()).isCloseTo(1.0, within(0.15));

    // Among the slowest by latency are the burst's queued requests; by compute time they are the long inputs.
    assertThat(a.slowest()).anySatisfy(r -> assertThat(r.dominantStage()).isEqualTo("queue"));
    assertThat(a.slowestByCompute()).hasSize(LogAnalysis.TOP).allSatisfy(r -> {
      assertThat(r.inputTokens()).isGreaterThan(1024);
      assertThat(r.dominantStage()).isEqualTo("infer");
      assertThat(r.requestId()).startsWith("api-0");
    });
    LogAnalysis.Slow slow = a.slow();
    assertThat(slow.aboveKnee()).isPositive();
    assertThat(slow.queueBound()).isEqualTo(20);
    assertThat(slow.aboveKnee() + slow.queueBound()).isEqualTo(slow.count());

    LogAnalysis.Garbled g = a.garbled();
    assertThat(g.outputFlagged()).isEqualTo(1);
    assertThat(g.inputFlag()).isEqualTo("bidi_control");
    assertThat(g.withInputFlag()).isEqualTo(1);
    assertThat(g.inputFlagRecords()).isEqualTo(2);
    assertThat(g.example()).isEqualTo("api-bidi-garbled");

    LogAnalysis.Rejected r = a.rejected();
    assertThat(r.count()).isEqualTo(21);
    assertThat(r.nearPeak()).isEqualTo(20);
    assertThat(r.peakArrivals()).isEqualTo(50); // the burst's 40 and that second's 10
    assertThat(r.medianArrivals()).isEqualTo(10);
    assertThat(r.binSeconds()).isEqualTo(1.0);
    assertThat(r.peakOffsetSeconds()).isEqualTo(5.0);
    assertThat(r.example()).isEqualTo("api-b000");
    assertThat(a.sentences()).anySatisfy(s -> assertThat(s).contains("21 requests were rejected, 20 of them during"
        + " the arrival peak (50 arrivals"));
  }

  @Test
  void sparseLongInputsEnterTheKneeFitMergedWithTheirNeighbours() throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 300; i++) { // dense below the knee: 16..1,012 tokens, about 19 per 64-token bucket
      int tokens = 16 + (i * 996) / 300;
      lines.add(rec("api-s" + i, i * 0.1, "success", tokens, 1, 20 + 0.1 * tokens, null, null));
    }
    for (int i = 0; i < 24; i++) { // sparse above it: one every 40 tokens up to 1,950, at most two per bucket
      int tokens = 1030 + 40 * i;
      lines.add(rec("api-l" + i, 30 + i * 0.1, "success", tokens, 1, 20 + 0.1 * tokens + 0.9 * (tokens - 1024), null,
          null));
    }
    Path log = dir.resolve("sparse.log");
    Files.write(log, lines, StandardCharsets.UTF_8);
    LogAnalysis.KneeFit k = LogAnalysis.read(List.of(log)).knee();
    // Dropping the buckets with fewer than three requests would leave only the straight part below 1,024.
    assertThat(k.found()).as(k.summary()).isTrue();
    assertThat(k.tokens()).isCloseTo(1024, within(80.0));
    assertThat(k.slopeAfter()).isCloseTo(1.0, within(0.1));
  }

  private static final Pattern KNEE = Pattern.compile("knee at ([0-9,]+) tokens");

  @Test
  void theFiguresAreTheOnesTrtraceStatsPrints() throws IOException {
    Path log = log();
    LogAnalysis a = LogAnalysis.read(List.of(log));
    Cli cli = Cli.run("stats", log.toString());
    assertThat(cli.code()).isZero();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    a.printStats(new PrintStream(printed, true, StandardCharsets.UTF_8));
    assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo(cli.out());

    Matcher m = KNEE.matcher(cli.out());
    assertThat(m.find()).as(cli.out()).isTrue();
    assertThat(Double.parseDouble(m.group(1).replace(",", ""))).isEqualTo((double) Math.round(a.knee().tokens()));
    assertThat(cli.out()).contains("Slowest 10 successful requests by compute time", "waited longer in the queue");
    a.sentences().forEach(s -> assertThat(cli.out()).contains(s));
  }

  @Test
  void theHtmlIsTheReportCommandsPage() throws IOException {
    Path log = log();
    Path mine = dir.resolve("mine.html");
    Path theirs = dir.resolve("theirs.html");
    LogAnalysis.read(List.of(log)).writeHtml(mine);
    assertThat(Cli.run("report", "--top", "10", "--html", theirs.toString(), log.toString()).code()).isZero();
    assertThat(Files.readString(mine)).isEqualTo(Files.readString(theirs)).contains("<svg");
  }
}
