package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** Defects found feeding the module real TensorRT 10.6 output from the H200. */
class ReviewDefectsTest {

  private static BuildReport realFp16Report() throws IOException {
    try (InputStream in = new GZIPInputStream(
        ReviewDefectsTest.class.getResourceAsStream("/h200-kernels/transformer-batched.plan.build.json.gz"))) {
      return BuildReport.read(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void builderInsertedOutputReformatsAreNoFp32Fallbacks() throws IOException {
    // real fp16 transformer (TensorRT 10.6, H200): every compute layer is fp16; the 9 fp32 layers are the
    // "Reformatting CopyNode for Output Tensor k" layers the builder inserted for the fp32 outputs
    BuildReport real = realFp16Report();
    assertThat(real.precision()).isEqualTo("fp16");
    assertThat(real.fp32Fallbacks()).extracting(BuildReport.Layer::name).isEmpty();
  }

  @Test
  void aFusionRateDropEqualToTheAllowedDropPasses() {
    BuildReport base = BuildReport.builder("m").networkLayerCount(100)
        .fusedGroup(new BuildReport.FusedGroup("e", layers(64))).build();
    BuildReport cur = BuildReport.builder("m").networkLayerCount(100)
        .fusedGroup(new BuildReport.FusedGroup("e", layers(62))).build();
    assertThat(base.fusionRate() - cur.fusionRate()).isGreaterThan(0.02); // 0.020000000000000018 in doubles
    BuildGate.GateResult r = BuildGate.builder().maxFusionRateDrop(0.02).build().check(cur, base);
    // these reports have no memory, plan or engine-layer figures: the gate's notes say those checks were skipped
    assertThat(r.message().lines().findFirst()).hasValue("Build gate passed for m");
    assertThat(r.message()).doesNotContain("fusion");
    assertThat(r.passed()).isTrue();
  }

  private static java.util.List<String> layers(int n) {
    return java.util.stream.IntStream.range(0, n).mapToObj(i -> "layer" + i).toList();
  }

  @Test
  void fusionRateCountsANetworkLayerSplitOverTwoEngineLayersOnce() throws IOException {
    // in the real report block0.attn_softmax and block0.attn_context are each in two fused groups:
    // 111 memberships, 96 distinct network layers of 174
    BuildReport real = realFp16Report();
    assertThat(real.networkLayerCount()).isEqualTo(174);
    assertThat(real.fusedGroups().stream().mapToLong(g -> g.networkLayers().size()).sum()).isEqualTo(111);
    assertThat(real.fusionRate()).isEqualTo(96.0 / 174); // was 111 / 174 = 0.638
  }

  @Test
  void inspectorJsonWithTrailingGarbageIsRejected() {
    String json = Reports.resource("/inspector/trt-10.6.0-h200-detailed.json");
    assertThatThrownBy(() -> EngineInspection.parse(json + "]}{\"Layers\": []}"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
