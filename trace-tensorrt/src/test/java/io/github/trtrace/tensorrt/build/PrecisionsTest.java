package io.github.trtrace.tensorrt.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PrecisionsTest {

  @Test
  void theReportedPrecisionIsTheNarrowestPrecisionFlag() {
    assertThat(Precisions.fromBuilderFlags(List.of())).isEqualTo("fp32");
    assertThat(Precisions.fromBuilderFlags(List.of("TF32"))).isEqualTo("fp32");
    // the flags the H200 check set (FP16 requested, TF32 on by default): see GPU-RESULTS.md
    assertThat(Precisions.fromBuilderFlags(List.of("FP16", "TF32"))).isEqualTo("fp16");
    assertThat(Precisions.fromBuilderFlags(List.of("FP16", "INT8"))).isEqualTo("int8");
    assertThat(Precisions.fromBuilderFlags(List.of("INT8", "FP16"))).isEqualTo("int8");
    assertThat(Precisions.fromBuilderFlags(List.of("BF16", "FP8", "REFIT"))).isEqualTo("fp8");
    assertThat(Precisions.fromBuilderFlags(List.of("FP4", "FP16"))).isEqualTo("fp4");
    assertThat(Precisions.fromBuilderFlags(List.of("INT4"))).isEqualTo("fp32");
  }
}
