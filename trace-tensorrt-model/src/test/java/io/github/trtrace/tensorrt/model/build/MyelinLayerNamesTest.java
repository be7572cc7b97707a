package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Myelin (TensorRT 10's transformer compiler) numbers engine layers per build — {@code
 * block0_mlp_up_myl9_11} in one build is {@code block0_mlp_up_myl14_11} in the next (names from the
 * H200 run of 2026-12-01) — and emits layers without a tensor output (no precision).
 */
class MyelinLayerNamesTest {

  private static BuildReport report(String precision, String... layerAndPrecision) {
    BuildReport.Builder b = BuildReport.builder("m").precision(precision);
    for (int i = 0; i < layerAndPrecision.length; i += 2) {
      String p = layerAndPrecision[i + 1];
      b.layer(new BuildReport.Layer(layerAndPrecision[i], "gemm", p, p == null ? List.of() : List.of(p), null));
    }
    return b.build();
  }

  @Test
  void aFallbackIsFoundAcrossBuildsWhoseMyelinNumbersDiffer() {
    BuildReport base = report("fp16", "__mye3476_0_myl9_0", null, "block0_mlp_up_myl9_11", "fp16",
        "__myl_MovRepCon_myl9_4", "fp16", "__myl_MovRepCon_myl9_7", "fp16");
    BuildReport cur = report("fp16", "__mye3476_0_myl14_0", null, "block0_mlp_up_myl14_11", "fp32",
        "__myl_MovRepCon_myl14_4", "fp16", "__myl_MovRepCon_myl14_7", "fp32");
    assertThat(cur.diff(base).regressions()).extracting(BuildDiff.Regression::kind, BuildDiff.Regression::detail)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(BuildDiff.Kind.PRECISION_FALLBACK, "layer 'block0_mlp_up_myl14_11' runs in higher precision"),
            org.assertj.core.groups.Tuple.tuple(BuildDiff.Kind.PRECISION_FALLBACK, "layer '__myl_MovRepCon_myl14_7' runs in higher precision"));
    assertThat(base.diff(base).regressions()).isEmpty();
  }

  @Test
  void aLayerWithoutPrecisionIsNoFallbackAndNoError() {
    BuildReport r = report("fp16", "__mye3476_0_myl9_0", null, "lm_head_myl9_70", "fp32");
    assertThat(r.fp32Fallbacks()).extracting(BuildReport.Layer::name).containsExactly("lm_head_myl9_70");
    assertThat(r.layersWithPrecision("fp16")).isEmpty();
  }

  @Test
  void onlyTheMyelinSuffixIsDropped() {
    assertThat(BuildDiff.stableName("block0_attn_qkv_myl9_2")).isEqualTo("block0_attn_qkv");
    assertThat(BuildDiff.stableName("conv1 + relu1")).isEqualTo("conv1 + relu1");
    assertThat(BuildDiff.stableName("my_layer_myl")).isEqualTo("my_layer_myl");
  }
}
