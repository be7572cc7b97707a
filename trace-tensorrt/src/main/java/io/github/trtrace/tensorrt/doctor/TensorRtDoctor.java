package io.github.trtrace.tensorrt.doctor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.github.trtrace.core.gpu.GpuReading;
import io.github.trtrace.tensorrt.doctor.ProbeFacts.Advice;
import io.github.trtrace.tensorrt.doctor.ProbeFacts.BuilderResource;
import io.github.trtrace.tensorrt.doctor.ProbeFacts.Check;
import io.github.trtrace.tensorrt.doctor.ProbeFacts.Gpu;
import io.github.trtrace.tensorrt.nvml.NvmlMetricsSource;
import io.github.trtrace.tensorrt.shim.NativeShim;
import io.github.trtrace.tensorrt.log.RecordedError;
import io.github.trtrace.tensorrt.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.shim.TensorRtEmulator;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Checks the environment a TensorRT service runs in and says what to fix: TensorRT version (or why it
 * does not load), CUDA runtime and driver versions, GPUs and their compute capability, whether engines
 * can be built on this GPU (the per-SM builder resource library), NVML access and the trtrace native shim.
 *
 * <pre>{@code
 * java -cp app.jar io.github.trtrace.tensorrt.doctor.TensorRtDoctor          # human text
 * java -cp app.jar io.github.trtrace.tensorrt.doctor.TensorRtDoctor --json   # JSON
 * String text = TensorRtDoctor.report(false);
 * }</pre>
 */
public final class TensorRtDoctor {
  private static final String[] DEFAULT_LIB_DIRS = {
    "/usr/lib/x86_64-linux-gnu", "/usr/local/tensorrt/lib", "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu"
  };

  private TensorRtDoctor() {}

  /** Runs the probes and prints the report: {@code --json} for JSON, text otherwise. Exit status 0. */
  public static void main(String[] args) {
    boolean json = false;
    for (String a : args) {
      if (a.equals("--json")) {
        json = true;
      } else {
        System.err.println("usage: TensorRtDoctor [--json]");
        System.exit(2);
        return;
      }
    }
    System.out.println(report(json));
  }

  /** Runs every probe and renders the result as JSON or as human text. Never throws for a failed probe. */
  public static String report(boolean json) {
    ProbeFacts facts = probe();
    return json ? renderJson(facts) : renderText(facts);
  }

  // ------------------------------------------------------------------------------------------- probes

  static ProbeFacts probe() {
    String trtVersion = null;
    String trtError = null;
    try {
      org.bytedeco.javacpp.Loader.load(org.bytedeco.tensorrt.global.nvinfer.class);
      trtVersion = versionString(org.bytedeco.tensorrt.global.nvinfer.getInferLibVersion());
    } catch (RuntimeException | LinkageError e) {
      trtError = rootMessage(e);
    }
    int runtime = -1;
    int driver = -1;
    String cudaError = null;
    List<Gpu> gpus = new ArrayList<>();
    try {
      int[] v = new int[1];
      if (org.bytedeco.cuda.global.cudart.cudaRuntimeGetVersion(v) == 0) {
        runtime = v[0];
      }
      if (org.bytedeco.cuda.global.cudart.cudaDriverGetVersion(v) == 0) {
        driver = v[0];
      }
      int rc = org.bytedeco.cuda.global.cudart.cudaGetDeviceCount(v);
      if (rc != 0) {
        cudaError = "cudaGetDeviceCount failed: cudaError " + rc;
      } else {
        for (int i = 0; i < v[0]; i++) {
          org.bytedeco.cuda.cudart.cudaDeviceProp p = new org.bytedeco.cuda.cudart.cudaDeviceProp();
          if (org.bytedeco.cuda.global.cudart.cudaGetDeviceProperties(p, i) == 0) {
            gpus.add(new Gpu(i, p.name().getString(), p.major(), p.minor(), p.totalGlobalMem() >> 20));
          }
          p.close();
        }
      }
    } catch (RuntimeException | LinkageError e) {
      cudaError = rootMessage(e);
    }
    BuilderResource resource = null;
    if (trtVersion != null && !gpus.isEmpty()) {
      resource = findBuilderResource(gpus.get(0), trtVersion, builderResourceSearchPath());
    }
    return new ProbeFacts(System.getProperty("java.version", "?"),
        System.getProperty("os.name", "?") + "/" + System.getProperty("os.arch", "?"), trtVersion, trtError,
        runtime, driver, cudaError, gpus, resource, probeNvml(), probeShim());
  }

  /** {@code getInferLibVersion()}'s {@code major*10000 + minor*100 + patch} as {@code major.minor.patch}. */
  static String versionString(int encoded) {
    return (encoded / 10000) + "." + (encoded / 100 % 100) + "." + (encoded % 100);
  }

  /** {@code 13000} as {@code 13.0}. */
  static String cudaVersionString(int encoded) {
    return (encoded / 1000) + "." + (encoded % 1000 / 10);
  }

  /**
   * The directories the dynamic loader searches when TensorRT {@code dlopen}s its builder resource by file
   * name: {@code LD_LIBRARY_PATH}, then libnvinfer's own directory (its RUNPATH is {@code $ORIGIN}; this is
   * also where JavaCPP extracts the redist natives), then the system library directories (standing in for
   * {@code ld.so.cache}). The check looks for the file rather than loading it: the resource is hundreds of
   * megabytes, cannot be unloaded once loaded, and whether it exists is the question that matters.
   */
  static List<String> builderResourceSearchPath() {
    Set<String> dirs = new LinkedHashSet<>();
    String ld = System.getenv("LD_LIBRARY_PATH");
    if (ld != null) {
      for (String d : ld.split(File.pathSeparator)) {
        if (!d.isBlank()) {
          dirs.add(d);
        }
      }
    }
    String nvinferDir = loadedLibraryDir("libnvinfer.so");
    if (nvinferDir != null) {
      dirs.add(nvinferDir);
    }
    for (String d : DEFAULT_LIB_DIRS) {
      dirs.add(d);
    }
    return new ArrayList<>(dirs);
  }

  static BuilderResource findBuilderResource(Gpu gpu, String trtVersion, List<String> searchPath) {
    String file = "libnvinfer_builder_resource_" + gpu.sm() + ".so." + trtVersion;
    for (String dir : searchPath) {
      Path p = Path.of(dir, file);
      if (Files.isRegularFile(p)) {
        return new BuilderResource(file, p.toString(), searchPath);
      }
    }
    return new BuilderResource(file, null, searchPath);
  }

  private static @Nullable String loadedLibraryDir(String prefix) {
    Path maps = Path.of("/proc/self/maps");
    if (!Files.isReadable(maps)) {
      return null;
    }
    try {
      for (String line : Files.readAllLines(maps, StandardCharsets.UTF_8)) {
        int slash = line.indexOf('/');
        if (slash < 0) {
          continue;
        }
        Path lib = Path.of(line.substring(slash).trim());
        Path name = lib.getFileName();
        Path parent = lib.getParent();
        if (name != null && parent != null && name.toString().startsWith(prefix)) {
          return parent.toString();
        }
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
    return null;
  }

  private static Check probeNvml() {
    try (NvmlMetricsSource nvml = NvmlMetricsSource.open(0)) {
      GpuReading r = nvml.read();
      return new Check(true, String.format(Locale.ROOT, "%s: util %.0f%%, memory %.0f/%.0f MiB, %.0f C, SM %.0f MHz%s",
          nvml.deviceName(), r.utilPercent(), r.memUsedMb(), r.memTotalMb(), r.temperatureC(), r.smClockMhz(),
          r.throttleReasons().isEmpty() ? "" : ", clock events " + r.throttleReasons()));
    } catch (RuntimeException | LinkageError e) {
      return new Check(false, rootMessage(e));
    }
  }

  private static Check probeShim() {
    try {
      NativeShim.load();
      try (ShimErrorRecorder r = ShimErrorRecorder.create(4)) {
        TensorRtEmulator.reportError(r, 2, "trtrace doctor self check");
        List<RecordedError> got = r.drain();
        boolean ok = got.size() == 1 && got.get(0).code() == 2;
        return new Check(ok, ok ? "loaded; vtable dispatch and drain verified (" + TensorRtEmulator.interfaceInfo(r) + ")"
            : "loaded, but the self check read back " + got);
      }
    } catch (RuntimeException | LinkageError e) {
      return new Check(false, rootMessage(e));
    }
  }

  // ------------------------------------------------------------------------------------------- advice

  static List<Advice> advice(ProbeFacts f) {
    List<Advice> out = new ArrayList<>();
    if (f.tensorRtVersion() == null) {
      out.add(new Advice("TensorRT cannot be loaded: " + f.tensorRtError(),
          "Add org.bytedeco:tensorrt with classifier linux-x86_64 (the JNI part), and TensorRT's libraries:"
              + " install TensorRT from NVIDIA and put its lib directory on LD_LIBRARY_PATH, or add the"
              + " linux-x86_64-redist artifact (runtime only: it cannot build engines on every GPU)."));
    }
    if (f.cudaDriverVersion() == 0 || (f.cudaError() != null && f.cudaDriverVersion() < 0)) {
      out.add(new Advice("No usable CUDA driver (libcuda.so.1)" + (f.cudaError() == null ? "" : ": " + f.cudaError()),
          "Install the NVIDIA driver on the host; in a container run with the NVIDIA Container Toolkit"
              + " (--gpus all) so the driver libraries are mounted."));
    } else if (f.cudaRuntimeVersion() > 0 && f.cudaDriverVersion() > 0 && f.cudaDriverVersion() < f.cudaRuntimeVersion()) {
      out.add(new Advice("The driver supports CUDA " + cudaVersionString(f.cudaDriverVersion()) + " but the runtime is CUDA "
              + cudaVersionString(f.cudaRuntimeVersion()),
          "Update the NVIDIA driver to one supporting CUDA " + cudaVersionString(f.cudaRuntimeVersion()) + " or newer."));
    } else if (f.cudaDriverVersion() > 0 && f.gpus().isEmpty()) {
      out.add(new Advice("The driver is installed but no GPU is visible",
          "Check CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES and that the container was started with GPUs."));
    }
    BuilderResource r = f.builderResource();
    if (r != null && r.foundAt() == null) {
      out.add(new Advice("Engine builds on this GPU will fail: " + r.fileName() + " is not installed (TensorRT reports"
              + " 'Error Code 6: API Usage Error (Unable to load library: " + r.fileName() + " ...)')",
          "Install TensorRT " + f.tensorRtVersion() + " from NVIDIA (tar or deb; the Maven redist artifact does not"
              + " ship this file) and put its lib directory on LD_LIBRARY_PATH. Or build engines on another machine"
              + " with the same GPU and TensorRT version and only deserialize them here (the runtime needs only"
              + " libnvinfer)."));
    }
    if (!f.nvml().ok()) {
      out.add(new Advice("NVML unavailable: " + f.nvml().detail(),
          "GPU fields (gpu_util, gpu_mem_used_mb) stay empty. NVML ships with the driver (libnvidia-ml.so.1); in"
              + " containers enable the NVIDIA Container Toolkit's 'utility' capability."));
    }
    if (!f.nativeShim().ok()) {
      out.add(new Advice("trtrace native shim unavailable: " + f.nativeShim().detail(),
          "Per-layer profiling, the error recorder and build progress need linux-x86_64 and the shim in the"
              + " trace-tensorrt jar; the logger bridge and records work without it."));
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------- rendering

  static String renderText(ProbeFacts f) {
    StringBuilder sb = new StringBuilder(1024);
    sb.append("trtrace TensorRT doctor\n");
    line(sb, true, "Java " + f.javaVersion() + " on " + f.platform());
    line(sb, f.tensorRtVersion() != null,
        f.tensorRtVersion() != null ? "TensorRT " + f.tensorRtVersion() : "TensorRT not loadable: " + f.tensorRtError());
    boolean cudaOk = f.cudaError() == null && f.cudaDriverVersion() > 0;
    line(sb, cudaOk, "CUDA runtime " + (f.cudaRuntimeVersion() > 0 ? cudaVersionString(f.cudaRuntimeVersion()) : "unknown")
        + ", driver " + (f.cudaDriverVersion() > 0 ? cudaVersionString(f.cudaDriverVersion())
            : f.cudaDriverVersion() == 0 ? "none" : "unknown")
        + (f.cudaError() == null ? "" : " (" + f.cudaError() + ")"));
    for (Gpu g : f.gpus()) {
      line(sb, true, "GPU " + g.index() + ": " + g.name() + ", compute capability " + g.ccMajor() + "." + g.ccMinor()
          + " (" + g.sm() + "), " + g.memoryMiB() + " MiB");
    }
    BuilderResource r = f.builderResource();
    if (r != null) {
      line(sb, r.foundAt() != null, r.foundAt() != null ? "builder resource " + r.foundAt()
          : "builder resource " + r.fileName() + " not found in " + String.join(":", r.searched()));
    }
    line(sb, f.nvml().ok(), "NVML " + f.nvml().detail());
    line(sb, f.nativeShim().ok(), "native shim " + f.nativeShim().detail());
    List<Advice> advice = advice(f);
    if (advice.isEmpty()) {
      sb.append("No problems found.\n");
    } else {
      sb.append("Advice:\n");
      for (Advice a : advice) {
        sb.append("  - ").append(a.problem()).append("\n    -> ").append(a.action()).append('\n');
      }
    }
    return sb.toString();
  }

  private static void line(StringBuilder sb, boolean ok, String text) {
    sb.append(ok ? "  [ok]   " : "  [FAIL] ").append(text).append('\n');
  }

  static String renderJson(ProbeFacts f) {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeStringField("java_version", f.javaVersion());
      g.writeStringField("platform", f.platform());
      g.writeObjectFieldStart("tensorrt");
      nullableString(g, "version", f.tensorRtVersion());
      nullableString(g, "error", f.tensorRtError());
      g.writeEndObject();
      g.writeObjectFieldStart("cuda");
      g.writeNumberField("runtime_version", f.cudaRuntimeVersion());
      g.writeNumberField("driver_version", f.cudaDriverVersion());
      nullableString(g, "error", f.cudaError());
      g.writeEndObject();
      g.writeArrayFieldStart("gpus");
      for (Gpu gpu : f.gpus()) {
        g.writeStartObject();
        g.writeNumberField("index", gpu.index());
        g.writeStringField("name", gpu.name());
        g.writeStringField("compute_capability", gpu.ccMajor() + "." + gpu.ccMinor());
        g.writeNumberField("memory_mib", gpu.memoryMiB());
        g.writeEndObject();
      }
      g.writeEndArray();
      BuilderResource r = f.builderResource();
      if (r == null) {
        g.writeNullField("builder_resource");
      } else {
        g.writeObjectFieldStart("builder_resource");
        g.writeStringField("file", r.fileName());
        g.writeBooleanField("found", r.foundAt() != null);
        nullableString(g, "path", r.foundAt());
        g.writeArrayFieldStart("searched");
        for (String d : r.searched()) {
          g.writeString(d);
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      check(g, "nvml", f.nvml());
      check(g, "native_shim", f.nativeShim());
      g.writeArrayFieldStart("advice");
      for (Advice a : advice(f)) {
        g.writeStartObject();
        g.writeStringField("problem", a.problem());
        g.writeStringField("action", a.action());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w.toString();
  }

  private static void check(JsonGenerator g, String name, Check c) throws IOException {
    g.writeObjectFieldStart(name);
    g.writeBooleanField("ok", c.ok());
    g.writeStringField("detail", c.detail());
    g.writeEndObject();
  }

  private static void nullableString(JsonGenerator g, String name, @Nullable String value) throws IOException {
    if (value == null) {
      g.writeNullField(name);
    } else {
      g.writeStringField(name, value);
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage();
    return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }
}
