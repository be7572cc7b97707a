package io.github.trtrace.tensorrt.doctor;

import org.jspecify.annotations.Nullable;

/**
 * Raw facts about the environment, filled by the doctor probes (which touch JavaCPP); plain data so
 * the rules in {@link DoctorAdvice} run anywhere. Unknown values are null ({@code -1} for versions).
 *
 * <pre>{@code
 * DoctorFacts facts = DoctorFacts.builder().tensorrtVersion("10.15.1").cudaRuntimeVersion(13000)
 *     .cudaDriverVersion(13000).gpu("NVIDIA H200", "9.0").build();
 * }</pre>
 *
 * @param tensorrtVersion loaded TensorRT version, e.g. {@code 10.15.1}
 * @param tensorrtLoadError why TensorRT could not be loaded
 * @param cudaRuntimeVersion {@code cudaRuntimeGetVersion}, e.g. 13000 for 13.0; -1 unknown
 * @param cudaDriverVersion {@code cudaDriverGetVersion} (newest CUDA the driver supports); -1 unknown
 * @param cudaError why CUDA could not be initialised (e.g. no {@code libcuda.so.1})
 * @param driverVersion NVIDIA driver version, e.g. {@code 580.159.04}
 * @param gpuName e.g. {@code NVIDIA H200}
 * @param computeCapability e.g. {@code 9.0}
 * @param builderResourceFile the builder resource this GPU needs, e.g. {@code
 *     libnvinfer_builder_resource_sm90.so.10.15.1}
 * @param builderResourcePresent whether that file was found; null when not checked
 * @param builderResourceLoadError why loading it failed, or null
 * @param nvmlOk whether NVML initialised
 * @param nvmlError why NVML failed, or null
 */
public record DoctorFacts(
    @Nullable String tensorrtVersion,
    @Nullable String tensorrtLoadError,
    int cudaRuntimeVersion,
    int cudaDriverVersion,
    @Nullable String cudaError,
    @Nullable String driverVersion,
    @Nullable String gpuName,
    @Nullable String computeCapability,
    @Nullable String builderResourceFile,
    @Nullable Boolean builderResourcePresent,
    @Nullable String builderResourceLoadError,
    boolean nvmlOk,
    @Nullable String nvmlError) {

  /** A builder with everything unknown. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds {@link DoctorFacts}. */
  public static final class Builder {
    private @Nullable String tensorrtVersion;
    private @Nullable String tensorrtLoadError;
    private int cudaRuntimeVersion = -1;
    private int cudaDriverVersion = -1;
    private @Nullable String cudaError;
    private @Nullable String driverVersion;
    private @Nullable String gpuName;
    private @Nullable String computeCapability;
    private @Nullable String builderResourceFile;
    private @Nullable Boolean builderResourcePresent;
    private @Nullable String builderResourceLoadError;
    private boolean nvmlOk;
    private @Nullable String nvmlError;

    private Builder() {}

    public Builder tensorrtVersion(@Nullable String v) { tensorrtVersion = v; return this; }

    public Builder tensorrtLoadError(@Nullable String e) { tensorrtLoadError = e; return this; }

    public Builder cudaRuntimeVersion(int v) { cudaRuntimeVersion = v; return this; }

    public Builder cudaDriverVersion(int v) { cudaDriverVersion = v; return this; }

    public Builder cudaError(@Nullable String e) { cudaError = e; return this; }

    public Builder driverVersion(@Nullable String v) { driverVersion = v; return this; }

    public Builder gpu(@Nullable String name, @Nullable String cc) { gpuName = name; computeCapability = cc; return this; }

    /** The expected builder resource file and whether it is present (null: not checked). */
    public Builder builderResource(@Nullable String file, @Nullable Boolean present) {
      builderResourceFile = file;
      builderResourcePresent = present;
      return this;
    }

    public Builder builderResourceLoadError(@Nullable String e) { builderResourceLoadError = e; return this; }

    public Builder nvml(boolean ok, @Nullable String error) { nvmlOk = ok; nvmlError = error; return this; }

    /** Builds the facts. */
    public DoctorFacts build() {
      return new DoctorFacts(tensorrtVersion, tensorrtLoadError, cudaRuntimeVersion, cudaDriverVersion, cudaError,
          driverVersion, gpuName, computeCapability, builderResourceFile, builderResourcePresent,
          builderResourceLoadError, nvmlOk, nvmlError);
    }
  }
}
