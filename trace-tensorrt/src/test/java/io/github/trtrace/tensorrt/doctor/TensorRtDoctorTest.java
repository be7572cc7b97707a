package io.github.trtrace.tensorrt.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.tensorrt.doctor.ProbeFacts.BuilderResource;
import io.github.trtrace.tensorrt.doctor.ProbeFacts.Check;
import io.github.trtrace.tensorrt.doctor.ProbeFacts.Gpu;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TensorRtDoctorTest {
  private static final Gpu H200 = new Gpu(0, "NVIDIA H200", 9, 0, 143_000);
  private static final Check OK = new Check(true, "fine");

  private static ProbeFacts h200WithoutBuilderResource() {
    return new ProbeFacts("25", "Linux/amd64", "10.15.1", null, 13000, 13000, null, List.of(H200),
        new BuilderResource("libnvinfer_builder_resource_sm90.so.10.15.1", null, List.of("/root/stash/trt", "/usr/lib")),
        OK, OK);
  }

  @Test
  void missingBuilderResourceIsExplainedWithTheFileAndTheFix() {
    String text = TensorRtDoctor.renderText(h200WithoutBuilderResource());
    assertThat(text).contains("[ok]   TensorRT 10.15.1")
        .contains("GPU 0: NVIDIA H200, compute capability 9.0 (sm90)")
        .contains("[FAIL] builder resource libnvinfer_builder_resource_sm90.so.10.15.1 not found in /root/stash/trt:/usr/lib")
        .contains("Install TensorRT 10.15.1 from NVIDIA")
        .contains("LD_LIBRARY_PATH");
  }

  @Test
  void healthyEnvironmentHasNoAdvice() {
    ProbeFacts f = new ProbeFacts("17", "Linux/amd64", "10.15.1", null, 13000, 13010, null, List.of(H200),
        new BuilderResource("libnvinfer_builder_resource_sm90.so.10.15.1", "/opt/trt/lib/x", List.of("/opt/trt/lib")),
        OK, OK);
    assertThat(TensorRtDoctor.advice(f)).isEmpty();
    assertThat(TensorRtDoctor.renderText(f)).contains("No problems found.").doesNotContain("[FAIL]");
  }

  @Test
  void noDriverAndNoTensorRtGetTheirOwnAdvice() {
    ProbeFacts f = new ProbeFacts("17", "Linux/amd64", null, "UnsatisfiedLinkError: no jninvinfer", 13000, 0, null,
        List.of(), null, new Check(false, "UnsatisfiedLinkError: libnvidia-ml.so.1"), OK);
    List<ProbeFacts.Advice> advice = TensorRtDoctor.advice(f);
    assertThat(advice).extracting(ProbeFacts.Advice::problem)
        .anySatisfy(p -> assertThat(p).startsWith("TensorRT cannot be loaded"))
        .anySatisfy(p -> assertThat(p).startsWith("No usable CUDA driver"))
        .anySatisfy(p -> assertThat(p).startsWith("NVML unavailable"));
    assertThat(TensorRtDoctor.renderText(f)).contains("driver none");
  }

  @Test
  void olderDriverThanRuntimeIsReported() {
    ProbeFacts f = new ProbeFacts("17", "Linux/amd64", "10.15.1", null, 13010, 12080, null, List.of(H200), null, OK, OK);
    assertThat(TensorRtDoctor.advice(f)).singleElement()
        .satisfies(a -> assertThat(a.problem()).contains("CUDA 12.8").contains("CUDA 13.1"));
  }

  @Test
  void jsonCarriesTheSameFactsAndAdvice() throws Exception {
    JsonNode json = new ObjectMapper().readTree(TensorRtDoctor.renderJson(h200WithoutBuilderResource()));
    assertThat(json.path("tensorrt").path("version").asText()).isEqualTo("10.15.1");
    assertThat(json.path("tensorrt").path("error").isNull()).isTrue();
    assertThat(json.path("cuda").path("driver_version").asInt()).isEqualTo(13000);
    assertThat(json.path("gpus").get(0).path("compute_capability").asText()).isEqualTo("9.0");
    assertThat(json.path("builder_resource").path("found").asBoolean()).isFalse();
    assertThat(json.path("builder_resource").path("searched")).hasSize(2);
    assertThat(json.path("nvml").path("ok").asBoolean()).isTrue();
    assertThat(json.path("advice")).hasSize(1);
    assertThat(json.path("advice").get(0).path("action").asText()).contains("LD_LIBRARY_PATH");
  }

  @Test
  void versionsAreDecodedAsTensorRtAndCudaEncodeThem() {
    assertThat(TensorRtDoctor.versionString(101501)).isEqualTo("10.15.1");
    assertThat(TensorRtDoctor.cudaVersionString(13000)).isEqualTo("13.0");
    assertThat(TensorRtDoctor.cudaVersionString(12080)).isEqualTo("12.8");
  }

  @Test
  void builderResourceIsFoundInTheFirstDirectoryOfTheSearchPathThatHasIt(@TempDir Path tmp) throws Exception {
    Path a = Files.createDirectories(tmp.resolve("a"));
    Path b = Files.createDirectories(tmp.resolve("b"));
    Files.writeString(b.resolve("libnvinfer_builder_resource_sm90.so.10.15.1"), "x");
    BuilderResource r = TensorRtDoctor.findBuilderResource(H200, "10.15.1", List.of(a.toString(), b.toString()));
    assertThat(r.foundAt()).isEqualTo(b.resolve("libnvinfer_builder_resource_sm90.so.10.15.1").toString());
    BuilderResource missing = TensorRtDoctor.findBuilderResource(new Gpu(0, "L4", 8, 9, 1), "10.15.1", List.of(a.toString()));
    assertThat(missing.fileName()).isEqualTo("libnvinfer_builder_resource_sm89.so.10.15.1");
    assertThat(missing.foundAt()).isNull();
  }

  @Test
  void searchPathStartsWithLdLibraryPathAndIncludesSystemDirectories() {
    List<String> path = TensorRtDoctor.builderResourceSearchPath();
    String ld = System.getenv("LD_LIBRARY_PATH");
    if (ld != null && !ld.isBlank()) {
      assertThat(path.get(0)).isEqualTo(ld.split(":")[0]);
    }
    assertThat(path).contains("/usr/lib/x86_64-linux-gnu");
  }
}
