package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * Kernels to engine layers, on a build report and two launches' kernels captured on the H200 (TensorRT 10.6, GPU
 * check run 3 of 2026-12-02; {@code h200-kernels/README.md}), and on hand-made layers for the rule's edges.
 */
class KernelLayersTest {
  static BuildReport h200() throws IOException {
    try (InputStream in = new GZIPInputStream(KernelLayersTest.class.getResourceAsStream(
        "/h200-kernels/transformer-batched.plan.build.json.gz"))) {
      return BuildReport.read(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  static List<String> kernels(String file) {
    return Reports.resource("/h200-kernels/" + file).lines().toList();
  }

  static List<String> names(List<BuildReport.Layer> layers) {
    List<String> out = new ArrayList<>();
    for (BuildReport.Layer l : layers) {
      out.add(l == null ? null : l.name());
    }
    return out;
  }

  @Test
  void everyKernelOfADecodeLaunchOnTheH200IsGivenToItsLayerInEngineOrder() throws IOException {
    BuildReport report = h200();
    List<String> k = kernels("decode-launch-1796185449345178.kernels.txt");
    List<String> ran = names(report.layersOfKernels(k));
    assertThat(k).hasSize(72);
    assertThat(ran).doesNotContainNull();
    // the 9 input reformats, one kernel each, then the embedding, then block 0 as the network defines it
    for (int i = 0; i < 9; i++) {
      assertThat(ran.get(i)).startsWith("Reformatting CopyNode for Input Tensor ");
    }
    assertThat(ran.subList(0, 9)).doesNotHaveDuplicates();
    assertThat(ran.get(9)).isEqualTo("__myl_GatGatAddCasMeaSubMulMeaAddSqrDivMulCasMulAdd_myl9_1"); // token + position gathers, added, first layer norm
    assertThat(ran.subList(10, 21)).containsExactly("block0_attn_qkv_myl9_2",
        "__myl_TraSliResConSliResConSliTraRep_myl9_3", "block0_attn_scores_myl9_4", "__myl_MulAddMaxSubExpSum_myl9_5",
        "__myl_DivMulRep_myl9_6", "block0_attn_context_myl9_7", "block0_attn_out_myl9_8",
        "__myl_ResTraResAddResCasMeaSubMulMeaAddSqrDivMulCasMulAdd_myl9_9", "block0_mlp_up_myl9_10", "__myl_DivCasErfCasAddMulMul_myl9_11", "block0_mlp_down_myl9_12");
    // mlp_down is a split-K GEMM: its main kernel and its reduction both belong to it
    assertThat(k.get(20)).endsWith("_execute_kernel_trt");
    assertThat(k.get(21)).startsWith(k.get(20).substring(0, 80)).contains("split_k");
    assertThat(ran.get(21)).isEqualTo("block0_mlp_down_myl9_12");
    // the same kernels run for every block: each goes to its own block's layer, in order
    for (int b = 0; b < 4; b++) {
      assertThat(ran).contains("block" + b + "_attn_qkv_myl9_" + (2 + 12 * b), "block" + b + "_mlp_down_myl9_" + (12 + 12 * b));
    }
    assertThat(ran.indexOf("block3_attn_qkv_myl9_38")).isGreaterThan(ran.indexOf("block2_mlp_down_myl9_36"));
    assertThat(ran.get(62)).isEqualTo("lm_head_myl9_50");
    for (int i = 63; i < 72; i++) {
      assertThat(ran.get(i)).startsWith("Reformatting CopyNode for Output Tensor ");
    }
  }

  @Test
  void everyKernelOfAPrefillLaunchOnTheH200IsGivenALayer() throws IOException {
    List<String> ran = names(h200().layersOfKernels(kernels("prefill-launch-1796185449345218.kernels.txt")));
    assertThat(ran).hasSize(64).doesNotContainNull().contains("lm_head_myl9_50", "block3_attn_context_myl9_43");
  }

  static BuildReport.Layer layer(String name, String type, String tactic) {
    return new BuildReport.Layer(name, type, "fp16", List.of("fp16"), tactic);
  }

  @Test
  void twoLayersWithOneTacticBackToBackEachTakeTheirOwnKernel() {
    List<BuildReport.Layer> layers = List.of(layer("a", "gemm", "sm80_gemm_t1"), layer("b", "gemm", "sm80_gemm_t1"),
        layer("c", "kgen", "__myl_Add_0xabc"));
    List<String> ran = names(KernelLayers.match(layers, List.of("sm80_gemm_t1_execute_kernel_trt",
        "sm80_gemm_t1_execute_kernel_trt", "__myl_Add_0xabc_com", "__myl_Add_0xabc_vec")));
    assertThat(ran).containsExactly("a", "b", "c", "c");
  }

  @Test
  void aKernelNoLayerNamesStaysUnmatchedAndTheWalkGoesOn() {
    List<BuildReport.Layer> layers = List.of(layer("a", "gemm", "sm80_gemm_t1"), layer("b", "kgen", "__myl_Mul_0x1"));
    List<String> ran = names(KernelLayers.match(layers,
        List.of("sm80_gemm_t1_execute_kernel_trt", "someoneElsesKernel", "__myl_Mul_0x1_vec")));
    assertThat(ran).containsExactly("a", null, "b");
  }

  @Test
  void aReportWithoutTacticsMatchesOnlyReformats() {
    List<BuildReport.Layer> layers = List.of(layer("r", "Reformat", null), layer("a", "gemm", null));
    List<String> ran = names(KernelLayers.match(layers,
        List.of("void genericReformat::copyPackedKernel<float, __half>(...)", "sm80_gemm_t1_execute_kernel_trt")));
    assertThat(ran).containsExactly("r", null);
  }
}
