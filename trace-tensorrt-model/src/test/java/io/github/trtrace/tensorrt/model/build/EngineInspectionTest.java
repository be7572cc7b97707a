package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * On inspector JSON: real TensorRT 10.6 output from the H200, and files written by us in the documented 10.x
 * and 11.x formats (see resources/inspector/README.md, which says which is which).
 */
class EngineInspectionTest {

  @Test
  void detailedLayersCarryTypeTacticAndPrecisionOfTheirOutputs() {
    EngineInspection info = Reports.detailed();
    assertThat(info.detailed()).isTrue();
    assertThat(info.layers()).extracting(BuildReport.Layer::precision)
        .containsExactly("fp16", "fp16", "fp32", "bf16");
    assertThat(info.layers().get(1).type()).isEqualTo("MatrixMultiply");
    assertThat(info.layers().get(3).type()).isEqualTo("Myelin");
    assertThat(info.layers().get(1).tactic()).startsWith("sm90_xmma_gemm");
    assertThat(info.layers().get(0).outputTypes()).containsExactly("fp16");
    assertThat(info.bindings()).containsExactly("hidden", "logits");
  }

  @Test
  void fusedGroupsComeFromMetadataAndSkipReformatLayers() {
    assertThat(Reports.detailed().fusedGroups()).containsExactly(
        new BuildReport.FusedGroup("/attn/qkv/MatMul + /attn/qkv/Add", List.of("/attn/qkv/MatMul", "/attn/qkv/Add")),
        new BuildReport.FusedGroup("{ForeignNode[/mlp/up/MatMul.../mlp/down/MatMul]}",
            List.of("/mlp/up/MatMul", "/mlp/act/Gelu", "/mlp/down/MatMul")));
  }

  @Test
  void namesOnlyFormGivesLayerNamesAndPlusJoinedFusions() {
    EngineInspection info = EngineInspection.parse(Reports.resource("/inspector/names-only.json"));
    assertThat(info.detailed()).isFalse();
    assertThat(info.layers()).extracting(BuildReport.Layer::name).containsExactly("conv1 + relu1", "pool1", "fc1 + relu2 + fc2");
    assertThat(info.layers()).allSatisfy(l -> assertThat(l.precision()).isNull());
    assertThat(info.fusedGroups()).extracting(BuildReport.FusedGroup::networkLayers)
        .containsExactly(List.of("conv1", "relu1"), List.of("fc1", "relu2", "fc2"));
  }

  @Test
  void tensorRt11IoTensorsAreReadAsBindings() {
    EngineInspection info = EngineInspection.parse(
        "{\"Layers\":[\"a\"],\"I/O Tensors\":[{\"Name\":\"input_0\",\"IOMode\":\"Input\"}]}");
    assertThat(info.bindings()).containsExactly("input_0");
  }

  @Test
  void realTensorRt106OutputFromTheH200IsRead() {
    // resources/inspector/trt-10.6.0-h200-detailed.json: real output, 10.x shape ("Bindings", "Format/Datatype")
    EngineInspection info = EngineInspection.parse(Reports.resource("/inspector/trt-10.6.0-h200-detailed.json"));
    assertThat(info.detailed()).isTrue();
    assertThat(info.layers()).extracting(BuildReport.Layer::name)
        .containsExactly("qkv_proj_myl0_0", "__myl_DivErfAddMulMul_myl0_1", "mlp_ffn_myl0_2");
    assertThat(info.layers()).extracting(BuildReport.Layer::type).containsExactly("gemm", "kgen", "gemm");
    assertThat(info.layers()).extracting(BuildReport.Layer::precision).containsOnly("fp32");
    assertThat(info.layers().get(0).tactic()).startsWith("sm50_xmma_cublas_smallN");
    assertThat(info.bindings()).containsExactly("x", "y");
    assertThat(info.precision()).as("the FP16 flag was set, but the engine runs in FP32").isEqualTo("fp32");
  }

  @Test
  void tensorRt11ShapeIsReadFromTheDocumentedSchema() {
    // resources/inspector/trt-11-documented-schema.json: NOT TensorRT output (no 11.x engine can be built on
    // the H200 from Maven artifacts); written from NVIDIA's documented 11.x schema: "I/O Tensors" objects,
    // "Format" and "Datatype" split.
    EngineInspection info = EngineInspection.parse(Reports.resource("/inspector/trt-11-documented-schema.json"));
    assertThat(info.bindings()).containsExactly("x", "y");
    assertThat(info.layers()).extracting(BuildReport.Layer::precision).containsExactly("fp16", "fp16", "fp32");
    assertThat(info.precision()).isEqualTo("fp16");
    assertThat(info.fusedGroups()).singleElement().satisfies(g ->
        assertThat(g.networkLayers()).containsExactly("/attn/qkv/MatMul", "/attn/qkv/Add"));
    BuildReport report = BuildReport.builder("m").inspection(info).networkLayerCount(4).build();
    assertThat(report.precision()).isEqualTo("fp16");
    assertThat(report.fp32Fallbacks()).extracting(BuildReport.Layer::name).containsExactly("mlp_ffn_myl0_2");
  }

  @Test
  void theDataTypeFieldWinsOverTheFormatAndEitherSpellingIsRead() {
    EngineInspection info = EngineInspection.parse("{\"Layers\":[{\"Name\":\"a\",\"LayerType\":\"gemm\","
        + "\"Outputs\":[{\"Name\":\"o\",\"Format\":\"Row major linear FP32 format (kLINEAR)\",\"DataType\":\"BFloat16\"}]},"
        + "{\"Name\":\"b\",\"LayerType\":\"Reformat\",\"Outputs\":[{\"Name\":\"p\",\"Datatype\":\"FP8\"}]},"
        + "{\"Name\":\"c\",\"LayerType\":\"gemm\",\"Outputs\":[{\"Name\":\"q\",\"Format\":\"Row major linear FP16 format\"}]}],"
        + "\"I/O Tensors\":[]}");
    assertThat(info.layers()).extracting(BuildReport.Layer::precision).containsExactly("bf16", "fp8", "fp16");
    assertThat(info.precision()).as("the builder's reformat layer does not count").isEqualTo("bf16");
  }

  @Test
  void theEngineOfTheHandWrittenFileRunsInFp16AndNamesOnlyHasNoPrecision() {
    assertThat(Reports.detailed().precision()).isEqualTo("fp16");
    assertThat(EngineInspection.parse(Reports.resource("/inspector/names-only.json")).precision()).isNull();
  }

  @Test
  void malformedOrForeignJsonIsRejectedClearly() {
    assertThatThrownBy(() -> EngineInspection.parse("{\"Layers\": ["))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed JSON");
    assertThatThrownBy(() -> EngineInspection.parse("{\"layers\": []}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"Layers\"");
    assertThatThrownBy(() -> EngineInspection.parse("[1,2]"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected a JSON object");
  }

  @Test
  void formatStringsMapToPrecisions() {
    assertThat(Precisions.ofFormat("Channel major BFloat16 format where channel % 8 == 0")).isEqualTo("bf16");
    assertThat(Precisions.ofFormat("Row major linear FP8 format")).isEqualTo("fp8");
    assertThat(Precisions.ofFormat("Four wide channel vectorized row major Int8 format")).isEqualTo("int8");
    assertThat(Precisions.ofFormat("Row major linear UInt8 format")).isEqualTo("uint8");
    assertThat(Precisions.ofFormat("Row major linear Int32")).isEqualTo("int32");
    assertThat(Precisions.ofFormat("Half")).isEqualTo("fp16");
    assertThat(Precisions.ofFormat("Unknown format")).isNull();
  }

  /** The tiny network's engine layer as TensorRT 10.6 named it on the H200 (gpu-runs/gpucheck-2026-12-01-trt10.6-run3.txt). */
  private static final String PWN_TINY = "PWN(PWN((Unnamed Layer* 0) [Activation]), PWN((Unnamed Layer* 1) [ElementWise]))";

  @Test
  void aMyelinPointwiseLayerWithoutMetadataIsTheFusionOfTheLayersItsNameNests() {
    EngineInspection detailed = EngineInspection.parse("{\"Layers\":[{\"Name\":\"" + PWN_TINY + "\",\"LayerType\":\"PointWiseV2\","
        + "\"ParameterType\":\"PointWise\",\"Metadata\":\"\",\"Inputs\":[{\"Name\":\"input\",\"Format/Datatype\":\"Float\"}],"
        + "\"Outputs\":[{\"Name\":\"output\",\"Format/Datatype\":\"Float\"}]}],\"Bindings\":[\"input\",\"output\"]}");
    EngineInspection namesOnly = EngineInspection.parse("{\"Layers\":[\"" + PWN_TINY + "\"],\"Bindings\":[\"input\",\"output\"]}");
    for (EngineInspection info : List.of(detailed, namesOnly)) {
      assertThat(info.fusedGroups()).singleElement().satisfies(g -> {
        assertThat(g.engineLayer()).isEqualTo(PWN_TINY);
        assertThat(g.networkLayers()).containsExactly("(Unnamed Layer* 0) [Activation]", "(Unnamed Layer* 1) [ElementWise]");
      });
      BuildReport report = BuildReport.builder("gpucheck-tiny").inspection(info).networkLayerCount(2).build();
      assertThat(report.fusionRate()).isEqualTo(1.0);
      assertThat(report.allFused("Activation")).isTrue();
    }
  }

  @Test
  void pointwiseNamesAreFlattenedAndASingleLayerIsNoFusion() {
    assertThat(EngineInspection.networkLayers("PWN(a, PWN(b, c))", null, null)).containsExactly("a", "b", "c");
    assertThat(EngineInspection.networkLayers("PWN((Unnamed Layer* 3) [Activation])", null, null))
        .containsExactly("(Unnamed Layer* 3) [Activation]");
    assertThat(EngineInspection.networkLayers("PWN(x, y) + z", null, null)).containsExactly("x", "y", "z");
    assertThat(EngineInspection.networkLayers("PWN(unbalanced, (", null, null)).containsExactly("PWN(unbalanced, (");
  }
}
