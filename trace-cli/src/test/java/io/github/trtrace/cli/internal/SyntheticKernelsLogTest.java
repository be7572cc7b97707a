package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kernel records in the launch log, read by the CLI. The fixture is SYNTHETIC (not captured on a GPU): written by
 * trace-core's real writers (the tracer's records and launch log, kernels lines through {@code
 * SharedLaunch.activityLog()}) with made-up kernels. The H200's own kernel records are read by {@link
 * H200KernelsLogTest}; this fixture keeps what they lack: memcpy and memset activities, and a request only some of
 * whose launches were recorded. Three requests share six launches (a prefill, five decodes); launches 1, 3 and 5
 * had their kernels recorded: per launch a gemm kernel run twice (60 + 20 us in the prefill, 30 + 20 us in a
 * decode), an attention kernel (15 us), a gelu (5 us), a copy and a memset; gpu_ms 0.12 ms (prefill) and 0.06 ms
 * (decode). So over req-k1's recorded launches (0.24 ms): gemm 0.18 ms = 75 %, attention 0.045 ms = 18.75 %, gelu
 * 0.015 ms = 6.25 %.
 */
class SyntheticKernelsLogTest {
  @TempDir static Path dir;

  @BeforeAll
  static void copy() throws IOException {
    Fixtures.copy("synthetic-kernels", dir, "SYNTHETIC-kernels-records.jsonl", "SYNTHETIC-kernels-launches.jsonl");
  }

  @Test
  void explainShowsTheRequestsSlowestKernelsAndTheShareOfLaunchTimeEachTook() {
    Cli r = Cli.run("explain", "req-k1", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("kernels (CUPTI) recorded in 3 of its 6 launches: 0.240 ms of kernels in 0.240 ms of"
        + " launch time (gpu_ms)");
    List<String> rows = r.out().lines().filter(l -> l.contains("gemm_kernel") || l.contains("attention")
        || l.contains("gelu")).toList();
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0)).contains("void gemm_kernel<__half, 128, 64>(__half const*, __half*, int)", "0.180 ms", "75.0 %");
    assertThat(rows.get(1)).contains("sm90_xmma_attention_fwd", "0.045 ms", "18.8 %");
    assertThat(rows.get(2)).contains("gelu_fused_kernel", "0.015 ms", "6.3 %");
    assertThat(r.out()).contains("all 6 of its launches found in the launch log");
    assertThat(r.out()).doesNotContain("HtoD").doesNotContain("malformed");
  }

  @Test
  void kernelsLinesAreNotCountedAsLaunchesAndStatsSaysTheyAreThere() {
    Cli r = Cli.run("stats", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("Batching (6 launches", "Kernel records (CUPTI) for 3 launches, 18 GPU activities")
        .doesNotContain("malformed");
  }

  @Test
  void theHtmlReportDrawsTheRequestsSlowestKernels() throws IOException {
    Path html = dir.resolve("report.html");
    Cli r = Cli.run("report", "--html", html.toString(), "--request", "req-k1", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    String page = Files.readString(html);
    assertThat(page).contains("<table id=\"request-kernels\">", "void gemm_kernel&lt;__half, 128, 64&gt;",
        "<rect x=\"0\" y=\"1\" height=\"10\" width=\"120.0\"></rect></svg> 75.0 %");
  }

  @Test
  void aRequestWithoutRecordedLaunchesHasNoKernelSection() throws IOException {
    Path plain = Files.createDirectories(dir.resolve("no-kernels"));
    List<String> launchLines = Files.readAllLines(dir.resolve("SYNTHETIC-kernels-launches.jsonl")).stream()
        .filter(l -> !l.contains("\"kernels\":")).toList();
    Files.write(plain.resolve("launches.jsonl"), launchLines);
    Files.copy(dir.resolve("SYNTHETIC-kernels-records.jsonl"), plain.resolve("records.jsonl"));
    Cli r = Cli.run("explain", "req-k1", plain.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).doesNotContain("kernels (CUPTI)");
  }

  /**
   * The fixture's lines are of the version before kernels lines said whether they are complete (no {@code complete}
   * field: read as before, nothing said). Here the first recorded launch's line says {@code "complete": false} and the
   * others {@code "complete": true}, as the recorder writes them now.
   */
  @Test
  void explainStatsAndReportSayWhenALaunchsKernelListIsIncomplete() throws IOException {
    Path marked = withKernelsFields("incomplete", ",\"complete\":false,\"unmatched_calls\":2",
        ",\"complete\":true", ",\"complete\":true");

    Cli explain = Cli.run("explain", "req-k1", marked.toString());
    assertThat(explain.code()).as(explain.err()).isZero();
    assertThat(explain.out()).contains("kernels (CUPTI) recorded in 3 of its 6 launches: 0.240 ms of kernels in 0.240 ms"
        + " of launch time (gpu_ms); 1 of these lists is incomplete (the recorder stopped waiting for their launch's"
        + " records: kernels may be missing); slowest:").doesNotContain("malformed");

    Cli stats = Cli.run("stats", marked.toString());
    assertThat(stats.code()).as(stats.err()).isZero();
    assertThat(stats.out()).contains("Kernel records (CUPTI) for 3 launches, 18 GPU activities (1 of the lists"
        + " incomplete: the recorder stopped waiting for their launch's records)").doesNotContain("malformed");

    Path html = marked.resolve("report.html");
    Cli report = Cli.run("report", "--html", html.toString(), "--request", "req-k1", marked.toString());
    assertThat(report.code()).as(report.err()).isZero();
    assertThat(Files.readString(html)).contains("of launch time (gpu_ms); 1 of these lists is incomplete (the recorder"
        + " stopped waiting for their launch&#39;s records: kernels may be missing).</p>");
  }

  /**
   * Since run 15 the recorder writes, from the launch's API records, how long the device waited for the host
   * ({@code host_wait_ms}); explain and the HTML report sum it over the launches whose line says it. Here two of the
   * three recorded launches say 0.012 and 0.018 ms, of their 0.12 + 0.06 ms.
   */
  @Test
  void explainAndReportSayHowLongTheDeviceWaitedForTheHost() throws IOException {
    Path timed = withKernelsFields("host-wait", ",\"lead_in_ms\":0.004,\"host_wait_ms\":0.012",
        ",\"lead_in_ms\":0.004,\"host_wait_ms\":0.018", "");

    Cli explain = Cli.run("explain", "req-k1", timed.toString());
    assertThat(explain.code()).as(explain.err()).isZero();
    assertThat(explain.out()).contains("of launch time (gpu_ms); the device waited for the host 0.030 ms of 0.180 ms"
        + " (16.7 %) in the 2 launches whose line says; slowest:").doesNotContain("malformed");

    Path html = timed.resolve("report.html");
    Cli report = Cli.run("report", "--html", html.toString(), "--request", "req-k1", timed.toString());
    assertThat(report.code()).as(report.err()).isZero();
    assertThat(Files.readString(html)).contains("the device waited for the host 0.030 ms of 0.180 ms (16.7 %)");
    assertThat(Cli.run("explain", "req-k1", dir.toString()).out()).as("lines that do not say it: nothing said")
        .doesNotContain("waited for the host");
  }

  /**
   * The fixture's records and launch log in folder {@code name}, the i-th kernels line given {@code fields[i]}
   * (JSON members with their leading comma; "" leaves it as it is) before its closing brace.
   */
  private Path withKernelsFields(String name, String... fields) throws IOException {
    Path out = Files.createDirectories(dir.resolve(name));
    int[] n = {0};
    List<String> launchLines = Files.readAllLines(dir.resolve("SYNTHETIC-kernels-launches.jsonl")).stream()
        .map(l -> l.contains("\"kernels\":") ? l.substring(0, l.lastIndexOf('}')) + fields[n[0]++] + "}" : l)
        .toList();
    assertThat(n[0]).as("kernels lines in the fixture").isEqualTo(fields.length);
    Files.write(out.resolve("launches.jsonl"), launchLines);
    Files.copy(dir.resolve("SYNTHETIC-kernels-records.jsonl"), out.resolve("records.jsonl"));
    return out;
  }

  @Test
  void linesWithoutTheCompleteFieldSayNothingOfIt() {
    Cli r = Cli.run("explain", "req-k1", dir.toString());
    assertThat(r.out()).doesNotContain("incomplete");
    assertThat(Cli.run("stats", dir.toString()).out()).doesNotContain("lists incomplete");
  }
}
