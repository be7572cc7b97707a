package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * build-diff and gate on report files in the JSON shape trace-tensorrt writes: the same cases as
 * trace-tensorrt-model's BuildDiffAndGateTest (same messages), and its real captured H200 report.
 */
class BuildCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CAPTURED = "/reports/h200-2026-11-30-failed-sm90.build.json";

  @TempDir Path dir;

  /** A complete successful report like trace-tensorrt's test baseline: fusion rate 5/6 = 0.833. */
  private static ObjectNode baseline() {
    ObjectNode r = JSON.createObjectNode();
    r.put("status", "success").put("model_name", "llama-8b").put("tensorrt_version", "10.15.1");
    r.putObject("gpu").put("name", "NVIDIA H200").put("compute_capability", "9.0");
    r.putArray("builder_flags").add("FP16").add("BF16");
    r.put("precision", "fp16").put("network_layer_count", 6).put("engine_layer_count", 3);
    ArrayNode groups = r.putArray("fused_groups");
    groups.addObject().put("engine_layer", "attn").putArray("network_layers").add("q").add("k").add("v");
    groups.addObject().put("engine_layer", "mlp").putArray("network_layers").add("up").add("act");
    r.putArray("layers").addObject().put("name", "attn").put("precision", "fp16");
    r.put("device_memory_bytes", 1_000_000).put("plan_bytes", 4).put("build_ms", 1234.5);
    r.putArray("warnings").add("Detected layernorm in FP16");
    r.putArray("errors");
    r.put("created_at", "2026-11-30T09:00:00.123456Z");
    return r;
  }

  private Path write(String name, ObjectNode r) throws IOException {
    Path p = dir.resolve(name);
    JSON.writerWithDefaultPrettyPrinter().writeValue(p.toFile(), r);
    return p;
  }

  private Path variant(String name, Consumer<ObjectNode> change) throws IOException {
    ObjectNode r = baseline();
    change.accept(r);
    return write(name, r);
  }

  private static ObjectNode captured() throws IOException {
    try (InputStream in = BuildCommandsTest.class.getResourceAsStream(CAPTURED)) {
      assertThat(in).isNotNull();
      return (ObjectNode) JSON.readTree(in);
    }
  }

  @Test
  void identicalReportsDiffToNothingAndExitZero() throws IOException {
    Path b = write("b.json", baseline());
    Cli r = Cli.run("build-diff", b.toString(), variant("c.json", x -> {}).toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("Regressions (0): none", "Improvements (0): none", "Notes (0): none");
  }

  @Test
  void fusionRateDropIsARegressionAndTheReverseAnImprovement() throws IOException {
    Path b = write("b.json", baseline());
    Path c = variant("c.json", x -> x.put("network_layer_count", 8));
    Cli r = Cli.run("build-diff", b.toString(), c.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).contains("Regressions (1)",
        "  - FUSION_RATE: fusion rate dropped by 0.208 (allowed 0.000) (baseline 0.833, current 0.625)");
    Cli back = Cli.run("build-diff", c.toString(), b.toString());
    assertThat(back.code()).isZero();
    assertThat(back.out()).contains("Improvements (1)", "FUSION_RATE: fusion rate rose (baseline 0.625, current 0.833)");
  }

  @Test
  void precisionFallbackMemoryPlanAndLayerGrowthAreRegressions() throws IOException {
    Path b = write("b.json", baseline());
    Path c = variant("c.json", x -> {
      ((ObjectNode) x.get("layers").get(0)).put("precision", "fp32");
      x.put("device_memory_bytes", 1_200_000).put("plan_bytes", 8).put("engine_layer_count", 6);
    });
    Cli r = Cli.run("build-diff", b.toString(), c.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).contains(
        "PRECISION_FALLBACK: layer 'attn' runs in higher precision (baseline fp16, current fp32)",
        "DEVICE_MEMORY: device memory grew by 20.0 % (allowed 0.0 %) (baseline 1000000, current 1200000)",
        "PLAN_SIZE: plan size grew by 100.0 %",
        "ENGINE_LAYER_COUNT: engine has 3 more layers (allowed 0) (baseline 3, current 6)");
  }

  @Test
  void gateFailsWithTheSameReadableMessageAsTraceTensorrt() throws IOException {
    Path b = write("b.json", baseline());
    Path c = variant("c.json", x -> {
      x.put("network_layer_count", 8).put("device_memory_bytes", 2_000_000).put("tensorrt_version", "10.16.0");
      ((ArrayNode) x.get("warnings")).add("a brand new warning");
    });
    Cli r = Cli.run("gate", b.toString(), c.toString(), "--max-fusion-rate-drop", "0.02", "--max-memory-growth", "0.10");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEqualTo("Build gate failed for llama-8b: 3 regressions against the baseline\n"
        + "  - FUSION_RATE: fusion rate dropped by 0.208 (allowed 0.020) (baseline 0.833, current 0.625)\n"
        + "  - DEVICE_MEMORY: device memory grew by 100.0 % (allowed 10.0 %) (baseline 1000000, current 2000000)\n"
        + "  - NEW_WARNING: new warning: a brand new warning\n"
        + "  note: TensorRT version changed: 10.15.1 -> 10.16.0\n");
  }

  @Test
  void gatePassesWithinLimitsAndAllowFlagsLetWarningsAndFallbacksThrough() throws IOException {
    Path b = write("b.json", baseline());
    Path small = variant("small.json", x -> x.put("device_memory_bytes", 1_040_000));
    Cli ok = Cli.run("gate", b.toString(), small.toString());
    assertThat(ok.code()).isZero();
    assertThat(ok.out()).isEqualTo("Build gate passed for llama-8b\n");
    Path c = variant("c.json", x -> {
      ((ObjectNode) x.get("layers").get(0)).put("precision", "fp32");
      ((ArrayNode) x.get("warnings")).add("new one");
    });
    assertThat(Cli.run("gate", b.toString(), c.toString()).out()).contains("2 regressions");
    Cli lenient = Cli.run("gate", b.toString(), c.toString(), "--allow-new-warnings", "--allow-precision-fallbacks");
    assertThat(lenient.code()).isZero();
  }

  @Test
  void theCapturedH200FailureIsARegressionAgainstASuccessAndNamesErrorCode6() throws IOException {
    ObjectNode failed = captured();
    Path failedFile = write("failed.build.json", failed);
    ObjectNode success = failed.deepCopy();
    success.put("status", "success");
    Path successFile = write("success.build.json", success);
    Cli diff = Cli.run("build-diff", successFile.toString(), failedFile.toString());
    assertThat(diff.code()).isEqualTo(1);
    assertThat(diff.out()).contains("Build diff for gpucheck-tiny",
        "STATUS: build status changed from success to failed (baseline success, current failed)");

    ObjectNode passing = JSON.createObjectNode().put("status", "success").put("model_name", "gpucheck-tiny");
    Cli gate = Cli.run("gate", write("passing.json", passing).toString(), failedFile.toString());
    assertThat(gate.code()).isEqualTo(1);
    assertThat(gate.out()).contains("Build gate failed for gpucheck-tiny", "NEW_ERROR: new error:", "Error Code 6");
    // failed against failed: no change for build-diff, but never a pass for the gate (GateVerdictParityTest says why)
    assertThat(Cli.run("build-diff", failedFile.toString(), failedFile.toString()).code()).isZero();
    Cli bothFailed = Cli.run("gate", failedFile.toString(), failedFile.toString());
    assertThat(bothFailed.code()).isEqualTo(1);
    assertThat(bothFailed.out()).contains("STATUS: the build failed (the baseline failed too): ");
  }

  @Test
  void badInputIsAUsageErrorWithAClearMessage() throws IOException {
    Path b = write("b.json", baseline());
    Path notReport = dir.resolve("x.json");
    Files.writeString(notReport, "{\"request_id\":\"a\"}");
    Cli r = Cli.run("build-diff", b.toString(), notReport.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("x.json is not a build report");
    Cli neg = Cli.run("gate", b.toString(), b.toString(), "--max-memory-growth", "-0.1");
    assertThat(neg.code()).isEqualTo(2);
    assertThat(neg.err()).contains("--max-memory-growth must be a finite number >= 0");
    assertThat(Cli.run("gate", b.toString()).code()).isEqualTo(2);
  }
}
