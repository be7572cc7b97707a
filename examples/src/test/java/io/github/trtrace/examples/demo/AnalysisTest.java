package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.cli.internal.LogAnalysis;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's conclusions are trace-cli's figures in sentences, each finding with a request to look at. */
class AnalysisTest {
  @TempDir Path dir;

  /** Record {@code i} of a log with one record every 50 ms. */
  private static String line(int i, String id, String status, int tokens, double queueMs, double computeMs,
      String flags) {
    return String.format(Locale.ROOT, "{\"timestamp\":\"%s\",\"request_id\":\"%s\",\"model_name\":\"demo\","
        + "\"status\":\"%s\",\"latency_ms\":%.2f,\"input_tokens\":%d,\"queue_ms\":%.2f,\"infer_ms\":%.2f%s}",
        Instant.parse("2026-12-01T10:00:00Z").plusMillis(50L * i), id, status, queueMs + computeMs, tokens,
        queueMs, computeMs, flags);
  }

  private String print(Path log) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Analysis.print(LogAnalysis.read(List.of(log)), log, List.of(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void eachConclusionCarriesTheCliFiguresAndAFindCommand() throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 200; i++) { // 8..2,396 tokens, cost rising past 1,200
      int tokens = 8 + 12 * i;
      lines.add(line(i, "api-demo-" + i, "success", tokens, 0.5, 4 + 0.05 * tokens + 0.3 * Math.max(0, tokens - 1200),
          i == 40 ? ",\"input_flags\":[\"bidi_control\"],\"output_flags\":[\"repetition\"]" : ""));
    }
    for (int i = 0; i < 30; i++) { // a burst at +5 s: ten rejected
      lines.add(line(100, "api-burst-" + i, i < 10 ? "rejected" : "success", 20, i < 10 ? 0 : 60, i < 10 ? 0.01 : 5, ""));
    }
    Path log = dir.resolve("inference.log");
    Files.write(log, lines, StandardCharsets.UTF_8);
    LogAnalysis a = LogAnalysis.read(List.of(log));
    String text = print(log);

    assertThat(text).contains(String.format(Locale.ROOT, "knee at %,.0f input tokens", a.knee().tokens()),
        String.format(Locale.ROOT, "%.3f ms/token below it, %.3f ms/token above", a.knee().slopeBefore(),
            a.knee().slopeAfter()));
    assertThat(a.knee().tokens()).isBetween(1100.0, 1300.0);
    assertThat(text).contains("10 of the 10 slowest by compute time had 1,024+ input tokens",
        "./trtrace find api-demo-199 " + Analysis.display(log), // the longest input computes longest
        "1 outputs were flagged, 1 of them had input flag bidi_control", "./trtrace find api-demo-40 ",
        "all of the 10 rejected", "./trtrace find api-burst-0 ");
  }

  @Test
  void withoutKneeFlagsOrRejectionsItSaysSo() throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int tokens = 8 + 12 * i;
      lines.add(line(i, "api-line-" + i, "success", tokens, 0.5, 4 + 0.2 * tokens, ""));
    }
    Path log = dir.resolve("linear.log");
    Files.write(log, lines, StandardCharsets.UTF_8);
    assertThat(print(log)).contains("1. No clear knee in latency against input length: no knee",
        "2. No output was flagged.", "3. No request was rejected.").doesNotContain("burst's backlog");
  }
}
