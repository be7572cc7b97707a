package io.github.trtrace.tensorrt.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Raw facts about the environment, filled by {@link TensorRtDoctor#probe()} (the only class that touches
 * JavaCPP); plain data so the rules ({@link DoctorReport#evaluate}) run anywhere. Unknown values are null
 * ({@code -1} for versions, an empty list for GPUs); a null {@code Boolean} means "not checked".
 *
 * <pre>{@code
 * DoctorFacts facts = DoctorFacts.builder().tensorrtVersion("10.15.1").cudaRuntimeVersion(13000)
 *     .cudaDriverVersion(13000).gpu("NVIDIA H200", "9.0")
 *     .builderResource("libnvinfer_builder_resource_sm90.so.10.15.1", false).build();
 * }</pre>
 *
 * @param javaVersion {@code java.version}
 * @param platform {@code os.name/os.arch}, e.g. {@code Linux/amd64}
 * @param tensorrtVersion loaded TensorRT version, e.g. {@code 10.15.1}
 * @param tensorrtLoadError why TensorRT could not be loaded
 * @param cudaRuntimeVersion {@code cudaRuntimeGetVersion}, e.g. 13000 for 13.0; -1 unknown
 * @param cudaDriverVersion {@code cudaDriverGetVersion} (newest CUDA the driver supports); 0 when no driver
 *     is installed; -1 unknown
 * @param cudaError why CUDA could not be initialised or listed no device (e.g. no {@code libcuda.so.1})
 * @param driverVersion NVIDIA driver version, e.g. {@code 580.159.04}
 * @param gpus the visible GPUs, in CUDA device order
 * @param builderResourceFile the builder resource the first GPU needs, e.g. {@code
 *     libnvinfer_builder_resource_sm90.so.10.15.1}
 * @param builderResourcePresent whether that file was found; null when not checked
 * @param builderResourcePath where it was found, or null
 * @param builderResourceSearched the directories searched for it, in search order
 * @param builderResourceLoadError why loading it failed, or null
 * @param nvmlAvailable whether NVML initialised and read the first GPU; null when not checked
 * @param nvmlDetail what NVML read when available, why it failed otherwise; or null
 * @param nativeShimLoadable whether the trtrace native shim loaded and passed its self check; null when
 *     not checked
 * @param nativeShimDetail what the shim self check found, or why the shim did not load; or null
 * @param builderCreated whether {@code createInferBuilder} returned a builder; null when not tried (it is
 *     tried only with a logger: {@link TensorRtDoctor#report(io.github.trtrace.tensorrt.log.TensorRtLogger)} or
 *     the command line)
 * @param builderCreationError the first error TensorRT logged when it returned no builder, or null
 * @param builderCreationMs how long {@code createInferBuilder} took, NaN when not tried
 * @param internalLibraryPathApi whether the loaded TensorRT has {@code setInternalLibraryPath} (10.16+ and
 *     11.x); null when not checked
 * @param internalLibraryPath the directory the doctor passed to {@code setInternalLibraryPath}, or null
 * @param internalLibraryPathAccepted what {@code setInternalLibraryPath} returned; null when not called
 */
public record DoctorFacts(
    @Nullable String javaVersion,
    @Nullable String platform,
    @Nullable String tensorrtVersion,
    @Nullable String tensorrtLoadError,
    int cudaRuntimeVersion,
    int cudaDriverVersion,
    @Nullable String cudaError,
    @Nullable String driverVersion,
    List<Gpu> gpus,
    @Nullable String builderResourceFile,
    @Nullable Boolean builderResourcePresent,
    @Nullable String builderResourcePath,
    List<String> builderResourceSearched,
    @Nullable String builderResourceLoadError,
    @Nullable Boolean nvmlAvailable,
    @Nullable String nvmlDetail,
    @Nullable Boolean nativeShimLoadable,
    @Nullable String nativeShimDetail,
    @Nullable Boolean builderCreated,
    @Nullable String builderCreationError,
    double builderCreationMs,
    @Nullable Boolean internalLibraryPathApi,
    @Nullable String internalLibraryPath,
    @Nullable Boolean internalLibraryPathAccepted) {

  /** Copies the lists. */
  public DoctorFacts {
    gpus = List.copyOf(gpus);
    builderResourceSearched = List.copyOf(builderResourceSearched);
  }

  /**
   * One GPU as {@code cudaGetDeviceProperties} reports it.
   *
   * <pre>{@code
   * new DoctorFacts.Gpu(0, "NVIDIA H200", "9.0", 143_156).sm();   // "sm90"
   * }</pre>
   *
   * @param index CUDA device index
   * @param name e.g. {@code NVIDIA H200}
   * @param computeCapability {@code major.minor}, e.g. {@code 9.0}
   * @param memoryMiB total device memory in MiB, or -1 when unknown
   */
  public record Gpu(int index, String name, String computeCapability, long memoryMiB) {
    /** Checks the name and the compute capability. */
    public Gpu {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(computeCapability, "computeCapability");
    }

    /** The SM name TensorRT uses in file names: {@code 9.0} is {@code sm90}, {@code 12.0} is {@code sm120}. */
    public String sm() {
      return "sm" + computeCapability.replace(".", "");
    }
  }

  /** The CUDA runtime version as {@code major.minor} ({@code 13000} is {@code 13.0}), or null when unknown. */
  public @Nullable String cudaRuntime() {
    return cudaRuntimeVersion < 0 ? null : DoctorAdvice.cudaVersion(cudaRuntimeVersion);
  }

  /** A builder with everything unknown. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds {@link DoctorFacts}; every setter returns the builder. */
  public static final class Builder {
    private @Nullable String javaVersion;
    private @Nullable String platform;
    private @Nullable String tensorrtVersion;
    private @Nullable String tensorrtLoadError;
    private int cudaRuntimeVersion = -1;
    private int cudaDriverVersion = -1;
    private @Nullable String cudaError;
    private @Nullable String driverVersion;
    private final List<Gpu> gpus = new ArrayList<>();
    private @Nullable String builderResourceFile;
    private @Nullable Boolean builderResourcePresent;
    private @Nullable String builderResourcePath;
    private List<String> builderResourceSearched = List.of();
    private @Nullable String builderResourceLoadError;
    private @Nullable Boolean nvmlAvailable;
    private @Nullable String nvmlDetail;
    private @Nullable Boolean nativeShimLoadable;
    private @Nullable String nativeShimDetail;
    private @Nullable Boolean builderCreated;
    private @Nullable String builderCreationError;
    private double builderCreationMs = Double.NaN;
    private @Nullable Boolean internalLibraryPathApi;
    private @Nullable String internalLibraryPath;
    private @Nullable Boolean internalLibraryPathAccepted;

    private Builder() {}

    /** The Java version and the {@code os.name/os.arch} platform. */
    public Builder runtime(@Nullable String javaVersion, @Nullable String platform) {
      this.javaVersion = javaVersion;
      this.platform = platform;
      return this;
    }

    /** The loaded TensorRT version, e.g. {@code 10.15.1}. */
    public Builder tensorrtVersion(@Nullable String v) { tensorrtVersion = v; return this; }

    /** Why TensorRT could not be loaded. */
    public Builder tensorrtLoadError(@Nullable String e) { tensorrtLoadError = e; return this; }

    /** {@code cudaRuntimeGetVersion}, e.g. 13000. */
    public Builder cudaRuntimeVersion(int v) { cudaRuntimeVersion = v; return this; }

    /** {@code cudaDriverGetVersion}, e.g. 13000; 0 when no driver is installed. */
    public Builder cudaDriverVersion(int v) { cudaDriverVersion = v; return this; }

    /** Why CUDA could not be initialised or listed no device. */
    public Builder cudaError(@Nullable String e) { cudaError = e; return this; }

    /** The NVIDIA driver version, e.g. {@code 580.159.04}. */
    public Builder driverVersion(@Nullable String v) { driverVersion = v; return this; }

    /** Adds the next GPU (index = GPUs added so far), memory unknown. */
    public Builder gpu(String name, String computeCapability) {
      return gpu(new Gpu(gpus.size(), name, computeCapability, -1));
    }

    /** Adds a GPU. */
    public Builder gpu(Gpu gpu) { gpus.add(Objects.requireNonNull(gpu, "gpu")); return this; }

    /** The expected builder resource file and whether it is present (null: not checked). */
    public Builder builderResource(@Nullable String file, @Nullable Boolean present) {
      builderResourceFile = file;
      builderResourcePresent = present;
      return this;
    }

    /** Where the builder resource was found (null: nowhere) and the directories searched, in order. */
    public Builder builderResourceSearch(@Nullable String foundAt, List<String> searched) {
      builderResourcePath = foundAt;
      builderResourceSearched = List.copyOf(searched);
      return this;
    }

    /** Why loading the builder resource failed. */
    public Builder builderResourceLoadError(@Nullable String e) { builderResourceLoadError = e; return this; }

    /** Whether NVML works, with what it read (ok) or why it failed. */
    public Builder nvml(boolean ok, @Nullable String detail) { nvmlAvailable = ok; nvmlDetail = detail; return this; }

    /** Whether the trtrace native shim loaded and passed its self check, with the detail. */
    public Builder nativeShim(boolean ok, @Nullable String detail) {
      nativeShimLoadable = ok;
      nativeShimDetail = detail;
      return this;
    }

    /** What {@code createInferBuilder} did: a builder or not, the first error logged, the time it took. */
    public Builder builderCreation(boolean created, @Nullable String error, double ms) {
      builderCreated = created;
      builderCreationError = error;
      builderCreationMs = ms;
      return this;
    }

    /**
     * Whether TensorRT has {@code setInternalLibraryPath}; the directory the doctor passed to it (or null)
     * and what it returned (null when not called).
     */
    public Builder internalLibraryPath(boolean apiAvailable, @Nullable String dir, @Nullable Boolean accepted) {
      internalLibraryPathApi = apiAvailable;
      internalLibraryPath = dir;
      internalLibraryPathAccepted = accepted;
      return this;
    }

    /** Builds the facts. */
    public DoctorFacts build() {
      return new DoctorFacts(javaVersion, platform, tensorrtVersion, tensorrtLoadError, cudaRuntimeVersion,
          cudaDriverVersion, cudaError, driverVersion, gpus, builderResourceFile, builderResourcePresent,
          builderResourcePath, builderResourceSearched, builderResourceLoadError, nvmlAvailable, nvmlDetail,
          nativeShimLoadable, nativeShimDetail, builderCreated, builderCreationError, builderCreationMs,
          internalLibraryPathApi, internalLibraryPath, internalLibraryPathAccepted);
    }
  }
}
