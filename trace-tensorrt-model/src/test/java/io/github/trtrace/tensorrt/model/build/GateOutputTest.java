package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What the gate prints must match what it decided: a failing figure never reads as equal to its limit, and a
 * check the gate could not make is said, with the reason, instead of passing in silence.
 */
class GateOutputTest {
  private final BuildReport baseline = Reports.baseline().build();

  @Test
  void aMemoryGrowthJustOverTheLimitDoesNotReadAsEqualToIt() {
    // 5.04 % against the default 5 %: fails, and must not say "grew by 5.0 % (allowed 5.0 %)"
    BuildReport current = Reports.baseline().deviceMemoryBytes(1_050_400).build();
    BuildGate.GateResult r = BuildGate.builder().build().check(current, baseline);
    assertThat(r.passed()).isFalse();
    assertThat(r.failures()).singleElement().satisfies(f -> assertThat(f.detail())
        .isEqualTo("device memory grew by 5.04 % (allowed 5.00 %)"));
  }

  @Test
  void aPlanGrowthOfOneByteInAMillionStillShowsTheDifference() {
    BuildReport base = Reports.baseline().planBytes(1_000_000).build();
    BuildReport current = Reports.baseline().planBytes(1_050_001).build();
    assertThat(BuildGate.builder().build().check(current, base).failures()).singleElement()
        .satisfies(f -> assertThat(f.detail()).isEqualTo("plan size grew by 5.0001 % (allowed 5.0000 %)"));
  }

  @Test
  void aFusionRateDropJustOverTheLimitDoesNotReadAsEqualToIt() {
    // 5 network layers absorbed of 38, then of 45: a drop of 0.02047 against an allowed 0.02 fails
    BuildReport base = Reports.baseline().networkLayerCount(38).build();
    BuildReport current = Reports.baseline().networkLayerCount(45).build();
    BuildGate.GateResult r = BuildGate.builder().maxFusionRateDrop(0.02).build().check(current, base);
    assertThat(r.passed()).isFalse();
    assertThat(r.failures()).singleElement().satisfies(f -> assertThat(f.detail())
        .isEqualTo("fusion rate dropped by 0.0205 (allowed 0.0200)"));
  }

  @Test
  void aMissingDeviceMemoryFigureIsASkippedCheckThatTheGateSays() {
    BuildReport current = Reports.baseline().deviceMemoryBytes(-1).build();
    BuildGate.GateResult r = BuildGate.builder().build().check(current, baseline);
    assertThat(r.passed()).isTrue(); // a skipped check does not fail the gate by default
    assertThat(r.message()).isEqualTo("Build gate passed for llama-8b\n"
        + "  note: skipped the device-memory growth check: the new report has no device memory figure"
        + " (device_memory_bytes)");
  }

  @Test
  void aZeroByteBaselineIsASkippedCheckThatTheGateSays() {
    BuildReport base = Reports.baseline().deviceMemoryBytes(0).build();
    BuildReport current = Reports.baseline().deviceMemoryBytes(900_000_000).build();
    BuildGate.GateResult r = BuildGate.builder().build().check(current, base);
    assertThat(r.passed()).isTrue();
    assertThat(r.message()).contains(
        "note: skipped the device-memory growth check: the baseline's device memory is 0 bytes (no growth ratio)");
  }

  @Test
  void aBaselineWithoutFiguresSaysEveryCheckItSkipped() {
    BuildReport bare = BuildReport.builder("llama-8b").tensorrtVersion("10.15.1")
        .warning("Detected layernorm in FP16").build();
    BuildGate.GateResult r = BuildGate.builder().build().check(baseline, bare);
    assertThat(r.passed()).isTrue();
    assertThat(r.diff().notes()).containsExactly(
        "skipped the fusion-rate check: the baseline has no network layer count (network_layer_count)",
        "skipped the precision-fallback check: the baseline has no layer precisions (layers[].precision)",
        "skipped the device-memory growth check: the baseline has no device memory figure (device_memory_bytes)",
        "skipped the plan-size growth check: the baseline has no plan size (plan_bytes)",
        "skipped the engine-layer check: the baseline has no engine layer count (engine_layer_count)");
  }

  @Test
  void aFailedNewBuildFailsOnItsStatusWithoutSkipNotes() {
    BuildReport failed = BuildReport.builder("llama-8b").tensorrtVersion("10.15.1")
        .status(BuildReport.Status.FAILED).build();
    BuildGate.GateResult r = BuildGate.builder().build().check(failed, baseline);
    assertThat(r.passed()).isFalse();
    assertThat(r.diff().notes()).isEmpty();
  }

  @Test
  void aBaselineWithoutLayerPrecisionsSaysThePrecisionCheckWasSkipped() {
    // no engine inspection (a build without detailed profiling verbosity): no layer to compare precisions with
    BuildReport bare = BuildReport.builder("llama-8b").tensorrtVersion("10.15.1").networkLayerCount(6)
        .engineLayerCount(baseline.engineLayerCount()).deviceMemoryBytes(1_000_000).planBytes(4).warning("Detected layernorm in FP16").build();
    BuildGate.GateResult r = BuildGate.builder().build().check(baseline, bare);
    assertThat(r.passed()).as(r.message()).isTrue();
    assertThat(r.diff().notes()).containsExactly(
        "skipped the precision-fallback check: the baseline has no layer precisions (layers[].precision)");
  }

  @Test
  void aFusionRateDropLimitAboveOneIsRefusedAsByTheCli() {
    // a rate is a fraction: a drop limit of 2 (say, meant as 2 %) would pass every build; trtrace gate refuses it
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> BuildGate.builder().maxFusionRateDrop(2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxFusionRateDrop must be 0..1");
    assertThat(BuildGate.builder().maxFusionRateDrop(1).maxFusionRateDrop(0)).isNotNull();
  }
}
