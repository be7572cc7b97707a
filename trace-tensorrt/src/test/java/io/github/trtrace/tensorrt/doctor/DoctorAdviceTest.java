package io.github.trtrace.tensorrt.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.tensorrt.doctor.DoctorReport.Status;
import org.junit.jupiter.api.Test;

class DoctorAdviceTest {

  /** The project's GPU host as measured (shared/gpu/README.md): redist jar, no sm90 builder resource. */
  private static DoctorFacts h200WithRedistJar() {
    return DoctorFacts.builder().tensorrtVersion("10.15.1").cudaRuntimeVersion(13000).cudaDriverVersion(13000)
        .driverVersion("580.159.04").gpu("NVIDIA H200", "9.0")
        .builderResource("libnvinfer_builder_resource_sm90.so.10.15.1", false).nvml(true, null).build();
  }

  @Test
  void gpuHostWithoutBuilderResourceWarnsThatBuildsFailButRuntimeWorks() {
    DoctorReport r = DoctorAdvice.evaluate(h200WithRedistJar());
    assertThat(r.findings()).extracting(DoctorReport.Finding::status)
        .containsExactly(Status.OK, Status.OK, Status.OK, Status.WARN, Status.OK);
    DoctorReport.Finding resource = r.findings().get(3);
    assertThat(resource.detail()).isEqualTo("libnvinfer_builder_resource_sm90.so.10.15.1 not found");
    assertThat(resource.advice()).contains("running prebuilt engines works").contains("LD_LIBRARY_PATH");
    assertThat(r.findings().get(1).detail()).isEqualTo("runtime 13.0, driver supports up to 13.0 (driver 580.159.04)");
    assertThat(r.worst()).isEqualTo(Status.WARN);
  }

  @Test
  void ciMachineWithoutDriverFails() {
    DoctorFacts ci = DoctorFacts.builder().tensorrtLoadError("UnsatisfiedLinkError: libcuda.so.1")
        .cudaError("libcuda.so.1: cannot open shared object file").nvml(false, "libnvidia-ml.so.1 not found").build();
    DoctorReport r = DoctorAdvice.evaluate(ci);
    assertThat(r.findings()).extracting(DoctorReport.Finding::status)
        .containsExactly(Status.FAIL, Status.FAIL, Status.SKIP, Status.SKIP, Status.WARN);
    assertThat(r.worst()).isEqualTo(Status.FAIL);
  }

  @Test
  void driverOlderThanRuntimeFailsWithUpdateAdvice() {
    DoctorFacts f = DoctorFacts.builder().cudaRuntimeVersion(13000).cudaDriverVersion(12040).build();
    DoctorReport.Finding cuda = DoctorAdvice.evaluate(f).findings().get(1);
    assertThat(cuda.status()).isEqualTo(Status.FAIL);
    assertThat(cuda.advice()).contains("update the NVIDIA driver").contains("CUDA 13.0");
  }

  @Test
  void textIsAlignedAndJsonParses() throws Exception {
    DoctorReport r = DoctorAdvice.evaluate(h200WithRedistJar());
    String[] lines = r.toText().split("\\R");
    assertThat(lines[0]).startsWith("[OK  ] tensorrt          TensorRT 10.15.1 loaded");
    assertThat(lines[3]).startsWith("[WARN] builder_resource  ");
    assertThat(lines[4]).startsWith(" ".repeat(25) + "-> Engine builds");
    assertThat(lines[lines.length - 1]).isEqualTo("overall: WARN");
    JsonNode json = new ObjectMapper().readTree(r.toJson());
    assertThat(json.get("overall").asText()).isEqualTo("WARN");
    assertThat(json.get("findings")).hasSize(5);
    assertThat(json.get("findings").get(0).get("advice").isNull()).isTrue();
  }
}
