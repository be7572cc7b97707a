package io.github.trtrace.examples.gpucheck;

import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemsetAsync;

import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.cuda.GpuTimer;
import io.github.trtrace.tensorrt.doctor.DoctorReport;
import io.github.trtrace.tensorrt.doctor.TensorRtDoctor;
import io.github.trtrace.tensorrt.nvml.NvmlMetricsSource;
import io.github.trtrace.tensorrt.internal.shim.NativeShim;
import io.github.trtrace.tensorrt.internal.shim.ProgressEvent;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.build.TracedBuilder;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.log.TensorRtLogger;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import io.github.trtrace.tensorrt.internal.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.internal.shim.ShimProfiler;
import io.github.trtrace.tensorrt.internal.shim.ShimProgressMonitor;
import io.github.trtrace.tensorrt.internal.shim.TensorRtEmulator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.Dims4;
import org.bytedeco.tensorrt.nvinfer.IBuilder;
import org.bytedeco.tensorrt.nvinfer.IBuilderConfig;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.nvinfer.IErrorRecorder;
import org.bytedeco.tensorrt.nvinfer.IHostMemory;
import org.bytedeco.tensorrt.nvinfer.ILogger;
import org.bytedeco.tensorrt.nvinfer.INetworkDefinition;
import org.bytedeco.tensorrt.nvinfer.IProfiler;
import org.bytedeco.tensorrt.nvinfer.IProgressMonitor;
import org.bytedeco.tensorrt.nvinfer.IRuntime;
import org.bytedeco.tensorrt.nvinfer.ITensor;

/**
 * Runs every GPU-capable check of trace-tensorrt on a real GPU in one go and prints a table last.
 * Not part of the published jar: built and staged by {@code examples/src/gpu-check/trt10/stage-app.sh}.
 * Checks that need a built engine detect the missing builder resource, print the diagnosis and SKIP.
 *
 * <pre>{@code
 * java -cp '.gpu/app/*' io.github.trtrace.examples.gpucheck.GpuCheck
 * }</pre>
 */
public final class GpuCheck {
  private enum Outcome { PASS, FAIL, SKIP }

  private record Row(String check, Outcome outcome, String detail) {}

  private final List<Row> rows = new ArrayList<>();
  private final List<String> logLines = new CopyOnWriteArrayList<>();
  /** {@code -Dtrtrace.checks=kernel-records}: the kernel records check only. */
  private boolean recordsOnly;
  private String gpuName = "?";
  private TensorRtLogger logger; // null until TensorRT loaded
  private String builderDiagnosis = "";

  /**
   * The process's one TensorRT logger (TensorRT keeps the first logger it is given): the bridge under
   * test. Every event, build-scoped or not, is kept as severity|thread|message for the log dump.
   */
  private TrtLogPipeline pipeline;
  /** The pipeline's build-audit channel: every event inside a build scope. */
  private final List<TrtLogEvent> buildAudit = new java.util.concurrent.CopyOnWriteArrayList<>();

  public static void main(String[] args) {
    new GpuCheck().run();
    // CUPTI's own threads, attached to the JVM by its buffer callbacks (kernel records), would keep it alive
    System.exit(0);
  }

  private void run() {
    System.out.println("trtrace GPU check " + Instant.now() + " java " + System.getProperty("java.version"));
    check("doctor", this::doctor);
    check("native shim load", this::shimLoad);
    check("TensorRT load", this::tensorRtLoad);
    check("shim ABI through the preset's JNI", this::presetDispatch);
    check("build: createInferBuilder, error recorder, progress monitor", this::build);
    check("runtime: deserialize junk with recorder", this::deserializeJunk);
    check("logger bridge: TensorRtLogger -> TrtLogPipeline on real messages", this::loggerBridge);
    check("TracedBuilder: failing build -> BuildReport with diagnosis", this::tracedBuild);
    // -Dtrtrace.checks=batched: the environment checks and the batched ones only (a shorter GPU run);
    // -Dtrtrace.checks=kernels: the environment checks, the batched build and the kernel-record checks only;
    // -Dtrtrace.checks=kernel-records: of those, the records check only (a before/after of the recorder, short)
    String only = System.getProperty("trtrace.checks", "");
    boolean batchedOnly = "batched".equals(only);
    recordsOnly = "kernel-records".equals(only);
    boolean kernelsOnly = "kernels".equals(only) || recordsOnly;
    // -Dtrtrace.checks=transformer: the environment checks and the transformer ones, no batched or kernel checks
    boolean transformerOnly = "transformer".equals(only);
    // -Dtrtrace.checks=profile: the environment checks, the batched build and the launching thread's profile only
    if ("profile".equals(only)) {
      profileChecks();
      printTable();
      return;
    }
    if (!batchedOnly && !kernelsOnly) {
      transformerChecks();
    }
    if (!transformerOnly) {
      batchedChecks(kernelsOnly);
    }
    if (batchedOnly || kernelsOnly) {
      printTable();
      return;
    }
    check("CUDA events: memset 1 GiB", () -> memset());
    check("CUDA events: D2D copy 1 GiB", () -> copy());
    check("NVML reading", this::nvml);
    check("bench: CUDA event pair (record+record+sync+elapsed)", this::benchEvents);
    check("bench: NVML poll", this::benchNvml);
    check("bench: profiler shim drain (200 layers x 100)", this::benchDrain);
    printTable();
  }

  private void printTable() {
    System.out.println();
    System.out.println("== TensorRT log records (severity|thread|message) ==");
    logLines.forEach(System.out::println);
    System.out.println();
    System.out.println("== trtrace GPU check, " + Instant.now() + ", GPU: " + gpuName + " ==");
    System.out.println(String.format(Locale.ROOT, "%-60s %-5s %s", "check", "result", "detail"));
    for (Row r : rows) {
      System.out.println(String.format(Locale.ROOT, "%-60s %-5s %s", r.check(), r.outcome(), r.detail()));
    }
  }

  /** The batched build, then where the launching thread's time goes per launch ({@link LaunchProfile}). */
  private void profileChecks() {
    String build = "batched: build B x S transformer (B 1..64) through TracedBuilder";
    String profile = "profile: the launching thread's time per launch, raw vs traced";
    if (!builderDiagnosis.isEmpty() || logger == null) {
      skip(build, builderDiagnosis);
      skip(profile, builderDiagnosis);
      return;
    }
    java.nio.file.Path artifacts = java.nio.file.Path.of(System.getProperty("trtrace.artifacts", "/tmp/trtrace-artifacts"));
    try (BatchedChecks b = new BatchedChecks(logger, artifacts)) {
      check(build, b::build);
      check(profile, new LaunchProfile(b, artifacts)::profile);
    } catch (java.io.IOException e) {
      check(build, () -> { throw e; });
    }
  }

  /**
   * The batched checks (one launch, many requests), then the kernel-record checks on the batched engine: SKIP where
   * no engine can be built. {@code kernelsOnly}: the batched build, then the kernel-record checks.
   */
  private void batchedChecks(boolean kernelsOnly) {
    String[] names = {
      "batched: build B x S transformer (B 1..64) through TracedBuilder",
      "batched: 8 rows in one launch == 8 single launches",
      "batched: served load, launch log and records conserve GPU time",
      "batched: decode and prefill tokens/s by batch size",
      "batched: failed launch marks exactly its members (4 contexts)",
      "batched: per-launch cost, raw vs traced (noop, full)",
    };
    String[] kernelNames = {
      "kernels: records of every launch add up to its CUDA-event time",
      "kernels: overhead of records at 1 %, 10 %, 100 % vs off",
      "kernels: CUPTI taken by another subscriber (child JVM)",
      "kernels: ncu --nvtx-include one launch's range profiles its kernels",
    };
    if (!builderDiagnosis.isEmpty() || logger == null) {
      for (String n : names) {
        skip(n, builderDiagnosis);
      }
      for (String n : kernelNames) {
        skip(n, builderDiagnosis);
      }
      return;
    }
    java.nio.file.Path artifacts = java.nio.file.Path.of(System.getProperty("trtrace.artifacts", "/tmp/trtrace-artifacts"));
    try (BatchedChecks b = new BatchedChecks(logger, artifacts)) {
      check(names[0], b::build);
      if (!kernelsOnly) {
        check(names[1], b::rowsMatchSingles);
        check(names[2], b::servedLoad);
        check(names[3], b::throughput);
        check(names[4], b::failingLaunch);
        check(names[5], b::overhead);
      }
      KernelChecks k = new KernelChecks(b, artifacts);
      check(kernelNames[0], k::sums);
      if (!recordsOnly) {
        check(kernelNames[1], k::overhead);
      }
      if (!recordsOnly) {
        check(kernelNames[2], k::taken);
        check(kernelNames[3], k::ncu);
      }
    } catch (java.io.IOException e) {
      check(names[0], () -> { throw e; });
    }
  }

  /** The real-engine checks: where no engine can be built (TensorRT 10.15 on sm_90), each one SKIPs and says why. */
  private void transformerChecks() {
    String[] names = {
      "transformer: build FP16/FP32/BF16/unfused/FP32-MLP through TracedBuilder",
      "transformer: BuildReport.diff + BuildGate on the real reports",
      "transformer: KV cache (prefill n == prefill n-1 + decode 1)",
      "transformer: traced request (16 tokens: prefill + 15 decode launches)",
      "transformer: per-layer profile (sampled, after slow)",
      "transformer: run-time error -> that request's error_type",
      "transformer: 8 threads x 4 contexts x 1000 requests",
      "transformer: tracing overhead (full vs noop vs raw)",
    };
    if (!builderDiagnosis.isEmpty() || logger == null) {
      for (String n : names) {
        skip(n, builderDiagnosis);
      }
      return;
    }
    java.nio.file.Path artifacts = java.nio.file.Path.of(System.getProperty("trtrace.artifacts", "/tmp/trtrace-artifacts"));
    TransformerChecks t;
    try {
      t = new TransformerChecks(logger, artifacts);
    } catch (java.io.IOException e) {
      check(names[0], () -> { throw e; });
      return;
    }
    check(names[0], t::buildAll);
    check(names[1], t::gate);
    check(names[2], t::kvCacheConsistency);
    check(names[3], t::serveOne);
    check(names[4], t::profile);
    check(names[5], t::runtimeError);
    check(names[6], t::concurrency);
    if (!Boolean.getBoolean("trtrace.skipOverhead")) {
      check(names[7], t::overhead);
    }
    t.close();
    System.out.println("   artifacts in " + artifacts);
  }

  private interface Body {
    String run() throws Exception;
  }

  static final class Skip extends Exception {
    private static final long serialVersionUID = 1L;

    Skip(String why) {
      super(why);
    }
  }

  static final class Fail extends Exception {
    private static final long serialVersionUID = 1L;

    Fail(String why) {
      super(why);
    }
  }

  private void check(String name, Body body) {
    System.out.println("-- " + name);
    try {
      String detail = body.run();
      rows.add(new Row(name, Outcome.PASS, detail));
      System.out.println("   PASS " + detail);
    } catch (Skip s) {
      rows.add(new Row(name, Outcome.SKIP, s.getMessage()));
      System.out.println("   SKIP " + s.getMessage());
    } catch (Throwable t) {
      String why = t instanceof Fail ? t.getMessage() : t.toString();
      rows.add(new Row(name, Outcome.FAIL, why));
      System.out.println("   FAIL " + why);
      if (!(t instanceof Fail)) {
        t.printStackTrace(System.out);
      }
    }
  }

  private void skip(String name, String why) {
    check(name, () -> {
      throw new Skip(why.isEmpty() ? "no engine could be built (see the build check)" : why);
    });
  }

  // ------------------------------------------------------------------------------------------------ checks

  private String doctor() {
    DoctorReport report = TensorRtDoctor.report();
    System.out.println(report.toText());
    System.out.println(report.toJson());
    return "report printed above, overall " + report.worst();
  }

  private String shimLoad() throws Exception {
    long t0 = System.nanoTime();
    NativeShim.load();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    try (ShimErrorRecorder r = ShimErrorRecorder.create(); ShimProgressMonitor m = ShimProgressMonitor.create()) {
      String info = TensorRtEmulator.interfaceInfo(r) + ", " + TensorRtEmulator.interfaceInfo(m);
      return "loaded in " + ms + " ms; " + info;
    }
  }

  private String tensorRtLoad() {
    long t0 = System.nanoTime();
    Loader.load(nvinfer.class);
    pipeline = TrtLogPipeline.builder()
        .runtimeLevel(TrtSeverity.VERBOSE) // the check wants every line (and shows the one-time warning)
        .buildAudit(buildAudit::add)
        .onEvent(e -> logLines.add("k" + e.severity().name() + "|" + e.threadName() + "|" + e.message()))
        .build();
    logger = TensorRtLogger.create(pipeline);
    int v = nvinfer.getInferLibVersion();
    return "TensorRT " + (v / 10000) + "." + (v / 100 % 100) + "." + (v % 100) + " loaded in "
        + (System.nanoTime() - t0) / 1_000_000 + " ms";
  }

  /** The preset's JNI was compiled against the real headers: calls through it must land in our slots. */
  private String presetDispatch() throws Exception {
    try (ShimProfiler p = ShimProfiler.create();
        ShimErrorRecorder r = ShimErrorRecorder.create();
        ShimProgressMonitor m = ShimProgressMonitor.create()) {
      IProfiler ip = p.asTensorRt();
      ip.reportLayerTime("preset_layer", 1.5f);
      List<String> got = new ArrayList<>();
      p.drain((layer, ms) -> got.add(layer + "=" + ms));
      if (!got.equals(List.of("preset_layer=1.5"))) {
        throw new Fail("IProfiler.reportLayerTime via preset drained " + got);
      }
      IErrorRecorder ir = r.asTensorRt();
      ir.reportError(nvinfer.ErrorCode.kINVALID_ARGUMENT, "preset error");
      int nb = ir.getNbErrors();
      String kind = ir.getInterfaceInfo().kind();
      int refs = ir.incRefCount();
      ir.decRefCount();
      List<RecordedError> errs = r.drain();
      if (nb != 1 || !"IErrorRecorder".equals(kind) || refs != 1 || errs.size() != 1 || errs.get(0).code() != 3) {
        throw new Fail("IErrorRecorder via preset: nb=" + nb + " kind=" + kind + " refs=" + refs + " drained=" + errs);
      }
      IProgressMonitor im = m.asTensorRt();
      im.phaseStart("phase", (String) null, 2);
      boolean go = im.stepComplete("phase", 0);
      m.cancel();
      boolean stop = im.stepComplete("phase", 1);
      im.phaseFinish("phase");
      List<ProgressEvent> ev = m.drain();
      String mkind = im.getInterfaceInfo().kind();
      if (!go || stop || ev.size() != 4 || !"IProgressMonitor".equals(mkind)) {
        throw new Fail("IProgressMonitor via preset: go=" + go + " stop=" + stop + " events=" + ev + " kind=" + mkind);
      }
      return "IProfiler, IErrorRecorder (" + kind + "), IProgressMonitor (" + mkind + ", cancel honoured) dispatch OK";
    }
  }

  private TensorRtLogger logger() throws Fail {
    TensorRtLogger l = logger;
    if (l == null) {
      throw new Fail("TensorRT did not load (see above)");
    }
    return l;
  }

  /** The network both build checks use: input (1x3x16x16 float) -> ReLU -> + input -> output. */
  private static INetworkDefinition tinyNetwork(IBuilder builder) {
    INetworkDefinition network = builder.createNetworkV2(0);
    ITensor input = network.addInput("input", nvinfer.DataType.kFLOAT, new Dims4(1, 3, 16, 16));
    ITensor relu = network.addActivation(input, nvinfer.ActivationType.kRELU).getOutput(0);
    ITensor sum = network.addElementWise(relu, input, nvinfer.ElementWiseOperation.kSUM).getOutput(0);
    sum.setName("output");
    network.markOutput(sum);
    return network;
  }

  private String build() throws Exception {
    TensorRtLogger logger = logger();
    long t0 = System.nanoTime();
    IBuilder builder = nvinfer.createInferBuilder(logger);
    long createMs = (System.nanoTime() - t0) / 1_000_000;
    if (builder == null || builder.isNull()) {
      throw new Fail("createInferBuilder returned null");
    }
    ShimErrorRecorder recorder = ShimErrorRecorder.create();
    ShimProgressMonitor monitor = ShimProgressMonitor.create();
    builder.setErrorRecorder(recorder.asTensorRt());
    int refsAfterSet = recorder.refCount();
    INetworkDefinition network = tinyNetwork(builder);
    IBuilderConfig config = builder.createBuilderConfig();
    config.setProgressMonitor(monitor.asTensorRt());
    IProgressMonitor installed = config.getProgressMonitor();
    boolean monitorInstalled = installed != null && installed.address() == monitor.address();
    long b0 = System.nanoTime();
    IHostMemory plan = builder.buildSerializedNetwork(network, config);
    long buildMs = (System.nanoTime() - b0) / 1_000_000;
    IErrorRecorder attached = builder.getErrorRecorder();
    int nbViaPreset = attached == null ? -1 : attached.getNbErrors();
    List<RecordedError> errors = recorder.drain();
    List<ProgressEvent> events = monitor.drain();
    // drained once, after the build: the buffer keeps the first DEFAULT_CAPACITY events and counts the rest
    String progress = events.size() + " received, " + monitor.droppedEvents() + " dropped (buffer "
        + ShimProgressMonitor.DEFAULT_CAPACITY + ")";
    int refsAfterBuild = recorder.refCount();
    long planBytes = plan == null || plan.isNull() ? -1 : plan.size();
    // Reverse order of creation; the recorder and the monitor outlive what TensorRT calls them from.
    TensorRtObjects.destroy(plan);
    TensorRtObjects.destroy(config);
    TensorRtObjects.destroy(network);
    TensorRtObjects.destroy(builder);
    monitor.close();
    recorder.close();
    System.out.println("   createInferBuilder " + createMs + " ms, buildSerializedNetwork " + buildMs + " ms, plan="
        + (planBytes < 0 ? "null" : planBytes + " bytes"));
    System.out.println("   recorder refs after setErrorRecorder=" + refsAfterSet + " after build=" + refsAfterBuild
        + " nbErrors via preset=" + nbViaPreset + " reported=" + recorder.reportedErrors());
    for (RecordedError e : errors) {
      System.out.println("   RECORDED " + e.code() + " " + e.codeName() + " | " + e.description());
    }
    System.out.println("   progress events: " + progress + " monitorInstalled=" + monitorInstalled);
    for (ProgressEvent e : events) {
      System.out.println("   PROGRESS " + e);
    }
    if (planBytes >= 0) {
      builderDiagnosis = "";
      return "engine built (" + planBytes + " bytes) in " + buildMs + " ms; errors=" + errors.size()
          + " progress events: " + progress;
    }
    boolean missingResource = errors.stream().anyMatch(e -> e.description().contains("libnvinfer_builder_resource"));
    builderDiagnosis = missingResource
        ? "no engine: TensorRT cannot load its builder resource for this GPU ("
            + errors.get(0).description().replaceAll(".*Unable to load library: ([^:]+):.*", "$1")
            + " missing; install TensorRT from NVIDIA and put its lib dir on LD_LIBRARY_PATH)"
        : "no engine: build failed (" + (errors.isEmpty() ? "no error recorded" : errors.get(0).description()) + ")";
    if (errors.isEmpty()) {
      throw new Fail("build returned null but the recorder got no error (nbViaPreset=" + nbViaPreset + ")");
    }
    if (!monitorInstalled) {
      throw new Fail("config.getProgressMonitor() is not the shim");
    }
    RecordedError first = errors.get(0);
    return "build failed as expected in " + buildMs + " ms; recorder got code " + first.code() + " (" + first.codeName()
        + ")" + (missingResource ? " missing builder resource" : "") + "; refs=" + refsAfterSet
        + "; progress events: " + progress;
  }

  /** The real bridge: TensorRT's own messages through TensorRtLogger into the pipeline. */
  private String loggerBridge() throws Exception {
    TensorRtLogger trtLogger = logger();
    List<TrtLogEvent> scoped = new java.util.concurrent.CopyOnWriteArrayList<>();
    String inRequest;
    try (TrtLogPipeline.Capture scope = pipeline.openCapture("build:bridge-check", scoped::add)) {
      IBuilder b = RequestContext.with("req-gpucheck-1").call(() -> nvinfer.createInferBuilder(trtLogger));
      TensorRtObjects.destroy(b);
    }
    inRequest = scoped.stream().map(e -> e.requestId() + " " + e.kind().wireName()).distinct().reduce((a, x) -> a + ", " + x).orElse("");
    for (TrtLogEvent e : scoped) {
      System.out.println("   EVENT " + e.severity() + " " + e.kind().wireName() + " req=" + e.requestId() + " scope=" + e.scope()
          + " thread=" + e.threadName() + " | " + e.message());
    }
    if (scoped.isEmpty()) {
      throw new Fail("no TensorRT message reached the pipeline; stats " + pipeline.stats());
    }
    boolean attributed = scoped.stream().allMatch(e -> "req-gpucheck-1".equals(e.requestId()));
    if (!attributed) {
      throw new Fail("messages on the request's thread were not attributed to it: " + inRequest);
    }
    return scoped.size() + " real messages captured, all attributed to req-gpucheck-1 (" + inRequest + "); stats "
        + pipeline.stats();
  }

  /** The traced build on the H200: fails for the missing builder resource, and the report says why. */
  private String tracedBuild() throws Exception {
    logger();
    List<TrtLogEvent> audit = buildAudit;
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("trtrace-gpucheck");
    java.nio.file.Path plan = dir.resolve("tiny.plan");
    TracedBuilder.Result result;
    buildAudit.clear();
    try (TracedBuilder tb = TracedBuilder.create(logger()).progressBar(System.out)) {
      IBuilder builder = tb.builder();
      INetworkDefinition network = tinyNetwork(builder);
      IBuilderConfig config = builder.createBuilderConfig();
      config.setFlag(nvinfer.BuilderFlag.kFP16);
      result = tb.build("gpucheck-tiny", network, config, plan);
      TensorRtObjects.destroy(config);
      TensorRtObjects.destroy(network);
    }
    java.nio.file.Path reportFile = TracedBuilder.reportPath(plan);
    String json = java.nio.file.Files.readString(reportFile);
    System.out.println("   " + reportFile + ":");
    System.out.println(json);
    BuildReport back = BuildReport.read(reportFile);
    System.out.println("   build-scoped events captured (VERBOSE included): " + audit.size());
    audit.forEach(e -> System.out.println("   BUILD-EVENT " + e.severity() + " " + e.kind().wireName() + " scope=" + e.scope() + " | " + e.message()));
    if (result.succeeded()) {
      builderDiagnosis = "";
      return "engine built: " + back.engineLayerCount() + " engine layers, fusion rate " + back.fusionRate();
    }
    if (back.diagnosis() == null) {
      throw new Fail("failed build without diagnosis");
    }
    builderDiagnosis = "skipped: " + back.diagnosis().summary();
    return "status=" + back.status().wireName() + ", " + back.errors().size() + " error(s), diagnosis: "
        + back.diagnosis().summary() + "; report read back equal=" + back.equals(result.report());
  }

  private String deserializeJunk() throws Exception {
    TensorRtLogger logger = logger();
    IRuntime runtime = nvinfer.createInferRuntime(logger);
    ShimErrorRecorder recorder = ShimErrorRecorder.create();
    runtime.setErrorRecorder(recorder.asTensorRt());
    byte[] junk = new byte[4096];
    new Random(42).nextBytes(junk);
    BytePointer bytes = new BytePointer(junk);
    ICudaEngine engine = runtime.deserializeCudaEngine(bytes, junk.length);
    List<RecordedError> errors = recorder.drain();
    for (RecordedError e : errors) {
      System.out.println("   RECORDED " + e.code() + " " + e.codeName() + " | " + e.description());
    }
    if (engine != null && !engine.isNull()) {
      throw new Fail("junk deserialized into an engine");
    }
    if (errors.isEmpty()) {
      throw new Fail("deserialize returned null but the recorder got no error");
    }
    return "null engine; recorder got code " + errors.get(0).code() + " (" + errors.get(0).codeName() + "), refs="
        + recorder.refCount();
  }

  private static final long GIB = 1L << 30;

  private String memset() throws Exception {
    Pointer d = new Pointer();
    check(cudaMalloc(d, GIB), "cudaMalloc");
    try (CudaStream stream = CudaStream.create(); GpuTimer timer = GpuTimer.create(stream)) {
      check(cudaMemsetAsync(d, 1, GIB, stream.handle()), "cudaMemsetAsync");
      stream.synchronize();
      float best = Float.MAX_VALUE;
      for (int i = 0; i < 5; i++) {
        timer.start();
        check(cudaMemsetAsync(d, i, GIB, stream.handle()), "cudaMemsetAsync");
        timer.stop();
        best = Math.min(best, timer.elapsedMs());
      }
      return String.format(Locale.ROOT, "%.3f ms best of 5 = %.0f GB/s written", best, GIB / (best / 1e3) / 1e9);
    } finally {
      cudaFree(d);
    }
  }

  private String copy() throws Exception {
    Pointer src = new Pointer();
    Pointer dst = new Pointer();
    check(cudaMalloc(src, GIB), "cudaMalloc");
    check(cudaMalloc(dst, GIB), "cudaMalloc");
    try (CudaStream stream = CudaStream.create(); GpuTimer timer = GpuTimer.create(stream)) {
      check(cudaMemsetAsync(src, 7, GIB, stream.handle()), "cudaMemsetAsync");
      check(cudaMemcpyAsync(dst, src, GIB, cudaMemcpyDeviceToDevice, stream.handle()), "cudaMemcpyAsync");
      stream.synchronize();
      float best = Float.MAX_VALUE;
      for (int i = 0; i < 5; i++) {
        timer.start();
        check(cudaMemcpyAsync(dst, src, GIB, cudaMemcpyDeviceToDevice, stream.handle()), "cudaMemcpyAsync");
        timer.stop();
        best = Math.min(best, timer.elapsedMs());
      }
      return String.format(Locale.ROOT, "%.3f ms best of 5 = %.0f GB/s copied (%.0f GB/s read+write)", best,
          GIB / (best / 1e3) / 1e9, 2 * GIB / (best / 1e3) / 1e9);
    } finally {
      cudaFree(src);
      cudaFree(dst);
    }
  }

  private String nvml() throws Exception {
    try (NvmlMetricsSource nvml = NvmlMetricsSource.open(0)) {
      gpuName = nvml.deviceName();
      GpuMetricsSource.Reading r = nvml.read();
      return String.format(Locale.ROOT, "%s util %.0f%% mem %.0f/%.0f MiB %.0f C SM %.0f MHz events %s", gpuName,
          r.utilPercent(), r.memUsedMb(), r.memTotalMb(), r.temperatureC(), r.smClockMhz(), r.throttleReasons());
    }
  }

  private String benchEvents() {
    try (CudaStream stream = CudaStream.create(); GpuTimer timer = GpuTimer.create(stream)) {
      for (int i = 0; i < 1000; i++) {
        timer.start();
        timer.stop();
        timer.elapsedMs();
      }
      int n = 10_000;
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        timer.start();
        timer.stop();
        timer.elapsedMs();
      }
      double us = (System.nanoTime() - t0) / 1e3 / n;
      return String.format(Locale.ROOT, "mean %.2f us per pair over %d (1000 warm-up)", us, n);
    }
  }

  private String benchNvml() throws Exception {
    try (NvmlMetricsSource nvml = NvmlMetricsSource.open(0)) {
      for (int i = 0; i < 100; i++) {
        nvml.read();
      }
      int n = 1000;
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        nvml.read();
      }
      double us = (System.nanoTime() - t0) / 1e3 / n;
      return String.format(Locale.ROOT, "mean %.1f us per read() over %d (util+mem+temp+SM clock+events)", us, n);
    }
  }

  private String benchDrain() throws Exception {
    String[] names = new String[200];
    float[] ms = new float[200];
    for (int i = 0; i < names.length; i++) {
      names[i] = "model.layers." + (i / 8) + ".op_" + i;
      ms[i] = 0.01f * i;
    }
    try (ShimProfiler p = ShimProfiler.create()) {
      double[] sink = new double[1];
      int rounds = 30;
      long fillNs = 0;
      long drainNs = 0;
      int drained = 0;
      for (int r = 0; r < rounds + 5; r++) {
        long f0 = System.nanoTime();
        TensorRtEmulator.reportLayerTimes(p, names, ms, 100);
        long d0 = System.nanoTime();
        drained = p.drain((layer, t) -> sink[0] += t);
        long d1 = System.nanoTime();
        if (r >= 5) {
          fillNs += d0 - f0;
          drainNs += d1 - d0;
        }
      }
      if (drained != 20_000) {
        throw new Fail("drained " + drained + " of 20000");
      }
      return String.format(Locale.ROOT,
          "drain of 20000 samples: mean %.3f ms (%.1f ns/sample); native reportLayerTime %.1f ns/call; dropped %d",
          drainNs / 1e6 / rounds, (double) drainNs / rounds / 20_000, (double) fillNs / rounds / 20_000, p.droppedSamples());
    }
  }

  private static void check(int rc, String call) throws Fail {
    if (rc != 0) {
      throw new Fail(call + " failed: cudaError " + rc);
    }
  }
}
