package io.github.trtrace.tensorrt.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** On inspector JSON written by us in the documented format (see resources/inspector/README.md). */
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
}
