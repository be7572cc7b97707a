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
 * The demo's own logs from the H200 (TensorRT 10.6, run 27a of 2026-12-02, 11:19 UTC; command and provenance in
 * {@code h200-demo-kernels/README.md} and {@code trace-tensorrt/GPU-RESULTS.md}, "Runs 20 to 27"): a served load by
 * continuous batching with CUPTI kernel records for 5 % of the launches (179 {@code kernels} lines among 3,598
 * launches) and CUPTI's copy records off, as they are by default since that run. Read as an operator would: {@code
 * trtrace explain} on a request whose decode steps ran at batch 9-11 names the kernel that takes the largest share of
 * its recorded launches, with the figure summed here from the file itself.
 */
class H200DemoKernelsLogTest {
  static final String LAUNCHES = "demo-launches.jsonl.gz";
  /** The Myelin kernel of the key/value append (transposes, slices, casts, the concatenation). */
  static final String KV_APPEND = "__myl_TraSliResCasConSliResCasConSliTraRepCasCas_";

  @TempDir static Path dir;

  @BeforeAll
  static void copy() throws IOException {
    Fixtures.copy("h200-demo-kernels", dir, "demo-records.jsonl.gz", LAUNCHES);
  }

  @Test
  void explainNamesTheKeyValueAppendAsTheSlowestKernelOfABatchedRequestsRecordedLaunches() throws IOException {
    Map<Long, JsonNode> kernels = new HashMap<>();
    List<JsonNode> lines = Fixtures.gzipJsonLines(dir.resolve(LAUNCHES));
    for (JsonNode l : lines) {
      if (l.has("kernels")) {
        kernels.put(l.get("launch_id").asLong(), l);
      }
    }
    int recorded = 0;
    int all = 0;
    double launchMs = 0;
    double appendMs = 0;
    for (JsonNode l : lines) {
      if (l.has("kernels") || !Fixtures.hasMember(l, "api-demo-0050")) {
        continue;
      }
      all++;
      JsonNode k = kernels.get(l.get("launch_id").asLong());
      if (k == null) {
        continue;
      }
      recorded++;
      launchMs += l.get("gpu_ms").asDouble();
      for (JsonNode a : k.get("kernels")) {
        if (a.get("name").asText().startsWith(KV_APPEND)) {
          appendMs += a.get("ms").asDouble();
        }
      }
    }
    assertThat(recorded).isEqualTo(3);
    Cli r = Cli.run("explain", "api-demo-0050", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains(String.format(Locale.ROOT, "kernels (CUPTI) recorded in %d of its %d launches",
        recorded, all));
    List<String> out = r.out().lines().toList();
    int header = out.indexOf(out.stream().filter(s -> s.matches("^  kernel\\s+ms\\s+launches\\s+share of launch time$"))
        .findFirst().orElseThrow(() -> new AssertionError("no kernel table in:\n" + r.out())));
    String first = out.get(header + 1);
    assertThat(first).startsWith("  " + KV_APPEND)
        .contains(String.format(Locale.ROOT, "%.2f ms", appendMs))
        .endsWith(String.format(Locale.ROOT, "%.1f %%", 100 * appendMs / launchMs));
  }

  @Test
  void withCopyRecordsOffNoKernelsLineListsACopyAndEveryOneIsComplete() throws IOException {
    int kernelsLines = 0;
    for (JsonNode l : Fixtures.gzipJsonLines(dir.resolve(LAUNCHES))) {
      if (!l.has("kernels")) {
        continue;
      }
      kernelsLines++;
      assertThat(l.get("complete").asBoolean()).as(l.get("launch_id").asText()).isTrue();
      for (JsonNode a : l.get("kernels")) {
        assertThat(a.get("kind").asText()).isNotEqualTo("memcpy");
      }
    }
    assertThat(kernelsLines).isEqualTo(179);
  }
}
