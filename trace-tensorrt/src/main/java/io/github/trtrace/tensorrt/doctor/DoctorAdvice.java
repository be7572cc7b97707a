package io.github.trtrace.tensorrt.doctor;

import io.github.trtrace.tensorrt.doctor.DoctorReport.Finding;
import io.github.trtrace.tensorrt.doctor.DoctorReport.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Rules that turn {@link DoctorFacts} into findings with advice. Pure: no probing here.
 *
 * <pre>{@code
 * DoctorReport report = DoctorAdvice.evaluate(facts);
 * }</pre>
 */
public final class DoctorAdvice {
  private DoctorAdvice() {}

  /** Evaluates every rule, in the order tensorrt, cuda, gpu, builder_resource, nvml. */
  public static DoctorReport evaluate(DoctorFacts facts) {
    Objects.requireNonNull(facts, "facts");
    List<Finding> out = new ArrayList<>();
    out.add(tensorrt(facts));
    out.add(cuda(facts));
    out.add(gpu(facts));
    out.add(builderResource(facts));
    out.add(nvml(facts));
    return DoctorReport.of(out);
  }

  private static Finding tensorrt(DoctorFacts f) {
    if (f.tensorrtLoadError() != null) {
      return new Finding("tensorrt", Status.FAIL, "TensorRT could not be loaded: " + f.tensorrtLoadError(),
          "Add the natives (org.bytedeco:tensorrt with classifier linux-x86_64-redist) or install TensorRT"
              + " from NVIDIA and put its lib directory on LD_LIBRARY_PATH.");
    }
    if (f.tensorrtVersion() == null) {
      return new Finding("tensorrt", Status.SKIP, "TensorRT version not probed", null);
    }
    if (!f.tensorrtVersion().startsWith("10.")) {
      return new Finding("tensorrt", Status.WARN, "TensorRT " + f.tensorrtVersion() + " loaded",
          "trtrace is built against TensorRT 10.x (JavaCPP preset 10.15); use a matching TensorRT.");
    }
    return new Finding("tensorrt", Status.OK, "TensorRT " + f.tensorrtVersion() + " loaded", null);
  }

  private static Finding cuda(DoctorFacts f) {
    if (f.cudaError() != null) {
      return new Finding("cuda", Status.FAIL, "CUDA not usable: " + f.cudaError(),
          "Install the NVIDIA driver (libcuda.so.1) on this machine; the CUDA runtime alone is not enough.");
    }
    if (f.cudaRuntimeVersion() < 0 || f.cudaDriverVersion() < 0) {
      return new Finding("cuda", Status.SKIP, "CUDA versions not probed", null);
    }
    String detail = "runtime " + cudaVersion(f.cudaRuntimeVersion()) + ", driver supports up to "
        + cudaVersion(f.cudaDriverVersion())
        + (f.driverVersion() == null ? "" : " (driver " + f.driverVersion() + ")");
    if (f.cudaDriverVersion() < f.cudaRuntimeVersion()) {
      return new Finding("cuda", Status.FAIL, detail,
          "The driver is older than the CUDA runtime: update the NVIDIA driver to one supporting CUDA "
              + cudaVersion(f.cudaRuntimeVersion()) + ".");
    }
    return new Finding("cuda", Status.OK, detail, null);
  }

  private static Finding gpu(DoctorFacts f) {
    if (f.gpuName() == null) {
      return new Finding("gpu", Status.SKIP, "no GPU probed", null);
    }
    String cc = f.computeCapability() == null ? "unknown" : f.computeCapability();
    return new Finding("gpu", Status.OK, f.gpuName() + ", compute capability " + cc, null);
  }

  private static Finding builderResource(DoctorFacts f) {
    String file = f.builderResourceFile() == null ? "builder resource" : f.builderResourceFile();
    if (f.builderResourceLoadError() != null) {
      return new Finding("builder_resource", Status.WARN, file + " failed to load: " + f.builderResourceLoadError(),
          "Engine builds will fail here; running prebuilt engines works. Install the matching TensorRT from"
              + " NVIDIA (tar or deb) and put its lib directory on LD_LIBRARY_PATH, or build engines elsewhere.");
    }
    if (f.builderResourcePresent() == null) {
      return new Finding("builder_resource", Status.SKIP, file + " not checked", null);
    }
    if (!f.builderResourcePresent()) {
      return new Finding("builder_resource", Status.WARN, file + " not found",
          "Engine builds on this GPU will fail (Error Code 6: Unable to load library); running prebuilt"
              + " engines works. The Maven redist jar ships only libnvinfer.so.10 and the _ptx resource:"
              + " install TensorRT from NVIDIA and put its lib directory on LD_LIBRARY_PATH, or build the"
              + " engine where TensorRT is installed and deploy the plan.");
    }
    return new Finding("builder_resource", Status.OK, file + " present", null);
  }

  private static Finding nvml(DoctorFacts f) {
    if (f.nvmlOk()) {
      return new Finding("nvml", Status.OK, "NVML available: GPU utilisation and memory are recorded", null);
    }
    return new Finding("nvml", Status.WARN,
        "NVML unavailable" + (f.nvmlError() == null ? "" : ": " + f.nvmlError()),
        "gpu_util and gpu_mem_used_mb will be missing from records; make libnvidia-ml.so.1 loadable.");
  }

  /** 13000 to {@code 13.0}, 12040 to {@code 12.4}. */
  static String cudaVersion(int v) {
    return (v / 1000) + "." + ((v % 1000) / 10);
  }
}
