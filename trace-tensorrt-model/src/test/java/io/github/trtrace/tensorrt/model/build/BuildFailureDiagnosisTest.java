package io.github.trtrace.tensorrt.model.build;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.tensorrt.model.Fixtures;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import java.util.List;
import org.junit.jupiter.api.Test;

/** On the real H200 fixtures (TensorRT 10.15.1 and 11.2.1). */
class BuildFailureDiagnosisTest {

  @Test
  void missingSm90BuilderResourceIsExplainedWithTheFileTheGpuAndTheFix() {
    BuildFailureDiagnosis d = BuildFailureDiagnosis.diagnose(Fixtures.events(Fixtures.MISSING_SM90), List.of());
    assertThat(d.cause()).isEqualTo(BuildFailureDiagnosis.Cause.MISSING_BUILDER_RESOURCE);
    assertThat(d.missingFile()).isEqualTo("libnvinfer_builder_resource_sm90.so.10.15.1");
    assertThat(d.summary())
        .contains("libnvinfer_builder_resource_sm90.so.10.15.1")
        .contains("compute capability 9.0")
        .contains("linux-x86_64-redist")
        .contains("libnvinfer.so.10")
        .contains("libnvinfer_builder_resource_ptx");
    assertThat(String.join("\n", d.fixSteps()))
        .contains("Install TensorRT 10.15 from NVIDIA (tar archive or deb/rpm packages)")
        .contains("LD_LIBRARY_PATH")
        .contains("java.library.path")
        .contains("deploy the plan file")
        .contains("needs only libnvinfer")
        .doesNotContain("setInternalLibraryPath"); // 10.15 has no such API
    assertThat(d.summary()).startsWith("The engine build failed because");
  }

  @Test
  void tensorRt112FailsAlreadyAtBuilderCreationAndTheDiagnosisSaysSo() {
    List<io.github.trtrace.tensorrt.model.log.TrtLogEvent> events = Fixtures.events(Fixtures.TRT112_BUILDER_MISSING_SM90);
    BuildFailureDiagnosis d = BuildFailureDiagnosis.diagnose(events.subList(0, 3), List.of());
    assertThat(d.cause()).isEqualTo(BuildFailureDiagnosis.Cause.MISSING_BUILDER_RESOURCE);
    assertThat(d.missingFile()).isEqualTo("libnvinfer_builder_resource_sm90.so.11.2.1");
    assertThat(d.summary())
        .startsWith("Creating the TensorRT builder failed (createInferBuilder returned null")
        .contains("compute capability 9.0")
        .contains("libnvinfer.so.11")
        .doesNotContain("libnvinfer.so.10");
    assertThat(String.join("\n", d.fixSteps()))
        .contains("Install TensorRT 11.2 from NVIDIA")
        .contains("nvinfer1::setInternalLibraryPath(dir)")
        .contains("TensorRtDoctor --builder-resource-dir");
  }

  @Test
  void setInternalLibraryPathExistsFromTensorRt1016On() {
    assertThat(BuildFailureDiagnosis.hasInternalLibraryPath("10.15.1")).isFalse();
    assertThat(BuildFailureDiagnosis.hasInternalLibraryPath("10.6.0")).isFalse();
    assertThat(BuildFailureDiagnosis.hasInternalLibraryPath("10.16.0")).isTrue();
    assertThat(BuildFailureDiagnosis.hasInternalLibraryPath("11.2.1")).isTrue();
    assertThat(BuildFailureDiagnosis.hasInternalLibraryPath("x")).isFalse();
  }

  @Test
  void errorsSeenOnlyByTheErrorRecorderAreDiagnosedToo() {
    // With a recorder attached, the logger saw only INFO lines (fixture); the error went to the recorder.
    List<RecordedError> recorded = Fixtures.recordedErrors(Fixtures.RECORDER_SHIM);
    BuildFailureDiagnosis d = BuildFailureDiagnosis.diagnose(Fixtures.events(Fixtures.RECORDER_SHIM), recorded.subList(0, 1));
    assertThat(d.cause()).isEqualTo(BuildFailureDiagnosis.Cause.MISSING_BUILDER_RESOURCE);
    assertThat(d.missingFile()).isEqualTo("libnvinfer_builder_resource_sm90.so.10.15.1");
    BuildReport failed = BuildReport.failed("m", Fixtures.events(Fixtures.RECORDER_SHIM), recorded.subList(0, 1));
    assertThat(failed.errors()).singleElement().satisfies(e -> {
      assertThat(e.code()).isEqualTo(6);
      assertThat(e.category()).isEqualTo("API Usage Error");
    });
  }

  @Test
  void ptxResourceUnderTheSm90NameIsExplainedAsAnInvalidResource() {
    BuildFailureDiagnosis d = BuildFailureDiagnosis.diagnose(Fixtures.events(Fixtures.PTX_AS_SM90), List.of());
    assertThat(d.cause()).isEqualTo(BuildFailureDiagnosis.Cause.INVALID_BUILDER_RESOURCE);
    assertThat(d.missingFile()).isEqualTo("libnvinfer_builder_resource_sm90.so.10.15.1");
    assertThat(d.summary()).contains("failed validation").contains("Klib 0 failed validation")
        .contains("_ptx resource");
    assertThat(d.fixSteps().get(0)).startsWith("Remove or replace libnvinfer_builder_resource_sm90.so.10.15.1");
    assertThat(String.join("\n", d.fixSteps())).contains("TensorRT 10.15");
  }

  @Test
  void otherFailuresGetAGenericDiagnosisQuotingTheFirstError() {
    RecordedError serialization = Fixtures.recordedErrors(Fixtures.RECORDER_SHIM).get(1);
    BuildFailureDiagnosis d = BuildFailureDiagnosis.diagnose(List.of(), List.of(serialization));
    assertThat(d.cause()).isEqualTo(BuildFailureDiagnosis.Cause.UNRECOGNISED);
    assertThat(d.summary()).startsWith("The engine build failed: IRuntime::deserializeCudaEngine: Error Code 1")
        .endsWith("...");
    assertThat(d.missingFile()).isNull();
    assertThat(d.fixSteps()).isNotEmpty();
    assertThat(BuildFailureDiagnosis.diagnose(List.of(), List.of()).summary()).contains("reported no error");
  }

  @Test
  void smNamesMapToComputeCapabilities() {
    assertThat(BuildFailureDiagnosis.computeCapability("sm90")).isEqualTo("9.0");
    assertThat(BuildFailureDiagnosis.computeCapability("sm100")).isEqualTo("10.0");
    assertThat(BuildFailureDiagnosis.computeCapability("sm89")).isEqualTo("8.9");
    assertThat(BuildFailureDiagnosis.computeCapability("ptx")).isNull();
  }
}
