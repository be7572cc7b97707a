// Over 400 lines: the probes of every fact the doctor reports (TensorRT, CUDA, GPUs, builder resource, NVML, shim), each guarded for a missing library; the rules are in DoctorAdvice.
package io.github.trtrace.tensorrt.doctor;

import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.tensorrt.doctor.DoctorFacts.Gpu;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.log.TensorRtLogger;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import io.github.trtrace.tensorrt.nvml.NvmlMetricsSource;
import io.github.trtrace.tensorrt.internal.shim.NativeShim;
import io.github.trtrace.tensorrt.internal.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.internal.shim.TensorRtEmulator;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Probes the environment a TensorRT service runs in, through JavaCPP, and fills {@link DoctorFacts}:
 * TensorRT version (or why it does not load), CUDA runtime and driver versions, GPUs with their compute
 * capability and memory, whether engines can be built on this GPU (the per-SM builder resource library),
 * NVML access and the trtrace native shim. What the facts mean is decided by {@link DoctorReport#evaluate}; the
 * output is a {@link DoctorReport}. This is the only class of the package that touches JavaCPP.
 *
 * <p>Whether a builder can be created is tried only with a logger: TensorRT keeps the first logger of a
 * process, so the doctor never hands TensorRT one of its own inside an application ({@link #report()}
 * does not try; {@link #report(TensorRtLogger)} tries with the application's logger). The command line
 * is its own process and tries with its own ({@code --no-builder} skips it). With {@code
 * --builder-resource-dir=DIR} the doctor searches DIR first and, where TensorRT has it (10.16 and later,
 * 11.x), passes DIR to {@code nvinfer1::setInternalLibraryPath} before creating the builder, and says
 * what it returned; on older TensorRT it says the call does not exist.
 *
 * <pre>{@code
 * java -cp app.jar io.github.trtrace.tensorrt.doctor.TensorRtDoctor          # human text
 * java -cp app.jar io.github.trtrace.tensorrt.doctor.TensorRtDoctor --json   # JSON
 * java -cp app.jar io.github.trtrace.tensorrt.doctor.TensorRtDoctor --builder-resource-dir=/opt/trt/lib
 * DoctorReport report = TensorRtDoctor.report(logger);   // in an application: its one TensorRtLogger
 * if (report.worst() == DoctorReport.Status.FAIL) System.err.println(report.toText());
 * }</pre>
 */
public final class TensorRtDoctor {
  /** Exit code for a bad command line; 0, 1 and 2 are the report's OK, WARN and FAIL. */
  static final int EXIT_USAGE = 64;

  private static final String[] DEFAULT_LIB_DIRS = {
    "/usr/lib/x86_64-linux-gnu", "/usr/local/tensorrt/lib", "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu"
  };

  private TensorRtDoctor() {}

  /**
   * Runs the probes and prints the report: {@code --json} for JSON, text otherwise. Exits with
   * {@link DoctorReport#exitCode()}: 0 for OK, 1 for WARN, 2 for FAIL (64 for an unknown argument).
   */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static final String USAGE = "usage: TensorRtDoctor [--json] [--no-builder] [--builder-resource-dir=DIR]";

  /** {@link #main} without {@code System.exit}: prints to {@code out}/{@code err}, returns the exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    boolean json = false;
    boolean tryBuilder = true;
    String dir = null;
    for (String a : args) {
      if (a.equals("--json")) {
        json = true;
      } else if (a.equals("--no-builder")) {
        tryBuilder = false;
      } else if (a.startsWith("--builder-resource-dir=") && a.length() > "--builder-resource-dir=".length()) {
        dir = a.substring("--builder-resource-dir=".length());
      } else {
        err.println(USAGE);
        return EXIT_USAGE;
      }
    }
    TensorRtLogger logger = null;
    if (tryBuilder) {
      try {
        // this process's own logger: the command line is not an application whose logger TensorRT must keep
        logger = TensorRtLogger.create(TrtLogPipeline.builder().build());
      } catch (RuntimeException | LinkageError e) {
        logger = null; // TensorRT does not load: the tensorrt finding says why
      }
    }
    DoctorReport report = DoctorAdvice.evaluate(probe(logger, dir));
    out.println(json ? report.toJson() : report.toText());
    out.flush();
    return report.exitCode();
  }

  /** Runs every probe except builder creation and evaluates the advice. Never throws for a failed probe. */
  public static DoctorReport report() {
    return DoctorAdvice.evaluate(probe());
  }

  /**
   * Runs every probe, builder creation included (with {@code logger}, the application's one TensorRT
   * logger: the lines of the attempt are captured by a scope on its pipeline and not attributed elsewhere),
   * and evaluates the advice.
   */
  public static DoctorReport report(TensorRtLogger logger) {
    return DoctorAdvice.evaluate(probe(java.util.Objects.requireNonNull(logger, "logger"), null));
  }

  /** Runs every probe except builder creation. Never throws: what fails becomes a fact. */
  public static DoctorFacts probe() {
    return probe(null, null);
  }

  /**
   * Runs every probe; builder creation only when {@code logger} is given; {@code builderResourceDir}, when
   * given, is searched first and passed to {@code setInternalLibraryPath} where TensorRT has it.
   */
  static DoctorFacts probe(@Nullable TensorRtLogger logger, @Nullable String builderResourceDir) {
    DoctorFacts.Builder b = DoctorFacts.builder().runtime(System.getProperty("java.version"),
        System.getProperty("os.name", "?") + "/" + System.getProperty("os.arch", "?"));
    String trtVersion = null;
    try {
      org.bytedeco.javacpp.Loader.load(org.bytedeco.tensorrt.global.nvinfer.class);
      trtVersion = versionString(org.bytedeco.tensorrt.global.nvinfer.getInferLibVersion());
      b.tensorrtVersion(trtVersion);
    } catch (RuntimeException | LinkageError e) {
      b.tensorrtLoadError(rootMessage(e));
    }
    if (trtVersion != null) {
      setInternalLibraryPath(b, builderResourceDir);
    }
    List<Gpu> gpus = probeCuda(b);
    if (trtVersion != null && !gpus.isEmpty()) {
      List<String> searchPath = new ArrayList<>();
      if (builderResourceDir != null) {
        searchPath.add(builderResourceDir);
      }
      searchPath.addAll(builderResourceSearchPath());
      List<String> searchPathDistinct = new ArrayList<>(new LinkedHashSet<>(searchPath));
      String[] found = locateBuilderResource(gpus.get(0), trtVersion, searchPathDistinct);
      b.builderResource(found[0], found[1] != null).builderResourceSearch(found[1], searchPathDistinct);
      if (logger != null) {
        probeBuilderCreation(b, logger);
      }
    }
    probeNvml(b);
    probeShim(b);
    return b.build();
  }

  /** {@code nvinfer1::setInternalLibraryPath(String)} of the preset on the class path, or null (before 10.16). */
  static @Nullable Method internalLibraryPathMethod() {
    try {
      return org.bytedeco.tensorrt.global.nvinfer.class.getMethod("setInternalLibraryPath", String.class);
    } catch (NoSuchMethodException | LinkageError e) {
      return null;
    }
  }

  private static void setInternalLibraryPath(DoctorFacts.Builder b, @Nullable String dir) {
    Method m = internalLibraryPathMethod();
    if (m == null || dir == null) {
      b.internalLibraryPath(m != null, dir, null);
      return;
    }
    // NVIDIA documents the argument as "the path to prepend to internal library names": a trailing
    // separator makes DIR/ + name right whether TensorRT joins with a separator or not.
    String arg = dir.endsWith(File.separator) ? dir : dir + File.separator;
    Boolean accepted;
    try {
      accepted = (Boolean) m.invoke(null, arg);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      accepted = null;
      b.builderResourceLoadError("setInternalLibraryPath(" + arg + ") failed: " + rootMessage(e));
    }
    b.internalLibraryPath(true, arg, accepted);
  }

  /** Creates (and destroys) one builder with {@code logger}, capturing what TensorRT logs meanwhile. */
  private static void probeBuilderCreation(DoctorFacts.Builder b, TensorRtLogger logger) {
    List<TrtLogEvent> events = Collections.synchronizedList(new ArrayList<>());
    long t0 = System.nanoTime();
    org.bytedeco.tensorrt.nvinfer.IBuilder builder;
    try (TrtLogPipeline.Capture scope = logger.pipeline().openCapture("doctor:createInferBuilder", events::add)) {
      builder = org.bytedeco.tensorrt.global.nvinfer.createInferBuilder(logger);
    } catch (RuntimeException | LinkageError e) {
      b.builderCreation(false, rootMessage(e), (System.nanoTime() - t0) / 1e6);
      return;
    }
    double ms = (System.nanoTime() - t0) / 1e6;
    if (builder == null || builder.isNull()) {
      String error = null;
      synchronized (events) {
        for (TrtLogEvent e : events) {
          if (e.isError()) {
            error = e.message();
            break;
          }
        }
      }
      b.builderCreation(false, error, ms);
      return;
    }
    TensorRtObjects.destroy(builder);
    b.builderCreation(true, null, ms);
  }

  /** CUDA runtime and driver versions and the GPUs, into {@code b}; returns the GPUs. */
  private static List<Gpu> probeCuda(DoctorFacts.Builder b) {
    List<Gpu> gpus = new ArrayList<>();
    try {
      int[] v = new int[1];
      if (org.bytedeco.cuda.global.cudart.cudaRuntimeGetVersion(v) == 0) {
        b.cudaRuntimeVersion(v[0]);
      }
      if (org.bytedeco.cuda.global.cudart.cudaDriverGetVersion(v) == 0) {
        b.cudaDriverVersion(v[0]);
      }
      int rc = org.bytedeco.cuda.global.cudart.cudaGetDeviceCount(v);
      if (rc != 0) {
        b.cudaError("cudaGetDeviceCount failed: cudaError " + rc);
      } else {
        for (int i = 0; i < v[0]; i++) {
          try (org.bytedeco.cuda.cudart.cudaDeviceProp p = new org.bytedeco.cuda.cudart.cudaDeviceProp()) {
            if (org.bytedeco.cuda.global.cudart.cudaGetDeviceProperties(p, i) == 0) {
              gpus.add(new Gpu(i, p.name().getString(), p.major() + "." + p.minor(), p.totalGlobalMem() >> 20));
            }
          }
        }
      }
    } catch (RuntimeException | LinkageError e) {
      b.cudaError(rootMessage(e));
    }
    gpus.forEach(b::gpu);
    return gpus;
  }

  /** {@code getInferLibVersion()}'s {@code major*10000 + minor*100 + patch} as {@code major.minor.patch}. */
  static String versionString(int encoded) {
    return (encoded / 10000) + "." + (encoded / 100 % 100) + "." + (encoded % 100);
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

  /**
   * The one builder resource for every GPU that TensorRT 10.6 ships ({@code libnvinfer_builder_resource.so.10.6.0},
   * in the 10.6-1.5.11 redist jar too); later releases split it per SM.
   */
  static String allGpuBuilderResourceFile(String trtVersion) {
    return "libnvinfer_builder_resource.so." + trtVersion;
  }

  /** The file TensorRT {@code dlopen}s to build engines for {@code gpu}'s SM, e.g. {@code ..._sm90.so.10.15.1}. */
  static String builderResourceFile(Gpu gpu, String trtVersion) {
    return "libnvinfer_builder_resource_" + gpu.sm() + ".so." + trtVersion;
  }

  /**
   * The builder resource that serves {@code gpu}, and where it is: the per-architecture file ({@code
   * libnvinfer_builder_resource_sm90.so.10.15.1}) or, failing that, the all-GPU one that some
   * distributions ship instead ({@code libnvinfer_builder_resource.so.10.6.0} in the 10.6 preset, which
   * builds on the H200). Returns {file, path or null}; the per-architecture name when neither is found.
   */
  static String[] locateBuilderResource(Gpu gpu, String trtVersion, List<String> searchPath) {
    String perArch = builderResourceFile(gpu, trtVersion);
    String at = findBuilderResource(perArch, searchPath);
    if (at != null) {
      return new String[] {perArch, at};
    }
    String allGpu = allGpuBuilderResourceFile(trtVersion);
    at = findBuilderResource(allGpu, searchPath);
    return at != null ? new String[] {allGpu, at} : new String[] {perArch, null};
  }

  /** The path of {@code file} in the first directory of {@code searchPath} that has it, or null. */
  static @Nullable String findBuilderResource(String file, List<String> searchPath) {
    for (String dir : searchPath) {
      try {
        Path p = Path.of(dir, file);
        if (Files.isRegularFile(p)) {
          return p.toString();
        }
      } catch (RuntimeException e) {
        // an unusable directory entry (invalid path, no permission) cannot hold the file: keep searching
      }
    }
    return null;
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

  /** NVML's reading of GPU 0 and the NVIDIA driver version, into {@code b}. */
  private static void probeNvml(DoctorFacts.Builder b) {
    try (NvmlMetricsSource nvml = NvmlMetricsSource.open(0)) {
      GpuMetricsSource.Reading r = nvml.read();
      b.nvml(true, String.format(Locale.ROOT, "%s: util %.0f%%, memory %.0f/%.0f MiB, %.0f C, SM %.0f MHz%s",
          nvml.deviceName(), r.utilPercent(), r.memUsedMb(), r.memTotalMb(), r.temperatureC(), r.smClockMhz(),
          r.throttleReasons().isEmpty() ? "" : ", clock events " + r.throttleReasons()));
      b.driverVersion(nvidiaDriverVersion());
    } catch (RuntimeException | LinkageError e) {
      b.nvml(false, rootMessage(e));
    }
  }

  /** Loads the native shim and round-trips one error through its recorder's vtable, into {@code b}. */
  private static void probeShim(DoctorFacts.Builder b) {
    try {
      NativeShim.load();
      try (ShimErrorRecorder r = ShimErrorRecorder.create(4)) {
        TensorRtEmulator.reportError(r, 2, "trtrace doctor self check");
        List<RecordedError> got = r.drain();
        boolean ok = got.size() == 1 && got.get(0).code() == 2;
        b.nativeShim(ok, ok ? "loaded; vtable dispatch and drain verified (" + TensorRtEmulator.interfaceInfo(r) + ")"
            : "loaded, but the self check read back " + got);
      }
    } catch (RuntimeException | LinkageError e) {
      b.nativeShim(false, rootMessage(e));
    }
  }

  /** The NVIDIA driver version (e.g. {@code 580.159.04}) while NVML is initialised, or null. */
  private static @Nullable String nvidiaDriverVersion() {
    try {
      byte[] buf = new byte[96];
      if (org.bytedeco.cuda.global.nvml.nvmlSystemGetDriverVersion(buf, buf.length) != 0) {
        return null;
      }
      int n = 0;
      while (n < buf.length && buf[n] != 0) {
        n++;
      }
      return new String(buf, 0, n, StandardCharsets.US_ASCII);
    } catch (RuntimeException | LinkageError e) {
      return null;
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
