package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BuildDiffAndGateTest {
  private final BuildReport baseline = Reports.baseline().build();

  private static BuildReport.Layer layer(String name, String precision) {
    return new BuildReport.Layer(name, "MatrixMultiply", precision, List.of(precision), null);
  }

  @Test
  void identicalReportsDiffToNothing() {
    BuildDiff d = Reports.baseline().build().diff(baseline);
    assertThat(d.regressions()).isEmpty();
    assertThat(d.improvements()).isEmpty();
    assertThat(d.notes()).isEmpty();
  }

  @Test
  void lowerFusionRateIsARegression() {
    BuildReport current = Reports.baseline().networkLayerCount(8).build();
    assertThat(current.diff(baseline).regressions()).singleElement().satisfies(r -> {
      assertThat(r.kind()).isEqualTo(BuildDiff.Kind.FUSION_RATE);
      assertThat(r.baseline()).isEqualTo("0.833");
      assertThat(r.current()).isEqualTo("0.625");
    });
    assertThat(baseline.diff(current).improvements()).extracting(BuildDiff.Improvement::kind)
        .containsExactly(BuildDiff.Kind.FUSION_RATE);
  }

  @Test
  void layerFallingBackToHigherPrecisionIsARegressionByName() {
    BuildReport base = Reports.baseline().layer(layer("lm_head", "fp16")).build();
    BuildReport current = Reports.baseline().layer(layer("lm_head", "fp32")).build();
    assertThat(current.diff(base).regressions()).singleElement().satisfies(r -> {
      assertThat(r.kind()).isEqualTo(BuildDiff.Kind.PRECISION_FALLBACK);
      assertThat(r.detail()).contains("lm_head");
      assertThat(r.baseline()).isEqualTo("fp16");
      assertThat(r.current()).isEqualTo("fp32");
    });
  }

  @Test
  void memoryPlanAndLayerCountGrowthAreRegressions() {
    BuildReport current = Reports.baseline().deviceMemoryBytes(1_200_000).planBytes(8).engineLayerCount(6).build();
    assertThat(current.diff(baseline).regressions()).extracting(BuildDiff.Regression::kind)
        .containsExactly(BuildDiff.Kind.DEVICE_MEMORY, BuildDiff.Kind.PLAN_SIZE, BuildDiff.Kind.ENGINE_LAYER_COUNT);
  }

  @Test
  void newWarningsNewErrorsAndFailedStatusAreRegressionsAndVersionChangeIsANote() {
    BuildReport current = Reports.baseline()
        .status(BuildReport.Status.FAILED)
        .tensorrtVersion("10.16.0")
        .warning("Detected layernorm in FP16")
        .warning("a brand new warning")
        .error(new BuildReport.BuildError(2, "Internal Error", "new failure"))
        .build();
    BuildDiff d = current.diff(baseline);
    assertThat(d.regressions()).extracting(BuildDiff.Regression::kind)
        .containsExactly(BuildDiff.Kind.STATUS, BuildDiff.Kind.NEW_WARNING, BuildDiff.Kind.NEW_ERROR);
    assertThat(d.regressions().get(1).current()).isEqualTo("a brand new warning");
    assertThat(d.notes()).containsExactly("TensorRT version changed: 10.15.1 -> 10.16.0");
  }

  @Test
  void gatePassesWithinThresholds() {
    BuildReport current = Reports.baseline().deviceMemoryBytes(1_040_000).build();
    BuildGate.GateResult r = BuildGate.builder().build().check(current, baseline);
    assertThat(r.passed()).isTrue();
    assertThat(r.message()).isEqualTo("Build gate passed for llama-8b");
    assertThatCode(() -> BuildGate.builder().build().assertPasses(current, baseline)).doesNotThrowAnyException();
  }

  @Test
  void gateFailsWithAReadableMultiLineMessage() {
    BuildReport current = Reports.baseline().networkLayerCount(8).deviceMemoryBytes(2_000_000)
        .warning("a brand new warning").tensorrtVersion("10.16.0").build();
    BuildGate gate = BuildGate.builder().maxFusionRateDrop(0.02).maxMemoryGrowth(0.10).build();
    assertThatThrownBy(() -> gate.assertPasses(current, baseline))
        .isInstanceOf(AssertionError.class)
        .hasMessage("Build gate failed for llama-8b: 3 regressions against the baseline\n"
            + "  - FUSION_RATE: fusion rate dropped by 0.208 (allowed 0.020) (baseline 0.833, current 0.625)\n"
            + "  - DEVICE_MEMORY: device memory grew by 100.0 % (allowed 10.0 %) (baseline 1000000, current 2000000)\n"
            + "  - NEW_WARNING: new warning: a brand new warning\n"
            + "  note: TensorRT version changed: 10.15.1 -> 10.16.0");
  }

  @Test
  void allowFlagsLetWarningsAndFallbacksThrough() {
    BuildReport base = Reports.baseline().layer(layer("lm_head", "fp16")).build();
    BuildReport current = Reports.baseline().layer(layer("lm_head", "fp32")).warning("new one").build();
    assertThat(BuildGate.builder().build().check(current, base).failures()).hasSize(2);
    BuildGate lenient = BuildGate.builder().allowNewWarnings(true).allowPrecisionFallbacks(true).build();
    BuildGate.GateResult r = lenient.check(current, base);
    assertThat(r.passed()).isTrue();
    assertThat(r.diff().regressions()).hasSize(2);
  }

  @Test
  void thresholdsAreValidated() {
    assertThatThrownBy(() -> BuildGate.builder().maxMemoryGrowth(-0.1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxMemoryGrowth");
    assertThatThrownBy(() -> BuildGate.builder().maxFusionRateDrop(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxFusionRateDrop");
  }
}
