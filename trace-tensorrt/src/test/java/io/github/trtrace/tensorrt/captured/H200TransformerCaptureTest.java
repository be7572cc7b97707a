package io.github.trtrace.tensorrt.captured;

import io.github.trtrace.core.RecordConvention;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.tensorrt.model.build.BuildDiff;
import io.github.trtrace.tensorrt.model.build.BuildGate;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.model.build.EngineInspection;
import io.github.trtrace.tensorrt.engine.LayerTable;
import io.github.trtrace.tensorrt.model.log.TrtLogClassifier;
import io.github.trtrace.tensorrt.model.log.TrtLogKind;
import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pure-Java analysis on real output of the GPU check's transformer (4 blocks, 42 M parameters)
 * built and served with TensorRT 10.6.0 on the H200 on 2026-12-01 (resources/gpu/h200-2026-12-01-trt10.6,
 * see its README): inspector JSON, build reports, the captured build log, a profiled request's layer
 * table and a real run-time error.
 */
class H200TransformerCaptureTest {
  private static final String DIR = "/gpu/h200-2026-12-01-trt10.6/";

  static String resource(String name) {
    try (InputStream in = H200TransformerCaptureTest.class.getResourceAsStream(DIR + name)) {
      if (in == null) {
        throw new IllegalStateException("missing " + DIR + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static BuildReport report(String variant) {
    return BuildReport.read(resource("transformer-" + variant + ".plan.build.json"));
  }

  @Test
  void theRealInspectorJsonSaysWhatMyelinFusedFromTheLayerMetadata() {
    EngineInspection info = EngineInspection.parse(resource("transformer-fp16-inspector.json"));
    assertThat(info.detailed()).isTrue();
    assertThat(info.layers()).hasSize(73);
    assertThat(info.bindings()).startsWith("input_ids", "position_ids", "attn_mask").endsWith("logits");
    assertThat(info.fusedGroups()).contains(
        new BuildReport.FusedGroup("block0_attn_qkv_myl9_2", List.of("block0.attn_qkv", "block0.attn_qkv_bias")));
    BuildReport.Layer qkv = info.layers().stream().filter(l -> l.name().equals("block0_attn_qkv_myl9_2")).findFirst().orElseThrow();
    assertThat(qkv.type()).isEqualTo("gemm");
    assertThat(qkv.precision()).isEqualTo("fp16");
    assertThat(qkv.tactic()).startsWith("sm90_xmma_gemm_f16f16");
    // the report written beside the plan holds the same analysis
    BuildReport fp16 = report("fp16");
    assertThat(fp16.fusedGroups()).isEqualTo(info.fusedGroups());
    assertThat(fp16.layers()).isEqualTo(info.layers());
  }

  @Test
  void theRealReportsReadBackWithTheBuildFacts() {
    BuildReport fp16 = report("fp16");
    assertThat(fp16.status()).isEqualTo(BuildReport.Status.SUCCESS);
    assertThat(fp16.tensorrtVersion()).isEqualTo("10.6.0");
    assertThat(fp16.gpu().computeCapability()).isEqualTo("9.0");
    assertThat(fp16.precision()).isEqualTo("fp16");
    assertThat(fp16.networkLayerCount()).isEqualTo(174);
    assertThat(fp16.engineLayerCount()).isEqualTo(73);
    // 92 distinct network layers of 174 in multi-layer engine layers; 0.552 (96) before 2026-12-06, when a layer
    // Myelin split over two engine layers was counted in both
    assertThat(fp16.fusionRate()).isEqualTo(92.0 / 174);
    assertThat(fp16.planBytes()).isGreaterThan(80_000_000L);
    assertThat(fp16.deviceMemoryBytes()).isGreaterThan(500_000_000L);
    assertThat(fp16.phases()).extracting(BuildReport.Phase::name).containsExactly("Building engine");
    assertThat(fp16.log()).anyMatch(l -> l.startsWith("VERBOSE") && l.contains("self-attention pattern"));
    assertThat(fp16.engineFingerprint()).hasSize(64);
  }

  @Test
  void theGateCatchesTheFusionBreakingBuildAndTheFp32FallbackAndPassesTheBaseline() {
    BuildReport base = report("fp16");
    BuildGate gate = BuildGate.builder().build();
    assertThat(gate.check(base, base).passed()).isTrue();
    BuildGate.GateResult unfused = gate.check(report("fp16-unfused"), base);
    assertThat(unfused.passed()).isFalse();
    assertThat(unfused.failures()).extracting(BuildDiff.Regression::kind).contains(BuildDiff.Kind.FUSION_RATE);
    BuildGate.GateResult fallback = gate.check(report("fp16-fp32-mlp"), base);
    assertThat(fallback.passed()).isFalse();
    assertThat(fallback.failures()).filteredOn(f -> f.kind() == BuildDiff.Kind.PRECISION_FALLBACK)
        .extracting(BuildDiff.Regression::detail)
        .contains("layer 'block0_mlp_up_myl9_11' runs in higher precision", "layer 'block3_mlp_down_myl9_52' runs in higher precision");
    assertThat(report("fp16-fp32-mlp").fp32Fallbacks()).extracting(BuildReport.Layer::name).contains("block0_mlp_up_myl9_11");
  }

  @Test
  void aRealProfiledRequestIsExplainedLayerByLayerFromTheBuildReport() {
    LayerTable table = LayerTable.create();
    for (String line : resource("profile-req-profiled.txt").split("\n")) {
      String[] f = line.split("\\|");
      int n = Integer.parseInt(f[2]);
      for (int i = 0; i < n; i++) {
        table.add(f[0], (float) (Double.parseDouble(f[1]) / n));
      }
    }
    assertThat(table.size()).isEqualTo(48);
    List<LayerTable.Explained> x = table.explain(report("fp16"), 48);
    LayerTable.Explained qkv = x.stream().filter(e -> e.name().equals("block0_attn_qkv_myl9_2")).findFirst().orElseThrow();
    assertThat(qkv.fused()).isTrue();
    assertThat(qkv.networkLayers()).containsExactly("block0.attn_qkv", "block0.attn_qkv_bias");
    assertThat(qkv.precision()).isEqualTo("fp16");
    assertThat(qkv.summary()).contains("16 launches, fp16, tactic sm90_xmma_gemm", "fused: block0.attn_qkv + block0.attn_qkv_bias");
    LayerTable.Explained reformat = x.get(0);
    assertThat(reformat.name()).startsWith("Reformatting CopyNode for Input Tensor");
    assertThat(reformat.fused()).isFalse();
    assertThat(reformat.summary()).contains("not fused");
    assertThat(x).extracting(LayerTable.Explained::ms).allMatch(ms -> ms > 0);
    // the same join from the build-report side
    BuildReport.LayerExplanation fromReport = report("fp16").explain("block0_attn_qkv_myl9_2");
    assertThat(fromReport.fused()).isTrue();
    assertThat(fromReport.layer().tactic()).startsWith("sm90_xmma_gemm");
  }

  @Test
  void theRealRunTimeErrorIsClassifiedAndItsCodeRead() {
    String line = resource("runtime-errors.txt").strip();
    String message = line.substring(line.indexOf("|error|") + "|error|".length());
    assertThat(message).startsWith("IExecutionContext::setInputShape: Error Code 3: API Usage Error");
    TrtLogKind kind = TrtLogClassifier.classify(TrtSeverity.ERROR, message);
    assertThat(line).startsWith(kind.eventKind() + "|");
    TrtLogClassifier.ErrorLine parsed = TrtLogClassifier.errorLine(message);
    assertThat(parsed).isNotNull();
    assertThat(parsed.code()).isEqualTo(3);
    assertThat(parsed.category()).isEqualTo("API Usage Error");
  }

  @Test
  void theRealBuildLogLinesAreCapturedVerboseIncludedWithoutErrors() {
    List<String> log = resource("transformer-fp16-build-log.txt").lines().toList();
    List<String> entries = log.stream().filter(l -> l.matches("^(VERBOSE|INFO|WARNING|ERROR|INTERNAL_ERROR) [a-z_]+: .*")).toList();
    assertThat(entries).hasSizeGreaterThan(100);
    assertThat(entries).filteredOn(l -> l.startsWith("VERBOSE")).hasSizeGreaterThan(50);
    assertThat(entries).noneMatch(l -> l.startsWith("ERROR"));
    // TensorRT's multi-line messages (the per-layer engine description) are kept whole
    assertThat(log).anyMatch(l -> l.startsWith("Name: block0_attn_qkv_myl9_2, LayerType: gemm"));
  }

  @Test
  void recordsFromTheRealRunCarryTheEngineTimings() {
    List<String> lines = resource("records-sample.jsonl").lines().toList();
    assertThat(lines).isNotEmpty().allSatisfy(l -> assertThat(l)
        .contains("\"gpu_ms\":", "\"ttft_ms\":", "\"tpot_ms\":", "\"infer_ms\":", "\"engine_fingerprint\":\"", "\"gpu_mem_util_mean\":"));
    assertThat(RecordConvention.LAYERS).isEqualTo("layers");
  }
}
