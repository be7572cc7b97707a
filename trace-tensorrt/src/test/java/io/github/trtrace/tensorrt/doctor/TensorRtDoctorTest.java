package io.github.trtrace.tensorrt.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The probe side without a GPU: version decoding, the builder-resource search, the command line. */
class TensorRtDoctorTest {
  private static final DoctorFacts.Gpu H200 = new DoctorFacts.Gpu(0, "NVIDIA H200", "9.0", 143_000);

  @Test
  void versionsAreDecodedAsTensorRtEncodesThem() {
    assertThat(TensorRtDoctor.versionString(101501)).isEqualTo("10.15.1");
    assertThat(TensorRtDoctor.versionString(100803)).isEqualTo("10.8.3");
  }

  @Test
  void builderResourceFileIsNamedAfterTheSmAndTheTensorRtVersion() {
    assertThat(TensorRtDoctor.builderResourceFile(H200, "10.15.1"))
        .isEqualTo("libnvinfer_builder_resource_sm90.so.10.15.1");
    assertThat(TensorRtDoctor.builderResourceFile(new DoctorFacts.Gpu(0, "L4", "8.9", 1), "10.15.1"))
        .isEqualTo("libnvinfer_builder_resource_sm89.so.10.15.1");
    assertThat(TensorRtDoctor.builderResourceFile(new DoctorFacts.Gpu(0, "B200", "12.0", 1), "10.15.1"))
        .isEqualTo("libnvinfer_builder_resource_sm120.so.10.15.1");
  }

  @Test
  void tensorRt106ShipsOneBuilderResourceForEveryGpu() {
    assertThat(TensorRtDoctor.allGpuBuilderResourceFile("10.6.0")).isEqualTo("libnvinfer_builder_resource.so.10.6.0");
  }

  @Test
  void setInternalLibraryPathIsFoundExactlyInThe112Preset() {
    // one preset per Maven profile: 10.6-1.5.11 and 10.15-1.5.13 have no such function, 11.2-1.5.14 has it
    String preset = org.bytedeco.tensorrt.global.nvinfer.class.getPackage().getImplementationVersion();
    assertThat(preset).as("the preset jar's Implementation-Version").isNotNull();
    assertThat(TensorRtDoctor.internalLibraryPathMethod() != null).as("preset " + preset)
        .isEqualTo(preset.startsWith("11."));
  }

  @Test
  void builderResourceIsFoundInTheFirstDirectoryOfTheSearchPathThatHasIt(@TempDir Path tmp) throws Exception {
    Path a = Files.createDirectories(tmp.resolve("a"));
    Path b = Files.createDirectories(tmp.resolve("b"));
    Path c = Files.createDirectories(tmp.resolve("c"));
    String file = "libnvinfer_builder_resource_sm90.so.10.15.1";
    Files.writeString(b.resolve(file), "x");
    Files.writeString(c.resolve(file), "x");
    assertThat(TensorRtDoctor.findBuilderResource(file, List.of(a.toString(), b.toString(), c.toString())))
        .isEqualTo(b.resolve(file).toString());
    assertThat(TensorRtDoctor.findBuilderResource("libnvinfer_builder_resource_sm89.so.10.15.1",
        List.of(a.toString(), b.toString()))).isNull();
  }

  /**
   * The 10.6 preset ships one all-GPU builder resource and builds on the H200; the doctor warned that
   * the sm90 file was missing (H200 run of 2026-12-01). Failed before the all-GPU file was looked for.
   */
  @Test
  void theAllGpuBuilderResourceServesWhenThePerArchitectureFileIsAbsent(@TempDir Path tmp) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("trt"));
    List<String> path = List.of(dir.toString());
    assertThat(TensorRtDoctor.locateBuilderResource(H200, "10.6.0", path))
        .containsExactly("libnvinfer_builder_resource_sm90.so.10.6.0", null);
    Files.writeString(dir.resolve("libnvinfer_builder_resource.so.10.6.0"), "x");
    assertThat(TensorRtDoctor.locateBuilderResource(H200, "10.6.0", path))
        .containsExactly("libnvinfer_builder_resource.so.10.6.0", dir.resolve("libnvinfer_builder_resource.so.10.6.0").toString());
    Files.writeString(dir.resolve("libnvinfer_builder_resource_sm90.so.10.6.0"), "x");
    assertThat(TensorRtDoctor.locateBuilderResource(H200, "10.6.0", path)[0])
        .isEqualTo("libnvinfer_builder_resource_sm90.so.10.6.0");
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

  @Test
  void unknownArgumentPrintsUsageAndExitsWithoutProbing() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = TensorRtDoctor.run(new String[] {"--xml"}, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(rc).isEqualTo(TensorRtDoctor.EXIT_USAGE).isNotIn(0, 1, 2);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("usage: TensorRtDoctor [--json] [--no-builder] [--builder-resource-dir=DIR]");
    assertThat(TensorRtDoctor.run(new String[] {"--builder-resource-dir="}, new PrintStream(out, true,
        StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))).isEqualTo(TensorRtDoctor.EXIT_USAGE);
  }
}
