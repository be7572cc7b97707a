package io.github.trtrace.tensorrt.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.tensorrt.doctor.DoctorFacts;
import io.github.trtrace.tensorrt.doctor.DoctorReport;
import io.github.trtrace.tensorrt.doctor.DoctorReport.Finding;
import io.github.trtrace.tensorrt.doctor.DoctorReport.Status;
import io.github.trtrace.tensorrt.doctor.TensorRtDoctor;
import java.util.List;
import org.junit.jupiter.api.Test;

class DoctorAdviceTest {
  private static final DoctorFacts.Gpu H200 = new DoctorFacts.Gpu(0, "NVIDIA H200", "9.0", 143_000);

  /** The project's GPU host as measured (shared/gpu/README.md): redist jar, no sm90 builder resource. */
  private static DoctorFacts h200WithRedistJar() {
    return DoctorFacts.builder().tensorrtVersion("10.15.1").cudaRuntimeVersion(13000).cudaDriverVersion(13000)
        .driverVersion("580.159.04").gpu("NVIDIA H200", "9.0")
        .builderResource("libnvinfer_builder_resource_sm90.so.10.15.1", false).nvml(true, null).build();
  }

  /** What {@link TensorRtDoctor#probe()} fills on that host, search path included. */
  private static DoctorFacts.Builder probedH200() {
    return DoctorFacts.builder().runtime("25", "Linux/amd64").tensorrtVersion("10.15.1").cudaRuntimeVersion(13000)
        .cudaDriverVersion(13000).gpu(H200).nvml(true, "NVIDIA H200: util 0%").nativeShim(true, "loaded");
  }

  private static Finding finding(DoctorReport r, String check) {
    return r.findings().stream().filter(f -> f.check().equals(check)).findFirst().orElseThrow();
  }

  @Test
  void gpuHostWithoutBuilderResourceWarnsThatBuildsFailButRuntimeWorks() {
    DoctorReport r = DoctorAdvice.evaluate(h200WithRedistJar());
    assertThat(r.findings()).extracting(Finding::check)
        .containsExactly("platform", "tensorrt", "cuda", "gpu", "builder_resource", "builder_creation", "nvml",
            "native_shim");
    assertThat(r.findings()).extracting(Finding::status).containsExactly(
        Status.SKIP, Status.OK, Status.OK, Status.OK, Status.WARN, Status.SKIP, Status.OK, Status.SKIP);
    Finding resource = r.findings().get(4);
    assertThat(resource.detail()).isEqualTo("libnvinfer_builder_resource_sm90.so.10.15.1 not found");
    assertThat(resource.advice()).contains("running prebuilt engines works").contains("LD_LIBRARY_PATH");
    assertThat(r.findings().get(2).detail()).isEqualTo("runtime 13.0, driver supports up to 13.0 (driver 580.159.04)");
    assertThat(r.worst()).isEqualTo(Status.WARN);
    assertThat(r.exitCode()).isEqualTo(1);
  }

  @Test
  void missingSm90BuilderResourceAdviceNamesTheFileTheSmAndTheFix() {
    DoctorFacts f = probedH200().builderResource("libnvinfer_builder_resource_sm90.so.10.15.1", false)
        .builderResourceSearch(null, List.of("/root/stash/trt", "/usr/lib")).build();
    Finding resource = finding(DoctorAdvice.evaluate(f), "builder_resource");
    assertThat(resource.status()).isEqualTo(Status.WARN);
    assertThat(resource.detail())
        .isEqualTo("libnvinfer_builder_resource_sm90.so.10.15.1 not found in /root/stash/trt:/usr/lib");
    assertThat(resource.advice())
        .contains("Unable to load library: libnvinfer_builder_resource_sm90.so.10.15.1")
        .contains("sm90, compute capability 9.0")
        .contains("install TensorRT 10.15.1 from NVIDIA")
        .contains("put its lib directory on LD_LIBRARY_PATH")
        .contains("build the engine on a machine with the same GPU and TensorRT version");
  }

  /** The real 11.2.1 createInferBuilder error on the H200 (shared/fixtures/trt-11.2.1-h200-builder-missing-sm90.txt). */
  private static final String TRT112_CREATE_ERROR = "createInferBuilder: Error Code 6: API Usage Error (Unable to load"
      + " library: libnvinfer_builder_resource_sm90.so.11.2.1: libnvinfer_builder_resource_sm90.so.11.2.1: cannot"
      + " open shared object file: No such file or directory In Impl at /_src/runtime/dispatch/libLoader.cpp:305)";

  @Test
  void tensorRt112OnTheH200CannotCreateABuilderAndBothFindingsSayWhy() {
    DoctorFacts f = probedH200().tensorrtVersion("11.2.1")
        .builderResource("libnvinfer_builder_resource_sm90.so.11.2.1 or libnvinfer_builder_resource.so.11.2.1", false)
        .builderResourceSearch(null, List.of("/root/stash112/trt"))
        .internalLibraryPath(true, null, null)
        .builderCreation(false, TRT112_CREATE_ERROR, 1517.5).build();
    DoctorReport r = DoctorAdvice.evaluate(f);
    assertThat(finding(r, "tensorrt").status()).isEqualTo(Status.OK);
    Finding creation = finding(r, "builder_creation");
    assertThat(creation.status()).isEqualTo(Status.WARN);
    assertThat(creation.detail()).isEqualTo("createInferBuilder returned null in 1518 ms: " + TRT112_CREATE_ERROR);
    assertThat(creation.advice()).contains("running prebuilt plans works").contains("see builder_resource");
    Finding resource = finding(r, "builder_resource");
    assertThat(resource.advice())
        .contains("Unable to load library: libnvinfer_builder_resource_sm90.so.11.2.1)")
        .contains("TensorRT 10.6 and 11.x already at createInferBuilder")
        .contains("libnvinfer.so.11 and the _ptx resource")
        .contains("nvinfer1::setInternalLibraryPath(dir) (this TensorRT 11.2.1 has it");
  }

  @Test
  void theBuilderResourceDirectoryIsReportedWithWhatSetInternalLibraryPathReturned() {
    DoctorFacts on11 = probedH200().tensorrtVersion("11.2.1")
        .builderResource("libnvinfer_builder_resource_sm90.so.11.2.1", false)
        .internalLibraryPath(true, "/opt/trt/lib/", false).build();
    assertThat(finding(DoctorAdvice.evaluate(on11), "builder_resource").detail())
        .endsWith("; setInternalLibraryPath(/opt/trt/lib/) returned false");
    DoctorFacts on1015 = probedH200().builderResource("libnvinfer_builder_resource_sm90.so.10.15.1", false)
        .internalLibraryPath(false, "/opt/trt/lib", null).build();
    DoctorReport r = DoctorAdvice.evaluate(on1015);
    assertThat(finding(r, "builder_resource").detail())
        .endsWith("--builder-resource-dir /opt/trt/lib not applied: TensorRT 10.15.1 has no setInternalLibraryPath"
            + " (10.16 and later)");
    assertThat(finding(r, "builder_resource").advice()).contains("needs TensorRT 10.16 or later");
  }

  @Test
  void tensorRtOutsideTheSupportedLinesWarns() {
    DoctorReport r = DoctorAdvice.evaluate(probedH200().tensorrtVersion("8.6.1").build());
    assertThat(finding(r, "tensorrt").status()).isEqualTo(Status.WARN);
    assertThat(finding(r, "tensorrt").advice()).contains("10.6-1.5.11").contains("11.2-1.5.14");
  }

  @Test
  void healthyProbedEnvironmentIsOkEverywhere() {
    DoctorFacts f = probedH200().cudaDriverVersion(13010)
        .builderResource("libnvinfer_builder_resource_sm90.so.10.15.1", true)
        .builderResourceSearch("/opt/trt/lib/libnvinfer_builder_resource_sm90.so.10.15.1", List.of("/opt/trt/lib"))
        .builderCreation(true, null, 812.4)
        .build();
    DoctorReport r = DoctorAdvice.evaluate(f);
    assertThat(finding(r, "builder_creation").detail()).isEqualTo("createInferBuilder returned a builder in 812 ms");
    assertThat(r.findings()).allSatisfy(x -> {
      assertThat(x.status()).isEqualTo(Status.OK);
      assertThat(x.advice()).isNull();
    });
    assertThat(r.exitCode()).isZero();
    assertThat(finding(r, "platform").detail()).isEqualTo("Java 25 on Linux/amd64");
    assertThat(finding(r, "gpu").detail()).isEqualTo("GPU 0: NVIDIA H200, compute capability 9.0 (sm90), 143000 MiB");
    assertThat(finding(r, "builder_resource").detail())
        .endsWith("present at /opt/trt/lib/libnvinfer_builder_resource_sm90.so.10.15.1");
    assertThat(finding(r, "nvml").detail()).contains("NVIDIA H200: util 0%");
  }

  @Test
  void ciMachineWithoutDriverFails() {
    DoctorFacts ci = DoctorFacts.builder().tensorrtLoadError("UnsatisfiedLinkError: libcuda.so.1")
        .cudaError("libcuda.so.1: cannot open shared object file").nvml(false, "libnvidia-ml.so.1 not found").build();
    DoctorReport r = DoctorAdvice.evaluate(ci);
    assertThat(r.findings()).extracting(Finding::status)
        .containsExactly(Status.SKIP, Status.FAIL, Status.FAIL, Status.SKIP, Status.SKIP, Status.SKIP, Status.WARN,
            Status.SKIP);
    assertThat(r.worst()).isEqualTo(Status.FAIL);
    assertThat(r.exitCode()).isEqualTo(2);
  }

  @Test
  void noDriverNoTensorRtNoNvmlNoShimGetTheirOwnAdvice() {
    DoctorFacts f = DoctorFacts.builder().tensorrtLoadError("UnsatisfiedLinkError: no jninvinfer")
        .cudaRuntimeVersion(13000).cudaDriverVersion(0).nvml(false, "UnsatisfiedLinkError: libnvidia-ml.so.1")
        .nativeShim(false, "UnsatisfiedLinkError: no trtrace_shim").build();
    DoctorReport r = DoctorAdvice.evaluate(f);
    assertThat(finding(r, "tensorrt").detail()).startsWith("TensorRT could not be loaded: UnsatisfiedLinkError");
    assertThat(finding(r, "tensorrt").advice()).contains("linux-x86_64-redist").contains("LD_LIBRARY_PATH");
    assertThat(finding(r, "cuda").status()).isEqualTo(Status.FAIL);
    assertThat(finding(r, "cuda").detail()).contains("no NVIDIA driver installed");
    assertThat(finding(r, "cuda").advice()).contains("libcuda.so.1").contains("--gpus all");
    assertThat(finding(r, "nvml").detail()).startsWith("NVML unavailable: UnsatisfiedLinkError");
    assertThat(finding(r, "nvml").advice()).contains("gpu_util").contains("'utility' capability");
    assertThat(finding(r, "native_shim").status()).isEqualTo(Status.WARN);
    assertThat(finding(r, "native_shim").advice()).contains("Per-layer profiling");
  }

  @Test
  void driverWithoutVisibleGpuFailsTheGpuCheck() {
    DoctorFacts f = DoctorFacts.builder().cudaRuntimeVersion(13000).cudaDriverVersion(13000)
        .cudaError("cudaGetDeviceCount failed: cudaError 100").build();
    DoctorReport r = DoctorAdvice.evaluate(f);
    assertThat(finding(r, "cuda").status()).isEqualTo(Status.OK);
    assertThat(finding(r, "gpu").status()).isEqualTo(Status.FAIL);
    assertThat(finding(r, "gpu").detail()).contains("no GPU is visible").contains("cudaError 100");
    assertThat(finding(r, "gpu").advice()).contains("CUDA_VISIBLE_DEVICES");
  }

  @Test
  void driverOlderThanRuntimeFailsWithUpdateAdvice() {
    DoctorFacts f = DoctorFacts.builder().cudaRuntimeVersion(13000).cudaDriverVersion(12040).build();
    DoctorReport r = DoctorAdvice.evaluate(f);
    Finding cuda = r.findings().get(2);
    assertThat(cuda.status()).isEqualTo(Status.FAIL);
    assertThat(cuda.advice()).contains("update the NVIDIA driver").contains("CUDA 13.0");
    assertThat(finding(r, "gpu").status()).isEqualTo(Status.SKIP);
  }

  @Test
  void olderDriverThanRuntimeNamesBothVersions() {
    DoctorFacts f = probedH200().cudaRuntimeVersion(13010).cudaDriverVersion(12080).build();
    Finding cuda = finding(DoctorAdvice.evaluate(f), "cuda");
    assertThat(cuda.detail()).isEqualTo("runtime 13.1, driver supports up to 12.8");
    assertThat(cuda.advice()).contains("CUDA 13.1 or newer");
  }

  @Test
  void cudaVersionsAreDecodedAsCudaEncodesThem() {
    assertThat(DoctorAdvice.cudaVersion(13000)).isEqualTo("13.0");
    assertThat(DoctorAdvice.cudaVersion(12080)).isEqualTo("12.8");
    assertThat(DoctorAdvice.cudaVersion(12040)).isEqualTo("12.4");
  }

  @Test
  void textIsAlignedAndJsonParses() throws Exception {
    DoctorReport r = DoctorAdvice.evaluate(h200WithRedistJar());
    String[] lines = r.toText().split("\\R");
    assertThat(lines[1]).startsWith("[OK  ] tensorrt          TensorRT 10.15.1 loaded");
    assertThat(lines[4]).startsWith("[WARN] builder_resource  ");
    assertThat(lines[5]).startsWith(" ".repeat(25) + "-> Engine builds");
    assertThat(lines[lines.length - 1]).isEqualTo("overall: WARN");
    JsonNode json = new ObjectMapper().readTree(r.toJson());
    assertThat(json.get("overall").asText()).isEqualTo("WARN");
    assertThat(json.get("findings")).hasSize(8);
    assertThat(json.get("findings").get(1).get("advice").isNull()).isTrue();
  }

  @Test
  void jsonCarriesTheFactsAndTheAdvice() throws Exception {
    DoctorFacts f = probedH200().builderResource("libnvinfer_builder_resource_sm90.so.10.15.1", false)
        .builderResourceSearch(null, List.of("/root/stash/trt", "/usr/lib")).build();
    JsonNode json = new ObjectMapper().readTree(DoctorAdvice.evaluate(f).toJson());
    JsonNode facts = json.path("facts");
    assertThat(facts.path("java_version").asText()).isEqualTo("25");
    assertThat(facts.path("tensorrt").path("version").asText()).isEqualTo("10.15.1");
    assertThat(facts.path("tensorrt").path("load_error").isNull()).isTrue();
    assertThat(facts.path("cuda").path("driver_version").asInt()).isEqualTo(13000);
    assertThat(facts.path("gpus").get(0).path("compute_capability").asText()).isEqualTo("9.0");
    assertThat(facts.path("gpus").get(0).path("sm").asText()).isEqualTo("sm90");
    assertThat(facts.path("gpus").get(0).path("memory_mib").asLong()).isEqualTo(143_000);
    assertThat(facts.path("builder_resource").path("present").asBoolean(true)).isFalse();
    assertThat(facts.path("builder_resource").path("searched")).hasSize(2);
    assertThat(facts.path("nvml").path("available").asBoolean()).isTrue();
    assertThat(facts.path("native_shim").path("loadable").asBoolean()).isTrue();
    JsonNode resource = json.path("findings").get(4);
    assertThat(resource.path("check").asText()).isEqualTo("builder_resource");
    assertThat(resource.path("advice").asText()).contains("LD_LIBRARY_PATH");
    assertThat(json.path("findings")).filteredOn(n -> !n.path("advice").isNull()).hasSize(1);
  }

  @Test
  void reportOfFindingsAloneHasNoFactsInJson() throws Exception {
    DoctorReport r = DoctorReport.of(List.of(new Finding("x", Status.OK, "fine", null)));
    assertThat(r.facts()).isNull();
    assertThat(new ObjectMapper().readTree(r.toJson()).has("facts")).isFalse();
  }
}
