package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A build report captured on the H200 (TracedBuilder in the GPU check, 2026-11-30; see
 * gpu-runs/gpucheck-2026-11-30-run3.txt): the real failed build, read back and put
 * through diff and gate the way CI would.
 */
class CapturedReportTest {

  private static BuildReport captured() throws IOException {
    try (InputStream in =
        CapturedReportTest.class.getResourceAsStream("/reports/h200-2026-11-30-failed-sm90.build.json")) {
      assertThat(in).isNotNull();
      return BuildReport.read(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void theCapturedReportNamesTheMissingBuilderResourceAndItsFix() throws IOException {
    BuildReport r = captured();
    assertThat(r.status()).isEqualTo(BuildReport.Status.FAILED);
    assertThat(r.tensorrtVersion()).isEqualTo("10.15.1");
    assertThat(r.gpu().name()).isEqualTo("NVIDIA H200");
    assertThat(r.gpu().computeCapability()).isEqualTo("9.0");
    assertThat(r.errors()).singleElement().satisfies(e -> assertThat(e.code()).isEqualTo(6));
    assertThat(r.log()).anyMatch(l -> l.startsWith("VERBOSE builder_resource: Trying to load shared library"));
    assertThat(r.diagnosis()).isNotNull();
    assertThat(r.diagnosis().cause()).isEqualTo(BuildFailureDiagnosis.Cause.MISSING_BUILDER_RESOURCE);
    assertThat(r.diagnosis().missingFile()).isEqualTo("libnvinfer_builder_resource_sm90.so.10.15.1");
    assertThat(String.join(" ", r.diagnosis().fixSteps())).contains("LD_LIBRARY_PATH");
    // reading and writing again is lossless
    assertThat(BuildReport.read(r.toJson())).isEqualTo(r);
  }

  @Test
  void againstASuccessfulBaselineTheCapturedFailureIsARegressionAndTheGateFails() throws IOException {
    BuildReport failed = captured();
    BuildReport baseline =
        BuildReport.read(failed.toJson()).toBuilder().status(BuildReport.Status.SUCCESS).build();
    BuildReport passing = BuildReport.builder("gpucheck-tiny").build();

    BuildDiff diff = failed.diff(baseline);
    assertThat(diff.regressions()).extracting(BuildDiff.Regression::kind).contains(BuildDiff.Kind.STATUS);
    assertThatThrownBy(() -> BuildGate.builder().build().assertPasses(failed, passing))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Error Code 6");
  }

  @Test
  void aFailedCandidateFailsTheGateEvenWhenTheBaselineFailedToo() throws IOException {
    BuildReport failed = captured();
    BuildGate.GateResult r = BuildGate.builder().allowNewErrors(true).allowNewWarnings(true).build()
        .check(failed, failed);
    assertThat(r.passed()).isFalse();
    assertThat(r.failures()).singleElement().satisfies(f -> {
      assertThat(f.kind()).isEqualTo(BuildDiff.Kind.STATUS);
      assertThat(f.detail()).startsWith("the build failed (the baseline failed too): ")
          .contains("libnvinfer_builder_resource_sm90.so.10.15.1");
    });
    assertThat(r.diff().regressions()).as("failed -> failed is no change").isEmpty();
  }
}
