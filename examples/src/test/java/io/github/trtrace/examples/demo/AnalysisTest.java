package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.cli.internal.LogAnalysis;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.testing.InMemorySink;
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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    assertThat(text).contains("10 of the 10 slowest by compute time (latency less queue) had 1,024+ input tokens",
        "./trtrace find api-demo-199 " + Analysis.display(log), // the longest input computes longest
        "1 outputs were flagged, 1 of them had input flag bidi_control", "./trtrace find api-demo-40 ",
        "all of the 10 rejected", "./trtrace find api-burst-0 ");
  }

  /**
   * Batched records: field case 1 from each request's CPU-time compute share (the wall clock here is
   * noise, as under contention), field case 3 names the victims and the culprit from the records' batching
   * fields ({@code slowed_by}) and the CPU time of their decode steps in the launch log ({@code gpu_ms}; their
   * {@code host_ms} is noise here too).
   */
  @Test
  void batchedRecordsGiveTheCpuTimeKneeAndNameTheNeighboursWhosePrefillSlowedTheOthers() throws IOException {
    Path log = dir.resolve("batched.log");
    Batched b = batched();
    Files.write(log, b.records(), StandardCharsets.UTF_8);
    Files.write(DemoService.launchLog(log), b.launches(), StandardCharsets.UTF_8);
    BatchFindings f = BatchFindings.read(log);
    String text = print(log);

    assertThat(f.knee()).isNotNull();
    assertThat(f.knee().found()).as(text).isTrue();
    assertThat(f.knee().tokens()).isBetween(1150.0, 1450.0);
    assertThat(text).contains(String.format(Locale.ROOT, "compute per token rises past a knee at %,.0f input tokens",
        f.knee().tokens()), "gpu_ms_method weighted", "trtrace stats' wall-clock fit",
        "3. Long prompts arriving while others decode inflate their TPOT: 3 requests had a TPOT 1.5x or more what their"
            + " decode-only steps cost, because other requests' prefill shared their steps",
        "a decode step that also ran another request's prefill cost a median 30.0x the CPU time of one without",
        "victim api-b-5: 9 of its 31 decode steps ran beside a prefill, 30.0 ms CPU each against 1.0 ms; TPOT 9.4 ms"
            + " CPU (9.4x), 30.0 ms by the clock",
        "slowed most by api-doc (2,048 of its prompt tokens in those steps)",
        "culprits: api-doc (2,048-token prompt) slowed 3 of them", "./trtrace find api-doc ",
        "4. No request was rejected.", "5. Hostile X-Request-IDs");
  }

  /** Records and launch log: 120 chats of 8..2,388 tokens, three of them decoding beside api-doc's prefill. */
  private record Batched(List<String> records, List<String> launches) {}

  private static Batched batched() {
    List<String> lines = new ArrayList<>();
    List<String> launches = new ArrayList<>();
    long[] launchId = {0};
    java.util.SplittableRandom noise = new java.util.SplittableRandom(3);
    for (int i = 0; i < 120; i++) {
      int tokens = 8 + 20 * i;
      double cpu = 2 + 0.09 * tokens + 0.12 * Math.max(0, tokens - 1300);
      boolean victim = i % 40 == 5; // three chats decoding beside api-doc-<i+1>'s prefill
      String id = "api-b-" + i;
      double tpot = victim ? 30 : 3 + noise.nextDouble();
      for (int step = 0; step < 31; step++) { // its decode steps in the launch log: 9 beside api-doc's prefill
        boolean beside = victim && step < 9;
        launches.add(String.format(Locale.ROOT, "{\"launch_id\":%d,\"prefill_tokens\":%d,\"gpu_ms\":%.1f,"
            + "\"host_ms\":%.1f,\"members\":[{\"request_id\":\"%s\",\"decode_rows\":1}%s]}", ++launchId[0],
            beside ? 228 : 0, beside ? 30.0 : 1.0, beside ? 90.0 : 3.0 + 60 * noise.nextDouble(), id,
            beside ? ",{\"request_id\":\"api-doc\",\"prefill_tokens\":228}" : ""));
      }
      String fields = String.format(Locale.ROOT, ",\"tpot_ms\":%.2f,\"gpu_ms\":%.3f,\"gpu_ms_method\":\"weighted\","
          + "\"launch_count\":32%s", tpot, cpu, victim ? ",\"slowed_by\":[{\"request_id\":\"api-doc\","
          + "\"prefill_tokens\":2048,\"launches\":9},{\"request_id\":\"api-b-7\",\"prefill_tokens\":40,"
          + "\"launches\":1}]" : "");
      lines.add(line(i, id, "success", tokens, 0.5, 50 * noise.nextDouble() + cpu * (1 + 3 * noise.nextDouble()),
          fields));
    }
    lines.add(line(120, "api-doc", "success", 2048, 0.5, 400, ""));
    return new Batched(lines, launches);
  }

  /**
   * With kernel records on, trace-core's launch log also holds a {@code kernels} line (CUPTI's activities of one
   * launch, no members, no {@code gpu_ms}) after each recorded launch's line: the demo's findings read from such a
   * log are the same as from the log without them. The kernels lines are written by trace-core's own launch log.
   */
  @Test
  void kernelsLinesInTheLaunchLogLeaveTheFindingsAsTheyAre() throws Exception {
    Batched b = batched();
    String kernels = kernelsLine(dir.resolve("kernels-source.log"));
    List<String> withKernels = new ArrayList<>();
    for (String l : b.launches()) {
      withKernels.add(l);
      Matcher id = Pattern.compile("\\{\"launch_id\":(\\d+),").matcher(l);
      assertThat(id.lookingAt()).as(l).isTrue();
      withKernels.add(kernels.replaceFirst("\"launch_id\":\\d+,", "\"launch_id\":" + id.group(1) + ","));
    }
    assertThat(withKernels).hasSize(2 * b.launches().size());
    Path plain = Files.createDirectories(dir.resolve("plain")).resolve("batched.log");
    Path recorded = Files.createDirectories(dir.resolve("recorded")).resolve("batched.log");
    for (Path log : List.of(plain, recorded)) {
      Files.write(log, b.records(), StandardCharsets.UTF_8);
    }
    Files.write(DemoService.launchLog(plain), b.launches(), StandardCharsets.UTF_8);
    Files.write(DemoService.launchLog(recorded), withKernels, StandardCharsets.UTF_8);

    BatchFindings without = BatchFindings.read(plain);
    BatchFindings with = BatchFindings.read(recorded);
    assertThat(with.requests()).isEqualTo(without.requests());
    assertThat(with.victims()).isEqualTo(without.victims()).hasSize(3);
    assertThat(with.culprits()).isEqualTo(without.culprits());
    assertThat(with.stepRatio()).isEqualTo(without.stepRatio());
    assertThat(with.medianCpuTpotMs()).isEqualTo(without.medianCpuTpotMs());
    String text = print(recorded).replace(Analysis.display(recorded), "LOG");
    assertThat(text).isEqualTo(print(plain).replace(Analysis.display(plain), "LOG"))
        .contains("3 requests had a TPOT 1.5x or more what their decode-only steps cost");
  }

  /** One {@code kernels} line as trace-core's launch log writes it: a gemm kernel and a copy of one launch. */
  private static String kernelsLine(Path launchLog) throws Exception {
    try (InferenceTracer tracer = InferenceTracer.builder()
        .sink(InMemorySink.create()).launchLog(launchLog).build()) {
      long id;
      SharedLaunch.ActivityLog activities;
      try (SharedLaunch l = tracer.launch(null)) {
        id = l.id();
        activities = l.activityLog();
      }
      long t0 = 1_000_000_000L;
      assertThat(activities.write(id, List.of(
          new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.MEMCPY,
              "HtoD", t0, t0 + 2_000, 0, 0, 0, 0, 0, 0, 4096),
          new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.KERNEL,
              "sm80_xmma_gemm_f16f16_f16f16_f16_nn_n_tilesize32x32x64_stage6_warpsize2x2x1_tensor16x8x16_execute_kernel_trt",
              t0 + 3_000, t0 + 53_000, 64, 2, 1, 128, 1, 1, 0)), 0)).isTrue();
      tracer.flush().get(30, TimeUnit.SECONDS);
    }
    return Files.readAllLines(launchLog).stream().filter(l -> l.contains("\"kernels\":[")).findFirst().orElseThrow();
  }

  /** The slowest by compute are listed with their compute time (latency less queue), not their latency. */
  @Test
  void theSlowestByComputeAreShownWithTheirComputeTime() throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 60; i++) { // long inputs that queued a long time before computing
      int tokens = 8 + 40 * i;
      lines.add(line(i, "api-q-" + i, "success", tokens, 5000, 10 + 0.5 * tokens, ""));
    }
    Path log = dir.resolve("queued.log");
    Files.write(log, lines, StandardCharsets.UTF_8);
    String text = print(log);
    double compute = 10 + 0.5 * (8 + 40 * 59);
    assertThat(text).contains(String.format(Locale.ROOT, "api-q-59  2,368 tokens  compute %.0f ms  (latency %.0f ms,"
        + " queue 5000 ms", compute, 5000 + compute));
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
        "2. No output was flagged.", "3. No batched records", "4. No request was rejected.").doesNotContain("burst's backlog");
  }
}
