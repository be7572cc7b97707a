package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A figure of the wrong JSON type is refused with its field's name, as a list of the wrong type is: read as
 * "unknown", it made the gate skip its check (a string "1200000" for device memory passed any limit).
 */
class ReportFieldTypesTest {
  private static final String HEAD = "{\"status\":\"success\",\"model_name\":\"m\",";

  @Test
  void aFigureWrittenAsAStringIsRefusedWithTheFieldName() {
    assertThatThrownBy(() -> BuildReport.read(HEAD + "\"device_memory_bytes\":\"1200000\"}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("device_memory_bytes: expected a number but got a string");
    assertThatThrownBy(() -> BuildReport.read(HEAD + "\"network_layer_count\":true}"))
        .hasMessage("network_layer_count: expected a number but got true");
    assertThatThrownBy(() -> BuildReport.read(HEAD + "\"build_ms\":\"12.5\"}"))
        .hasMessage("build_ms: expected a number but got a string");
  }

  @Test
  void aNullOrAbsentFigureIsStillUnknown() {
    BuildReport r = BuildReport.read(HEAD + "\"device_memory_bytes\":null,\"plan_bytes\":7}");
    assertThat(r.deviceMemoryBytes()).isEqualTo(-1);
    assertThat(r.planBytes()).isEqualTo(7);
    assertThat(r.engineLayerCount()).isEqualTo(-1);
  }

  @Test
  void wrongTypesAreNamedInJsonTermsNotJavaClassNames() {
    assertThatThrownBy(() -> BuildReport.read("[1,2]"))
        .hasMessage("build report: expected a JSON object but got an array");
    assertThatThrownBy(() -> BuildReport.read(HEAD + "\"fused_groups\":\"x\"}"))
        .hasMessage("fused_groups: expected a JSON array but got a string");
    assertThatThrownBy(() -> BuildReport.read(HEAD + "\"layers\":[7]}"))
        .hasMessage("layer: expected a JSON object but got a number");
  }
}
