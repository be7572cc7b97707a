package io.github.trtrace.tensorrt.doctor;

import io.github.trtrace.tensorrt.doctor.DoctorFacts.Gpu;
import io.github.trtrace.tensorrt.doctor.DoctorReport.Finding;
import io.github.trtrace.tensorrt.doctor.DoctorReport.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Rules that turn {@link DoctorFacts} into findings with advice. Pure: no probing here. Users reach them
 * through {@link DoctorReport#evaluate(DoctorFacts)}.
 */
final class DoctorAdvice {
  private static final Pattern RESOURCE_SM = Pattern.compile("_sm(\\d+)\\.so");

  private DoctorAdvice() {}

  /**
   * Evaluates every rule, in the order platform, tensorrt, cuda, gpu, builder_resource, builder_creation,
   * nvml, native_shim.
   */
  static DoctorReport evaluate(DoctorFacts facts) {
    Objects.requireNonNull(facts, "facts");
    List<Finding> out = new ArrayList<>();
    out.add(platform(facts));
    out.add(tensorrt(facts));
    out.add(cuda(facts));
    out.add(gpu(facts));
    out.add(builderResource(facts));
    out.add(builderCreation(facts));
    out.add(nvml(facts));
    out.add(nativeShim(facts));
    return DoctorReport.of(facts, out);
  }

  private static Finding platform(DoctorFacts f) {
    if (f.javaVersion() == null && f.platform() == null) {
      return new Finding("platform", Status.SKIP, "Java and platform not probed", null);
    }
    return new Finding("platform", Status.OK, "Java " + orUnknown(f.javaVersion()) + " on " + orUnknown(f.platform()),
        null);
  }

  private static Finding tensorrt(DoctorFacts f) {
    if (f.tensorrtLoadError() != null) {
      return new Finding("tensorrt", Status.FAIL, "TensorRT could not be loaded: " + f.tensorrtLoadError(),
          "Add org.bytedeco:tensorrt with classifier linux-x86_64 (the JNI part) and TensorRT's libraries:"
              + " install TensorRT from NVIDIA and put its lib directory on LD_LIBRARY_PATH, or add the"
              + " linux-x86_64-redist artifact (runtime only: it cannot build engines on every GPU).");
    }
    if (f.tensorrtVersion() == null) {
      return new Finding("tensorrt", Status.SKIP, "TensorRT version not probed", null);
    }
    if (!f.tensorrtVersion().startsWith("10.") && !f.tensorrtVersion().startsWith("11.")) {
      return new Finding("tensorrt", Status.WARN, "TensorRT " + f.tensorrtVersion() + " loaded",
          "trtrace supports TensorRT 10.x (presets 10.6-1.5.11 and 10.15-1.5.13) and 11.x (preset 11.2-1.5.14);"
              + " its native callbacks have no layout for this version. Use a supported TensorRT.");
    }
    return new Finding("tensorrt", Status.OK, "TensorRT " + f.tensorrtVersion() + " loaded", null);
  }

  private static final String INSTALL_DRIVER =
      "Install the NVIDIA driver (libcuda.so.1) on this machine; the CUDA runtime alone is not enough. In a"
          + " container, run with the NVIDIA Container Toolkit (--gpus all) so the driver libraries are mounted.";

  private static Finding cuda(DoctorFacts f) {
    if (f.cudaDriverVersion() == 0) {
      return new Finding("cuda", Status.FAIL, "CUDA not usable: no NVIDIA driver installed (cudaDriverGetVersion"
          + " reports 0)" + (f.cudaError() == null ? "" : "; " + f.cudaError()), INSTALL_DRIVER);
    }
    if (f.cudaRuntimeVersion() < 0 || f.cudaDriverVersion() < 0) {
      return f.cudaError() == null
          ? new Finding("cuda", Status.SKIP, "CUDA versions not probed", null)
          : new Finding("cuda", Status.FAIL, "CUDA not usable: " + f.cudaError(), INSTALL_DRIVER);
    }
    String detail = "runtime " + cudaVersion(f.cudaRuntimeVersion()) + ", driver supports up to "
        + cudaVersion(f.cudaDriverVersion())
        + (f.driverVersion() == null ? "" : " (driver " + f.driverVersion() + ")");
    if (f.cudaDriverVersion() < f.cudaRuntimeVersion()) {
      return new Finding("cuda", Status.FAIL, detail,
          "The driver is older than the CUDA runtime: update the NVIDIA driver to one supporting CUDA "
              + cudaVersion(f.cudaRuntimeVersion()) + " or newer.");
    }
    return new Finding("cuda", Status.OK, detail, null);
  }

  private static Finding gpu(DoctorFacts f) {
    if (!f.gpus().isEmpty()) {
      List<String> parts = new ArrayList<>();
      for (Gpu g : f.gpus()) {
        parts.add("GPU " + g.index() + ": " + g.name() + ", compute capability " + g.computeCapability() + " ("
            + g.sm() + ")" + (g.memoryMiB() < 0 ? "" : ", " + g.memoryMiB() + " MiB"));
      }
      return new Finding("gpu", Status.OK, String.join("; ", parts), null);
    }
    boolean driverUsable = f.cudaDriverVersion() > 0
        && (f.cudaRuntimeVersion() < 0 || f.cudaDriverVersion() >= f.cudaRuntimeVersion());
    if (driverUsable) {
      return new Finding("gpu", Status.FAIL,
          "the driver is installed but no GPU is visible" + (f.cudaError() == null ? "" : ": " + f.cudaError()),
          "Check CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES and that the container was started with GPUs.");
    }
    return new Finding("gpu", Status.SKIP, "no GPU probed", null);
  }

  private static Finding builderResource(DoctorFacts f) {
    String file = f.builderResourceFile() == null ? "builder resource" : f.builderResourceFile();
    String fix = "install TensorRT " + (f.tensorrtVersion() == null ? "" : f.tensorrtVersion() + " ")
        + "from NVIDIA (tar or deb) and put its lib directory on LD_LIBRARY_PATH, or build the engine on a"
        + " machine with the same GPU and TensorRT version and deploy the plan here (deserializing needs only"
        + " libnvinfer)." + internalLibraryPathAdvice(f);
    String pathNote = internalLibraryPathNote(f);
    if (f.builderResourceLoadError() != null) {
      return new Finding("builder_resource", Status.WARN,
          file + " failed to load: " + f.builderResourceLoadError() + pathNote,
          "Engine builds will fail here; running prebuilt engines works. To fix it, " + fix);
    }
    if (f.builderResourcePresent() == null) {
      return new Finding("builder_resource", Status.SKIP, file + " not checked" + pathNote, null);
    }
    if (!f.builderResourcePresent()) {
      String searched = f.builderResourceSearched().isEmpty() ? ""
          : " in " + String.join(":", f.builderResourceSearched());
      String major = f.tensorrtVersion() == null ? "" : "." + f.tensorrtVersion().split("\\.")[0];
      return new Finding("builder_resource", Status.WARN, file + " not found" + searched + pathNote,
          "Engine builds on this GPU" + gpuArchitecture(f) + " will fail with 'Error Code 6: API Usage Error"
              + " (Unable to load library: " + firstName(file) + ")' (TensorRT 10.6 and 11.x already at"
              + " createInferBuilder, 10.15 at buildSerializedNetwork); running prebuilt engines works. The Maven"
              + " redist jar ships only libnvinfer.so" + major + " and the _ptx resource, not " + file + ": " + fix);
    }
    return new Finding("builder_resource", Status.OK,
        file + " present" + (f.builderResourcePath() == null ? "" : " at " + f.builderResourcePath()) + pathNote,
        null);
  }

  /** The first name of {@code "a or b"}. */
  private static String firstName(String files) {
    int or = files.indexOf(" or ");
    return or < 0 ? files : files.substring(0, or);
  }

  private static String internalLibraryPathNote(DoctorFacts f) {
    if (f.internalLibraryPath() == null) {
      return "";
    }
    if (!Boolean.TRUE.equals(f.internalLibraryPathApi())) {
      return "; --builder-resource-dir " + f.internalLibraryPath() + " not applied: TensorRT "
          + orUnknown(f.tensorrtVersion()) + " has no setInternalLibraryPath (10.16 and later)";
    }
    return "; setInternalLibraryPath(" + f.internalLibraryPath() + ") returned " + f.internalLibraryPathAccepted();
  }

  private static String internalLibraryPathAdvice(DoctorFacts f) {
    if (Boolean.TRUE.equals(f.internalLibraryPathApi())) {
      return " Or tell TensorRT where the file is: nvinfer1::setInternalLibraryPath(dir) (this TensorRT "
          + orUnknown(f.tensorrtVersion()) + " has it; JavaCPP nvinfer.setInternalLibraryPath) before creating the"
          + " builder; TensorRtDoctor --builder-resource-dir=<dir> tries it.";
    }
    if (Boolean.FALSE.equals(f.internalLibraryPathApi())) {
      return " (nvinfer1::setInternalLibraryPath, which names the directory, needs TensorRT 10.16 or later.)";
    }
    return "";
  }

  private static Finding builderCreation(DoctorFacts f) {
    if (f.builderCreated() == null) {
      return new Finding("builder_creation", Status.SKIP,
          "createInferBuilder not tried (the command line tries it; in an application pass its logger to"
              + " TensorRtDoctor.report(logger))", null);
    }
    String ms = Double.isFinite(f.builderCreationMs())
        ? String.format(Locale.ROOT, " in %.0f ms", f.builderCreationMs()) : "";
    if (f.builderCreated()) {
      boolean missing = Boolean.FALSE.equals(f.builderResourcePresent());
      return new Finding("builder_creation", Status.OK, "createInferBuilder returned a builder" + ms
          + (missing ? " (this TensorRT loads the builder resource only when building: see builder_resource)" : ""),
          null);
    }
    return new Finding("builder_creation", Status.WARN,
        "createInferBuilder returned null" + ms + ": "
            + (f.builderCreationError() == null ? "TensorRT logged no error" : f.builderCreationError()),
        "No engine can be built in this process; deserializing and running prebuilt plans works. TensorRT 10.6"
            + " and 11.x refuse to create a builder when the builder resource for the GPU is missing: see"
            + " builder_resource for the file and the fix.");
  }

  /** {@code " (sm90, compute capability 9.0)"} from the resource file name, else from the first GPU; or "". */
  private static String gpuArchitecture(DoctorFacts f) {
    Matcher m = RESOURCE_SM.matcher(orUnknown(f.builderResourceFile()));
    if (m.find()) {
      String digits = m.group(1);
      return String.format(Locale.ROOT, " (sm%s, compute capability %s.%s)", digits,
          digits.substring(0, digits.length() - 1), digits.substring(digits.length() - 1));
    }
    if (!f.gpus().isEmpty()) {
      Gpu g = f.gpus().get(0);
      return " (" + g.sm() + ", compute capability " + g.computeCapability() + ")";
    }
    return "";
  }

  private static Finding nvml(DoctorFacts f) {
    if (f.nvmlAvailable() == null) {
      return new Finding("nvml", Status.SKIP, "NVML not checked", null);
    }
    if (f.nvmlAvailable()) {
      return new Finding("nvml", Status.OK, "NVML available: GPU utilisation and memory are recorded"
          + (f.nvmlDetail() == null ? "" : " (" + f.nvmlDetail() + ")"), null);
    }
    return new Finding("nvml", Status.WARN,
        "NVML unavailable" + (f.nvmlDetail() == null ? "" : ": " + f.nvmlDetail()),
        "gpu_util and gpu_mem_used_mb will be missing from records; make libnvidia-ml.so.1 loadable (it ships"
            + " with the NVIDIA driver; in containers enable the NVIDIA Container Toolkit's 'utility' capability).");
  }

  private static Finding nativeShim(DoctorFacts f) {
    if (f.nativeShimLoadable() == null) {
      return new Finding("native_shim", Status.SKIP, "trtrace native shim not checked", null);
    }
    if (f.nativeShimLoadable()) {
      return new Finding("native_shim", Status.OK,
          "trtrace native shim " + (f.nativeShimDetail() == null ? "loaded" : f.nativeShimDetail()), null);
    }
    return new Finding("native_shim", Status.WARN,
        "trtrace native shim unavailable" + (f.nativeShimDetail() == null ? "" : ": " + f.nativeShimDetail()),
        "Per-layer profiling, the error recorder and build progress need linux-x86_64 and the shim in the"
            + " trace-tensorrt jar; the logger bridge and records work without it.");
  }

  private static String orUnknown(@Nullable String s) {
    return s == null ? "unknown" : s;
  }

  /** A CUDA version number as {@code major.minor}: 13000 to {@code 13.0}, 12040 to {@code 12.4}. */
  static String cudaVersion(int v) {
    return (v / 1000) + "." + ((v % 1000) / 10);
  }
}
