package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's own logs from the H200 (TensorRT 10.6, run 31 of 2026-12-02, 12:47 UTC; command and provenance in
 * {@code h200-demo-layers/README.md} and {@code trace-tensorrt/GPU-RESULTS.md}, "Runs 28 to 32"): a served load by
 * continuous batching with 5 % of the launches profiled, each profiled launch's layer table in its launch line. Read as
 * an operator would: {@code trtrace explain} on a request two of whose launches were profiled (a mixed step of 16 rows
 * and a decode step of 15) sums its engine layers over them, with the figures summed here from the file itself.
 */
class H200DemoLayersLogTest {
  static final String LAUNCHES = "demo-launches.jsonl.gz";
  static final String REQUEST = "api-demo-0078";

  @TempDir static Path dir;

  @BeforeAll
  static void copy() throws IOException {
    Fixtures.copy("h200-demo-layers", dir, "demo-records.jsonl.gz", LAUNCHES);
  }

  @Test
  void explainSumsTheEngineLayersOfTheRequestsProfiledLaunches() throws IOException {
    int launches = 0;
    int profiled = 0;
    double launchMs = 0;
    double layerMs = 0;
    Map<String, Double> byLayer = new HashMap<>();
    for (JsonNode l : Fixtures.gzipJsonLines(dir.resolve(LAUNCHES))) {
      if (!Fixtures.hasMember(l, REQUEST)) {
        continue;
      }
      launches++;
      if (!l.has("layers")) {
        continue;
      }
      profiled++;
      launchMs += l.get("gpu_ms").asDouble();
      for (JsonNode t : l.get("layers")) {
        layerMs += t.get("ms").asDouble();
        byLayer.merge(t.get("name").asText(), t.get("ms").asDouble(), Double::sum);
      }
    }
    Map.Entry<String, Double> slowest = byLayer.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow();
    assertThat(profiled).isEqualTo(2);

    Cli r = Cli.run("explain", REQUEST, dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains(String.format(Locale.ROOT, "engine layers (TensorRT's profiler) in %d of its %d launches:"
        + " %s of layers in %s of launch time", profiled, launches, KernelBreakdown.ms(layerMs), KernelBreakdown.ms(launchMs)));
    List<String> out = r.out().lines().toList();
    int header = out.indexOf(out.stream().filter(s -> s.matches("^  engine layer\\s+ms\\s+launches\\s+share of launch time$"))
        .findFirst().orElseThrow(() -> new AssertionError("no layer table in:\n" + r.out())));
    assertThat(out.get(header + 1)).startsWith("  " + slowest.getKey())
        .contains(KernelBreakdown.ms(slowest.getValue()))
        .endsWith(String.format(Locale.ROOT, "%.1f %%", 100 * slowest.getValue() / launchMs));
  }

  @Test
  void theHtmlReportListsTheSameLayersForTheRequest() throws IOException {
    Path html = dir.resolve("report.html");
    Cli r = Cli.run("report", "--html", html.toString(), "--request", REQUEST, dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    String page = java.nio.file.Files.readString(html);
    int start = page.indexOf("<table id=\"request-profiled-layers\">");
    assertThat(start).as("table#request-profiled-layers").isPositive();
    assertThat(page).contains("TensorRT's profiler in 2 of its 33 launches");
    String table = page.substring(start, page.indexOf("</table>", start));
    assertThat(table.split("<tr><td class=\"mono\"", -1)).hasSize(1 + KernelBreakdown.LISTED);
    Cli explain = Cli.run("explain", REQUEST, dir.toString());
    String firstRow = explain.out().lines().dropWhile(s -> !s.matches("^  engine layer\\s+ms.*")).skip(1).findFirst()
        .orElseThrow();
    assertThat(table).contains("title=\"" + firstRow.trim().split("\\s+")[0] + "\"");
  }

  @Test
  void aRequestWithNoProfiledLaunchHasNoLayerSection() {
    Cli r = Cli.run("explain", "api-demo-0007", dir.toString()); // none of its launches was profiled
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).doesNotContain("engine layers (TensorRT's profiler)");
  }
}
