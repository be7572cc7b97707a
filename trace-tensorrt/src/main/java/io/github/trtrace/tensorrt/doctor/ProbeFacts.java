package io.github.trtrace.tensorrt.doctor;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What {@link TensorRtDoctor}'s probes found. Plain data so that rendering and advice are tested without
 * a GPU.
 *
 * @param javaVersion {@code java.version}
 * @param platform {@code os.name/os.arch}
 * @param tensorRtVersion e.g. {@code 10.15.1}, or null when TensorRT could not be loaded
 * @param tensorRtError why TensorRT could not be loaded, or null
 * @param cudaRuntimeVersion e.g. 13000, or -1 when unknown
 * @param cudaDriverVersion e.g. 13000; 0 when no driver is installed; -1 when unknown
 * @param cudaError why CUDA could not be queried, or null
 * @param gpus the visible GPUs
 * @param builderResource the builder-resource check for the first GPU, or null when it could not run
 * @param nvml NVML access
 * @param nativeShim the trtrace native shim
 */
record ProbeFacts(
    String javaVersion,
    String platform,
    @Nullable String tensorRtVersion,
    @Nullable String tensorRtError,
    int cudaRuntimeVersion,
    int cudaDriverVersion,
    @Nullable String cudaError,
    List<Gpu> gpus,
    @Nullable BuilderResource builderResource,
    Check nvml,
    Check nativeShim) {

  ProbeFacts {
    Objects.requireNonNull(javaVersion, "javaVersion");
    Objects.requireNonNull(platform, "platform");
    gpus = List.copyOf(gpus);
    Objects.requireNonNull(nvml, "nvml");
    Objects.requireNonNull(nativeShim, "nativeShim");
  }

  /** One GPU as {@code cudaGetDeviceProperties} reports it. */
  record Gpu(int index, String name, int ccMajor, int ccMinor, long memoryMiB) {
    String sm() {
      return "sm" + ccMajor + ccMinor;
    }
  }

  /**
   * Whether {@code libnvinfer_builder_resource_sm<NN>.so.<version>} exists where the dynamic loader looks.
   *
   * @param fileName the file TensorRT will try to load
   * @param foundAt where it was found, or null
   * @param searched the directories searched
   */
  record BuilderResource(String fileName, @Nullable String foundAt, List<String> searched) {
    BuilderResource {
      searched = List.copyOf(searched);
    }
  }

  /** A yes/no probe with a one-line detail. */
  record Check(boolean ok, String detail) {}

  /** A problem and what to do about it. */
  record Advice(String problem, String action) {}
}
