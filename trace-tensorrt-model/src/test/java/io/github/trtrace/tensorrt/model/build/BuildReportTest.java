package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.tensorrt.model.Fixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuildReportTest {
  private static final List<String> FIELD_ORDER = List.of("status", "model_name", "tensorrt_version", "gpu",
      "driver_version", "cuda_runtime_version", "builder_flags", "precision", "strongly_typed", "optimization_level",
      "network_layer_count", "engine_layer_count", "fused_groups", "fusion_rate", "layers", "device_memory_bytes",
      "plan_bytes", "build_ms", "phases", "progress_events_dropped", "warnings", "errors", "log", "diagnosis", "engine_fingerprint", "created_at");

  @Test
  void writtenReportReadsBackEqual(@TempDir Path dir) throws Exception {
    BuildReport report = Reports.baseline().stronglyTyped(true)
        .error(new BuildReport.BuildError(2, "Internal Error", "boom \"quoted\" \u001e"))
        .build();
    Path file = dir.resolve("reports/llama.build.json");
    report.write(file);
    assertThat(BuildReport.read(file)).isEqualTo(report);
    assertThat(BuildReport.read(report.toJson())).isEqualTo(report);
  }

  @Test
  void failedReportWithDiagnosisRoundTrips() {
    BuildReport failed = BuildReport.failed("llama-8b", Fixtures.events(Fixtures.MISSING_SM90), List.of());
    assertThat(failed.status()).isEqualTo(BuildReport.Status.FAILED);
    assertThat(failed.diagnosis()).isNotNull();
    assertThat(failed.errors()).singleElement().satisfies(e -> {
      assertThat(e.code()).isEqualTo(6);
      assertThat(e.category()).isEqualTo("API Usage Error");
    });
    // the whole build log, VERBOSE included, is captured into the report
    assertThat(failed.log()).hasSize(6)
        .contains("VERBOSE builder_resource: Trying to load shared library libnvinfer_builder_resource_sm90.so.10.15.1");
    assertThat(BuildReport.read(failed.toJson())).isEqualTo(failed);
  }

  @Test
  void jsonIsSnakeCaseInAStableOrderAndParsesWithDatabind() throws Exception {
    BuildReport report = Reports.baseline().build();
    JsonNode node = new ObjectMapper().readTree(report.toJson());
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    assertThat(names).containsExactlyElementsOf(FIELD_ORDER);
    assertThat(node.get("status").asText()).isEqualTo("success");
    assertThat(node.get("gpu").get("compute_capability").asText()).isEqualTo("9.0");
    assertThat(node.get("precision").asText()).isEqualTo("fp16");
    assertThat(node.get("fusion_rate").asDouble()).isEqualTo(5.0 / 6.0);
    assertThat(node.get("fused_groups").get(1).get("network_layers")).hasSize(3);
    assertThat(node.get("layers").get(1).get("output_types").get(0).asText()).isEqualTo("fp16");
    assertThat(node.get("diagnosis").isNull()).isTrue();
    assertThat(node.get("created_at").asText()).isEqualTo("2026-11-30T09:00:00.123456Z");
  }

  @Test
  void fusionRateIsAbsorbedNetworkLayersOverNetworkLayers() {
    assertThat(Reports.baseline().build().fusionRate()).isEqualTo(5.0 / 6.0);
    assertThat(Reports.baseline().networkLayerCount(-1).build().fusionRate()).isNaN();
  }

  @Test
  void queriesAnswerFusionAndFallbackQuestions() {
    BuildReport r = Reports.baseline().build();
    assertThat(r.layersMatching("attn")).hasSize(3);
    assertThat(r.allFused("qkv")).isTrue();
    assertThat(r.allFused("mlp")).as("matched through absorbed network layers").isTrue();
    assertThat(r.allFused("attn")).as("softmax stands alone").isFalse();
    assertThat(r.allFused("no-such-layer")).isFalse();
    assertThat(r.fp32Fallbacks()).extracting(BuildReport.Layer::name).containsExactly("/attn/softmax/Softmax");
    assertThat(r.layersWithPrecision("bf16", "fp16")).hasSize(3);
    assertThat(Reports.baseline().precision("fp32").build().fp32Fallbacks()).isEmpty();
  }

  @Test
  void fingerprintIsSha256OverPlanAndIdentityFields() throws Exception {
    byte[] plan = {1, 2, 3, 4};
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    sha.update(plan);
    sha.update(("\ntensorrt_version=10.15.1\ncompute_capability=9.0\nprecision=fp16\nstrongly_typed=false"
        + "\nbuilder_flags=BF16,FP16").getBytes(StandardCharsets.UTF_8));
    String expected = HexFormat.of().formatHex(sha.digest());
    assertThat(Reports.baseline().build().engineFingerprint()).isEqualTo(expected);
    assertThat(BuildFingerprint.of(plan, "10.15.1", "9.0", "fp16", false, List.of("FP16", "BF16", "FP16")))
        .isEqualTo(expected);
    assertThat(BuildFingerprint.of(plan, "10.15.1", "9.0", "fp8", false, List.of("FP16", "BF16")))
        .isNotEqualTo(expected);
    assertThat(BuildFingerprint.of(new byte[] {1, 2, 3, 5}, "10.15.1", "9.0", "fp16", false, List.of("FP16", "BF16")))
        .isNotEqualTo(expected);
  }

  @Test
  void readRejectsUnknownStatusClearly() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> BuildReport.read("{\"status\":\"maybe\",\"model_name\":\"m\"}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("status must be success or failed, was 'maybe'");
  }
}
