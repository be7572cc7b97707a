package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launch log and records of a served load captured on the H200 (GPU check, TensorRT 10.6, 2026-12-02 run 2:
 * {@code gpu-runs/gpucheck-2026-12-02-trt10.6-batched-run2.txt}): 280 requests by continuous batching through
 * {@code TracedEngine.launch(SharedLaunch, ...)}, each launch timed once with CUDA events, with 128-token prompts
 * arriving while short requests decode. The files are read as an operator would: {@code trtrace explain} names
 * the long prompts as the victim's culprits, and every launch and record conserves the measured GPU time.
 */
class H200BatchedLogTest {
  @TempDir static Path dir;

  @BeforeAll
  static void copy() throws IOException {
    Fixtures.copy("h200-batched", dir, "batched-records.jsonl.gz", "batched-launches.jsonl.gz");
  }

  static List<JsonNode> lines(String file) throws IOException {
    return Fixtures.gzipJsonLines(dir.resolve(file));
  }

  @Test
  void explainNamesTheLongPromptsThatSharedTheVictimsDecodeSteps() {
    Cli r = Cli.run("explain", "req-b082", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("req-b082 was slow: TPOT 5.1x the median",
        "21 of its 24 decode steps shared the batch with another request's prefill: req-long085 (128 prefill tokens",
        "all 25 of its launches found in the launch log",
        "the members' share_ms add up to gpu_ms");
  }

  @Test
  void statsOnTheRecordsAloneSaysTheLaunchLogIsMissingNotZeroLaunches() throws IOException {
    Path recordsOnly = Files.createDirectories(dir.resolve("records-only"));
    Files.copy(dir.resolve("batched-records.jsonl.gz"), recordsOnly.resolve("batched-records.jsonl.gz"));
    Cli r = Cli.run("stats", recordsOnly.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("Batching (no launch-log lines among the files read")
        .doesNotContain("Batching (0 launches");
    Cli both = Cli.run("stats", dir.toString());
    assertThat(both.out()).contains("Batching (678 launches");
  }

  @Test
  void everyLaunchesSharesAddUpToItsCudaEventTimeAndEveryRecordToItsShares() throws IOException {
    Map<String, Double> shares = new HashMap<>();
    List<JsonNode> launches = lines("batched-launches.jsonl.gz");
    for (JsonNode l : launches) {
      double sum = 0;
      for (JsonNode m : l.get("members")) {
        sum += m.get("share_ms").asDouble();
        shares.merge(m.get("request_id").asText(), m.get("share_ms").asDouble(), Double::sum);
      }
      // 3-decimal rounding of each share and of gpu_ms
      assertThat(Math.abs(sum - l.get("gpu_ms").asDouble())).as(l.toString())
          .isLessThanOrEqualTo(0.0005 * (l.get("members").size() + 1));
    }
    List<JsonNode> records = lines("batched-records.jsonl.gz");
    assertThat(records).hasSize(280);
    assertThat(launches).hasSize(678);
    for (JsonNode rec : records) {
      double own = rec.get("gpu_ms").asDouble();
      assertThat(Math.abs(shares.get(rec.get("request_id").asText()) - own)).as(rec.toString())
          .isLessThanOrEqualTo(0.0005 * (rec.get("launch_count").asInt() + 1));
      assertThat(rec.get("gpu_ms_method").asText()).isEqualTo("rows");
      assertThat(rec.get("engine_fingerprint").asText()).isEqualTo(launches.get(0).get("engine_fingerprint").asText());
    }
  }
}
