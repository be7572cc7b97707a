package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AnalysisTest {

  @Test
  void findsAKnownKneeAndItsSlopes() {
    SplittableRandom r = new SplittableRandom(3);
    int n = 400;
    double[] x = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = 8 + r.nextInt(2400);
      double noise = 1 + 0.1 * (r.nextDouble() - 0.5);
      y[i] = (5 + 0.05 * x[i] + 0.25 * Math.max(0, x[i] - 1000)) * noise;
    }
    Analysis.Knee k = Analysis.knee(x, y);
    assertThat(k.found()).isTrue();
    // Within one 256-token bin of the true knee; slopes as far as the bins' medians allow
    assertThat(k.tokens()).isBetween(1000 - Analysis.BIN_TOKENS, 1000 + Analysis.BIN_TOKENS);
    assertThat(k.slopeBelow()).isBetween(0.02, 0.08);
    assertThat(k.slopeAbove()).isBetween(0.2, 0.4);
    assertThat(k.slopeAbove() / k.slopeBelow()).isGreaterThan(3);
  }

  @Test
  void findsNoKneeOnAStraightLine() {
    SplittableRandom r = new SplittableRandom(4);
    int n = 400;
    double[] x = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = 8 + r.nextInt(2400);
      y[i] = (5 + 0.2 * x[i]) * (1 + 0.1 * (r.nextDouble() - 0.5));
    }
    assertThat(Analysis.knee(x, y).found()).isFalse();
  }

  @Test
  void pearsonOfALineIsOne() {
    assertThat(Analysis.pearson(new double[] {1, 2, 3}, new double[] {2, 4, 6})).isCloseTo(1, within(1e-9));
    assertThat(Analysis.pearson(new double[] {1, 2, 3}, new double[] {6, 4, 2})).isCloseTo(-1, within(1e-9));
  }

  @Test
  void aGpuRecordsRooflineAndNvmlFiguresReadAsOneLineAndACpuRecordHasNone(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path log = dir.resolve("inference.log");
    java.nio.file.Files.writeString(log, String.join("\n",
        "{\"timestamp\":\"2026-12-01T11:25:00Z\",\"request_id\":\"api-demo-0215\",\"status\":\"success\","
            + "\"latency_ms\":289.0,\"input_tokens\":2075,\"gpu_ms\":257.855,\"gpu_mem_util_mean\":4.714,"
            + "\"gpu_mem_util_max\":15.0,\"attributes\":{\"gpu.bound\":\"memory\",\"gpu.arith_intensity\":\"38.28\","
            + "\"gpu.mem_bw_gbs\":\"201.4\",\"gpu.mem_bw_util\":\"0.042\",\"gpu.flops_util\":\"0.008\","
            + "\"gpu.decode.bound\":\"memory\",\"gpu.decode.mem_bw_util\":\"0.050\",\"gpu.prefill.bound\":\"compute\","
            + "\"gpu.prefill.flops_util\":\"0.050\",\"http_status\":\"200\"}}",
        "{\"timestamp\":\"2026-12-01T11:25:01Z\",\"request_id\":\"api-demo-0216\",\"status\":\"success\","
            + "\"latency_ms\":20.0,\"input_tokens\":20}"));
    List<Analysis.Rec> recs = Analysis.read(log);
    assertThat(recs.get(0).gpu()).doesNotContainKey("http_status").containsEntry("gpu.bound", "memory");
    assertThat(recs.get(0).gpuSummary()).isEqualTo("GPU 257.855 ms: memory-bound by the roofline (38.28 FLOP/B),"
        + " 201.4 GB/s = 4% of peak bandwidth, 0.8% of peak FLOP/s; decode steps memory-bound at 5% of peak"
        + " bandwidth; prefill compute-bound at 5% of peak FLOP/s; NVML gpu_mem_util mean 4.714 % max 15.0 %");
    assertThat(recs.get(1).gpuSummary()).isNull();
  }

  private static Analysis.Rec rec(String id, double atSeconds, String status, int tokens, List<String> in,
      List<String> out) {
    return new Analysis.Rec(id, Instant.EPOCH.plusMillis((long) (atSeconds * 1000)), status, 10 + tokens * 0.1,
        tokens, 1, Map.of("infer_ms", 5.0), in, out, "sampled", null);
  }

  @Test
  void relatesGarbledOutputsToBidiInputsAndRejectionsToTheArrivalPeak() {
    List<Analysis.Rec> recs = new ArrayList<>();
    for (int i = 0; i < 100; i++) { // one arrival every 100 ms for 10 s
      recs.add(rec(String.format("api-%04d", i), i * 0.1, "success", 10 + i, List.of(), List.of()));
    }
    recs.add(rec("api-bidi-clean", 1.05, "success", 20, List.of("bidi_control"), List.of()));
    recs.add(rec("api-bidi-garbled", 2.05, "success", 20, List.of("bidi_control"),
        List.of("bidi_control", "repetition")));
    for (int i = 0; i < 40; i++) { // a burst at 5 s, half of it rejected
      recs.add(rec(String.format("api-b%03d", i), 5.0 + i * 0.002, i % 2 == 0 ? "rejected" : "success", 10,
          List.of(), List.of()));
    }
    recs.add(rec("api-late-reject", 9.0, "rejected", 10, List.of(), List.of()));

    Analysis.Report r = Analysis.analyse(recs);
    assertThat(r.garbled()).extracting(Analysis.Rec::id).containsExactly("api-bidi-garbled");
    assertThat(r.garbledWithBidi()).isEqualTo(1);
    assertThat(r.bidiInputs()).isEqualTo(2);
    assertThat(r.rejected()).hasSize(21);
    assertThat(r.peakAt().toMillis()).isEqualTo(5000);
    assertThat(r.rejectedNearPeak()).isEqualTo(20);
    assertThat(r.rejectedExample()).isEqualTo("api-b000");
  }
}
