package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kernel records captured on the H200 (TensorRT 10.6, GPU check run 3 of 2026-12-02, 04:24 UTC; the command is in
 * {@code trace-tensorrt/GPU-RESULTS.md}, section "Runs 3 and 4", and in {@code h200-kernels/README.md}): the
 * kernel-record check recorded every launch with CUPTI, decode at B = 1, 8 and 32 (20 launches each, 72 kernels a
 * launch) and 10 prefill launches of 4 x 64 tokens (64 kernels each), so the launch log holds 70 launch lines and 70
 * {@code kernels} lines beside 45 records. The files are never edited (only gzipped). What the CLI prints is held
 * against the files themselves, read here with Jackson's tree model, apart from the CLI's streaming parser.
 */
class H200KernelsLogTest {
  static final List<String> FILES = List.of("kernels-records.jsonl.gz", "kernels-launches.jsonl.gz");
  /** One row of explain's kernel table: name (cut at 80 characters), ms, launches, share. */
  static final Pattern ROW = Pattern.compile("^  (\\S.*?)\\s+([0-9.]+) ms\\s+([0-9,]+)\\s+([0-9.]+) %$");
  /** A TensorRT gemm kernel that ran in every decode launch. */
  static final String GEMM = "sm80_xmma_gemm_f16f16_f16f16_f16_nn_n_tilesize32x32x64_stage6_warpsize2x2x1_tensor16x8x16";

  @TempDir static Path dir;

  @BeforeAll
  static void copy() throws IOException {
    Fixtures.copy("h200-kernels", dir, FILES.toArray(String[]::new));
  }

  static List<JsonNode> lines(String file) throws IOException {
    return Fixtures.gzipJsonLines(dir.resolve(file));
  }

  /** What a request's recorded launches ran, summed from the file: launch time (gpu_ms) and ms by kernel name. */
  record Expected(int launches, double launchMs, double kernelMs, List<Map.Entry<String, Double>> byName) {
    static Expected of(String requestId) throws IOException {
      Map<Long, JsonNode> kernelsLines = new HashMap<>();
      List<JsonNode> launchLines = new ArrayList<>();
      for (JsonNode l : lines("kernels-launches.jsonl.gz")) {
        if (l.has("kernels")) {
          kernelsLines.put(l.get("launch_id").asLong(), l);
        } else {
          launchLines.add(l);
        }
      }
      int launches = 0;
      double launchMs = 0;
      double kernelMs = 0;
      Map<String, Double> byName = new HashMap<>();
      for (JsonNode l : launchLines) {
        boolean member = false;
        for (JsonNode m : l.get("members")) {
          member |= m.get("request_id").asText().equals(requestId);
        }
        if (!member) {
          continue;
        }
        launches++;
        launchMs += l.get("gpu_ms").asDouble();
        for (JsonNode a : kernelsLines.get(l.get("launch_id").asLong()).get("kernels")) {
          if (a.get("kind").asText().equals("kernel")) {
            byName.merge(a.get("name").asText(), a.get("ms").asDouble(), Double::sum);
            kernelMs += a.get("ms").asDouble();
          }
        }
      }
      List<Map.Entry<String, Double>> sorted = new ArrayList<>(byName.entrySet());
      sorted.sort(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder())
          .thenComparing(Map.Entry.comparingByKey())); // ties by name, as the CLI
      return new Expected(launches, launchMs, kernelMs, sorted);
    }
  }

  /** As explain prints kernel times: three decimals below 1 ms, two above. */
  static String ms(double ms) {
    return String.format(Locale.ROOT, ms < 1 ? "%.3f ms" : "%.2f ms", ms);
  }

  @ParameterizedTest
  @ValueSource(strings = {"kern-dec1-0", "kern-dec8-0", "kern-dec32-5", "kern-pre-2"})
  void explainListsTheRequestsSlowestKernelsByTimeWithTheirShareOfItsLaunchesTime(String id) throws IOException {
    Expected want = Expected.of(id);
    Cli r = Cli.run("explain", id, dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains(String.format(Locale.ROOT, "kernels (CUPTI) recorded in %d of its %d launches: %s of"
        + " kernels in %s of launch time (gpu_ms); slowest:", want.launches(), want.launches(), ms(want.kernelMs()),
        ms(want.launchMs()))).doesNotContain("malformed");
    List<String> out = r.out().lines().toList();
    int header = out.indexOf(out.stream().filter(l -> l.matches("^  kernel\\s+ms\\s+launches\\s+share of launch time$"))
        .findFirst().orElseThrow(() -> new AssertionError("no kernel table in:\n" + r.out())));
    List<Matcher> rows = new ArrayList<>();
    for (int i = header + 1; i < out.size(); i++) {
      Matcher m = ROW.matcher(out.get(i));
      if (!m.matches()) {
        break;
      }
      rows.add(m);
    }
    assertThat(rows).as(r.out()).hasSize(Math.min(KernelBreakdown.LISTED, want.byName().size()));
    double previous = Double.MAX_VALUE;
    double shares = 0;
    for (int i = 0; i < rows.size(); i++) {
      Matcher row = rows.get(i);
      Map.Entry<String, Double> k = want.byName().get(i);
      String name = row.group(1);
      // the slowest first, the same kernels in the same order as summed from the file (names cut at 80 characters)
      assertThat(k.getKey()).as(out.get(header + 1 + i))
          .startsWith(name.endsWith("…") ? name.substring(0, 79) : name);
      double rowMs = Double.parseDouble(row.group(2));
      assertThat(row.group(2) + " ms").isEqualTo(ms(k.getValue()));
      assertThat(rowMs).isLessThanOrEqualTo(previous);
      previous = rowMs;
      assertThat(Integer.parseInt(row.group(3))).isEqualTo(want.launches());
      double share = Double.parseDouble(row.group(4));
      assertThat(share).isCloseTo(100 * k.getValue() / want.launchMs(), org.assertj.core.data.Offset.offset(0.051));
      shares += share;
    }
    assertThat(shares).isGreaterThan(0).isLessThanOrEqualTo(100);
    assertThat(rows.stream().map(m -> m.group(1))).anyMatch(n -> n.startsWith(GEMM.substring(0, 60)));
  }

  @Test
  void explainOfABatchOfEightNamesTheMyelinFusionFirstAndTensorRtsGemmsBehindIt() {
    Cli r = Cli.run("explain", "kern-dec8-0", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("all 20 of its launches found in the launch log",
        "kernels (CUPTI) recorded in 20 of its 20 launches: 8.26 ms of kernels in 24.92 ms of launch time (gpu_ms)");
    List<String> rows = r.out().lines().filter(l -> l.matches(ROW.pattern())).toList();
    assertThat(rows.get(0)).contains("__myl_TraSliResConSliResConSliTraRep_0xe2ab82d13afda58b0184b36fcf860b49",
        "2.68 ms", "10.8 %");
    assertThat(rows.get(1)).contains(GEMM.substring(0, 79), "1.00 ms", "4.0 %");
  }

  @Test
  void statsCountsTheKernelsLinesAsKernelRecordsNotAsLaunches() throws IOException {
    List<JsonNode> launchLog = lines("kernels-launches.jsonl.gz");
    long kernelsLines = launchLog.stream().filter(l -> l.has("kernels")).count();
    long activities = launchLog.stream().filter(l -> l.has("kernels")).mapToLong(l -> l.get("kernels").size()).sum();
    assertThat(kernelsLines).isEqualTo(70);
    assertThat(launchLog).hasSize(140);
    assertThat(activities).isEqualTo(20 * 72 * 3 + 10 * 64);

    Cli r = Cli.run("stats", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("trtrace stats: 185 lines in 2 files: 45 records, 140 launch-log lines",
        "Batching (70 launches, 45 successful requests with launches and TPOT)",
        "Kernel records (CUPTI) for 70 launches, 4,960 GPU activities",
        "Launch shares add up to gpu_ms in all 70 launches that could be checked (of 70)")
        .containsPattern("(?m)^  decode\\s+60$").containsPattern("(?m)^  prefill\\s+10$")
        .doesNotContain("malformed").doesNotContain("torn");
  }

  @Test
  void theHtmlReportDrawsTheRequestsKernelTable() throws IOException {
    Path html = dir.resolve("report.html");
    Cli r = Cli.run("report", "--html", html.toString(), "--request", "kern-dec8-0", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    String page = Files.readString(html);
    int start = page.indexOf("<table id=\"request-kernels\">");
    assertThat(start).as("table#request-kernels").isPositive();
    assertThat(page).contains("CUPTI kernel records of 20 of its 20 launches: 8.26 ms of kernels in 24.92 ms of launch"
        + " time (gpu_ms).");
    String table = page.substring(start, page.indexOf("</table>", start));
    assertThat(table.split("<tr><td class=\"mono\"", -1)).hasSize(1 + KernelBreakdown.LISTED);
    assertThat(table).contains("title=\"__myl_TraSliResConSliResConSliTraRep_0xe2ab82d13afda58b0184b36fcf860b49\"",
        "<td>2.68 ms</td><td>20</td>", "10.8 %</td>", GEMM);
    assertThat(table.indexOf("__myl_TraSliResCon")).isLessThan(table.indexOf(GEMM));
  }

  /** The run's build report of the engine those launches ran (fingerprint 97bf21ee...), unzipped into {@code at}. */
  static Path buildReport(Path at) throws IOException {
    return Fixtures.gunzip("/h200-kernels/transformer-batched.plan.build.json.gz",
        at.resolve("transformer-batched.plan.build.json"));
  }

  @Test
  void explainWithTheEnginesBuildReportSumsTheKernelsByTheEngineLayerThatRanThem(@TempDir Path reports) throws IOException {
    Path file = buildReport(reports);
    io.github.trtrace.tensorrt.model.build.BuildReport report = io.github.trtrace.tensorrt.model.build.BuildReport.read(file);
    // expected, from the files: every kernels line of the request's launches, its kernels given to layers by the model
    Map<Long, JsonNode> kernelsLines = new HashMap<>();
    List<JsonNode> mine = new ArrayList<>();
    for (JsonNode l : lines("kernels-launches.jsonl.gz")) {
      if (l.has("kernels")) {
        kernelsLines.put(l.get("launch_id").asLong(), l);
      } else if (l.get("members").findValuesAsText("request_id").contains("kern-dec8-0")) {
        mine.add(l);
      }
    }
    Map<String, Double> byLayer = new HashMap<>();
    double launchMs = 0;
    int kernels = 0;
    for (JsonNode l : mine) {
      launchMs += l.get("gpu_ms").asDouble();
      List<String> names = new ArrayList<>();
      List<Double> ms = new ArrayList<>();
      for (JsonNode a : kernelsLines.get(l.get("launch_id").asLong()).get("kernels")) {
        if (a.get("kind").asText().equals("kernel")) {
          names.add(a.get("name").asText());
          ms.add(a.get("ms").asDouble());
        }
      }
      List<io.github.trtrace.tensorrt.model.build.BuildReport.Layer> ran = report.layersOfKernels(names);
      for (int i = 0; i < ran.size(); i++) {
        assertThat(ran.get(i)).as(names.get(i)).isNotNull();
        byLayer.merge(ran.get(i).name(), ms.get(i), Double::sum);
      }
      kernels += names.size();
    }
    assertThat(kernels).isEqualTo(20 * 72);
    List<Map.Entry<String, Double>> want = new ArrayList<>(byLayer.entrySet());
    want.sort(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder()).thenComparing(Map.Entry.comparingByKey()));

    Cli r = Cli.run("explain", "kern-dec8-0", dir.toString(), "--build-report", file.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("by engine layer (build report of engine 97bf21eebf18; its tactics named 1440 of 1440"
        + " kernels):").doesNotContain("WARNING");
    List<String> out = r.out().lines().toList();
    int header = out.indexOf(out.stream().filter(l -> l.startsWith("  engine layer ")).findFirst()
        .orElseThrow(() -> new AssertionError("no layer table in:\n" + r.out())));
    for (int i = 0; i < KernelBreakdown.LISTED; i++) {
      Map.Entry<String, Double> w = want.get(i);
      String row = out.get(header + 1 + i);
      assertThat(row).as(r.out()).startsWith("  " + w.getKey() + " ").contains(ms(w.getValue()) + "        20",
          String.format(Locale.ROOT, "%.1f %%", 100 * w.getValue() / launchMs));
    }
    // the slowest layer is block 0's fused attention (the key/value append among what it absorbed)
    assertThat(out.get(header + 1)).contains("__myl_TraSliResConSliResConSliTraRep_myl9_3",
        "block0.attn_split_heads, block0.attn_v, block0.attn_k +5");
  }

  @Test
  void aBuildReportOfAnotherEngineIsSaidAndLeftOut(@TempDir Path reports) throws IOException {
    Path file = buildReport(reports);
    Files.writeString(file, Files.readString(file).replace("97bf21eebf18232b4a8d8dd58b5980a217e06c15116a114808470c424adab3c2",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
    Cli r = Cli.run("explain", "kern-dec8-0", dir.toString(), "--build-report", file.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("WARNING the build report (engine 0123456789ab) is not of the engine that ran 20 of its"
        + " recorded launches; those are left out of the layer table").doesNotContain("by engine layer");
  }

  @Test
  void aFileThatIsNotABuildReportIsAClearError(@TempDir Path reports) throws IOException {
    Path file = Files.writeString(reports.resolve("x.json"), "{\"status\":\"nope\"}");
    Cli r = Cli.run("explain", "kern-dec8-0", dir.toString(), "--build-report", file.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("trtrace explain:", "x.json", "not a build report");
  }

  @Test
  void theHtmlReportDrawsTheLayerTableWithTheBuildReport(@TempDir Path reports) throws IOException {
    Path html = reports.resolve("report.html");
    Cli r = Cli.run("report", "--html", html.toString(), "--request", "kern-dec8-0", "--build-report",
        buildReport(reports).toString(), dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    String page = Files.readString(html);
    int start = page.indexOf("<table id=\"request-layers\">");
    assertThat(start).as("table#request-layers").isPositive();
    assertThat(page).contains("Build report of engine 97bf21eebf18: its tactics named 1440 of 1440 kernels.");
    String table = page.substring(start, page.indexOf("</table>", start));
    assertThat(table.split("<tr><td class=\"mono\"", -1)).hasSize(1 + KernelBreakdown.LISTED);
    // the first row: the layer explain lists first, its time and the network layers it absorbed
    Cli explain = Cli.run("explain", "kern-dec8-0", dir.toString(), "--build-report", buildReport(reports).toString());
    String first = explain.out().lines().dropWhile(l -> !l.startsWith("  engine layer ")).skip(1).findFirst().orElseThrow();
    String layer = first.trim().split("\\s+")[0];
    assertThat(table).contains("title=\"" + layer + "\"", "block0.attn_split_heads, block0.attn_v, block0.attn_k +5");
    // without the build report there is no layer table
    Cli plain = Cli.run("report", "--html", html.toString(), "--request", "kern-dec8-0", dir.toString());
    assertThat(plain.code()).isZero();
    assertThat(Files.readString(html)).doesNotContain("request-layers");
  }
}
