package io.github.trtrace.tensorrt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A profiled layer table joined with the engine's build report. */
class LayerExplainTest {

  private static BuildReport report() {
    return BuildReport.builder("m")
        .layer(new BuildReport.Layer("attn_qkv", "gemm", "fp16", List.of("fp16"), "sm90_xmma_gemm_f16"))
        .layer(new BuildReport.Layer("mlp_up + mlp_gelu", "gemm", "fp16", List.of("fp16"), "sm90_gemm_gelu"))
        .fusedGroup(new BuildReport.FusedGroup("mlp_up + mlp_gelu", List.of("mlp_up", "mlp_gelu")))
        .warning("Layer attn_qkv: debug tensor prevents fusion with attn_qkv_bias")
        .warning("unrelated: attn_qkv2 is fine")
        .build();
  }

  @Test
  void eachProfiledLayerSaysWhatItAbsorbedItsPrecisionTacticAndWhyItWasNotFused() {
    LayerTable t = LayerTable.create().add("attn_qkv", 3.0f).add("mlp_up + mlp_gelu", 1.0f).add("attn_qkv", 0.5f)
        .add("unknown_layer", 0.25f);
    List<LayerTable.Explained> x = t.explain(report(), 10);
    assertThat(x).extracting(LayerTable.Explained::name).containsExactly("attn_qkv", "mlp_up + mlp_gelu", "unknown_layer");
    LayerTable.Explained qkv = x.get(0);
    assertThat(qkv.fused()).isFalse();
    assertThat(qkv.invocations()).isEqualTo(2);
    assertThat(qkv.buildWarnings()).containsExactly("Layer attn_qkv: debug tensor prevents fusion with attn_qkv_bias");
    assertThat(qkv.summary()).isEqualTo("3.500 ms / 2 launches, fp16, tactic sm90_xmma_gemm_f16, not fused: "
        + "Layer attn_qkv: debug tensor prevents fusion with attn_qkv_bias");
    assertThat(x.get(1).summary()).endsWith("fused: mlp_up + mlp_gelu");
    assertThat(x.get(2).precision()).isNull();
    assertThat(x.get(2).summary()).isEqualTo("0.250 ms / 1 launches, precision unknown, not fused");
  }

  @Test
  void aWarningNamesALayerOnlyAsAWholeName() {
    BuildReport r = BuildReport.builder("m").warning("fc10 is slow").warning("fc10 and fc1.").warning("(fc1)").build();
    assertThat(r.explain("fc1").warnings()).containsExactly("fc10 and fc1.", "(fc1)");
    assertThat(r.explain("fc1").layer()).isNull();
    assertThat(r.explain("fc1").fused()).isFalse();
  }
}
