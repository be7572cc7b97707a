package io.github.trtrace.examples.gpucheck;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.tensorrt.model.build.BuildFailureDiagnosis;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.build.BuilderCreationException;
import io.github.trtrace.tensorrt.build.TracedBuilder;
import io.github.trtrace.tensorrt.doctor.DoctorReport;
import io.github.trtrace.tensorrt.doctor.TensorRtDoctor;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.log.TensorRtLogger;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import io.github.trtrace.tensorrt.nvml.NvmlMetricsSource;
import io.github.trtrace.tensorrt.internal.shim.NativeShim;
import io.github.trtrace.tensorrt.internal.shim.ProgressEvent;
import io.github.trtrace.tensorrt.internal.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.internal.shim.ShimProfiler;
import io.github.trtrace.tensorrt.internal.shim.ShimProgressMonitor;
import io.github.trtrace.tensorrt.internal.shim.TensorRtAbi;
import io.github.trtrace.tensorrt.internal.shim.TensorRtEmulator;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.nvinfer.IErrorRecorder;
import org.bytedeco.tensorrt.nvinfer.IProfiler;
import org.bytedeco.tensorrt.nvinfer.IProgressMonitor;
import org.bytedeco.tensorrt.nvinfer.IRuntime;
import org.bytedeco.tensorrt.nvinfer.InterfaceInfo;

/**
 * The TensorRT 11 checks of trace-tensorrt on a real GPU (TensorRT 11.2.1 from the JavaCPP preset 11.2-1.5.14),
 * compiled against the 11.2 preset. No engine can be built there from Maven artifacts (no sm90 builder
 * resource: builder creation fails), so it checks everything short of an engine, each as one row, and prints
 * every row as it completes (a native crash would still leave the rows before it).
 *
 * <pre>{@code
 * java --enable-native-access=ALL-UNNAMED -cp '.gpu/trt-compat/app/*' io.github.trtrace.examples.gpucheck.Trt11Check
 * }</pre>
 */
public final class Trt11Check {
  private enum Outcome { PASS, FAIL, SKIP }

  private record Row(String check, Outcome outcome, String detail) {}

  private interface Body {
    String run() throws Exception;
  }

  private static final class Fail extends Exception {
    private static final long serialVersionUID = 1L;

    Fail(String why) {
      super(why);
    }
  }

  private final List<Row> rows = new ArrayList<>();
  private final List<TrtLogEvent> allEvents = new CopyOnWriteArrayList<>();
  private TrtLogPipeline pipeline;
  private TensorRtLogger logger;

  public static void main(String[] args) {
    new Trt11Check().run();
  }

  private void run() {
    System.out.println("trtrace TensorRT 11 check " + Instant.now() + " java " + System.getProperty("java.version"));
    check("TensorRT 11 load + ABI from getInferLibVersion", this::load);
    check("native shim load", this::shimLoad);
    check("logger bridge on real messages (createInferBuilder)", this::loggerBridge);
    check("ILogger v11 layout: emulator calls a preset ILogger", this::loggerLayout);
    check("TracedBuilder: builder creation fails -> report + diagnosis", this::tracedBuilderCreation);
    check("error recorder through the preset's JNI + runtime", this::errorRecorder);
    check("profiler shim, 11 layout, through the preset's JNI", this::profiler);
    check("progress monitor through the preset's JNI", this::progressMonitor);
    check("NVML reading", this::nvml);
    check("doctor report(logger)", this::doctor);
    check("TensorRtLogger.close(): TensorRT calls it afterwards, safely", this::loggerAfterClose);
    System.out.println();
    System.out.println("== trtrace TensorRT 11 check, " + Instant.now() + " ==");
    System.out.println(String.format(Locale.ROOT, "%-58s %-5s %s", "check", "result", "detail"));
    for (Row r : rows) {
      System.out.println(String.format(Locale.ROOT, "%-58s %-5s %s", r.check(), r.outcome(), r.detail()));
    }
  }

  private void check(String name, Body body) {
    System.out.println("-- " + name);
    System.out.flush();
    try {
      String detail = body.run();
      rows.add(new Row(name, Outcome.PASS, detail));
      System.out.println("   PASS " + detail);
    } catch (Throwable t) {
      String why = t instanceof Fail ? t.getMessage() : t.toString();
      rows.add(new Row(name, Outcome.FAIL, why));
      System.out.println("   FAIL " + why);
      if (!(t instanceof Fail)) {
        t.printStackTrace(System.out);
      }
    }
    System.out.flush();
  }

  private static void expect(boolean ok, String what) throws Fail {
    if (!ok) {
      throw new Fail(what);
    }
  }

  private TensorRtLogger logger() throws Fail {
    expect(logger != null, "TensorRT did not load (see the first row)");
    return logger;
  }

  // ------------------------------------------------------------------------------------------------ checks

  private String load() throws Exception {
    long t0 = System.nanoTime();
    Loader.load(nvinfer.class);
    int v = nvinfer.getInferLibVersion();
    pipeline = TrtLogPipeline.builder().runtimeLevel(TrtSeverity.VERBOSE).onEvent(allEvents::add).build();
    logger = TensorRtLogger.create(pipeline); // the process's first logger: TensorRT keeps it
    TensorRtAbi abi = TensorRtAbi.ofLoadedTensorRt();
    expect(abi == TensorRtAbi.V11, "getInferLibVersion " + v + " gave " + abi);
    return "getInferLibVersion=" + v + " (" + (v / 10000) + "." + (v / 100 % 100) + "." + (v % 100) + ") -> " + abi
        + ", loaded in " + (System.nanoTime() - t0) / 1_000_000 + " ms";
  }

  private String shimLoad() {
    long t0 = System.nanoTime();
    NativeShim.load();
    return "libtrtrace_shim.so loaded in " + (System.nanoTime() - t0) / 1_000_000 + " ms";
  }

  /** TensorRT's own lines through TensorRtLogger into the pipeline, on the request's thread. */
  private String loggerBridge() throws Exception {
    TensorRtLogger l = logger();
    List<TrtLogEvent> scoped = new CopyOnWriteArrayList<>();
    Object builder;
    try (TrtLogPipeline.Capture s = pipeline.openCapture("build:bridge11", scoped::add)) {
      builder = RequestContext.with("req-trt11-1").call(() -> nvinfer.createInferBuilder(l));
    }
    for (TrtLogEvent e : scoped) {
      System.out.println("   EVENT " + e.severity() + " " + e.kind().wireName() + " code=" + e.errorCode() + " req="
          + e.requestId() + " scope=" + e.scope() + " thread=" + e.threadName() + " | " + e.message());
    }
    org.bytedeco.tensorrt.nvinfer.IBuilder b = (org.bytedeco.tensorrt.nvinfer.IBuilder) builder;
    boolean isNull = b == null || b.isNull();
    if (!isNull) {
      TensorRtObjects.destroy(b);
    }
    expect(!scoped.isEmpty(), "no TensorRT message reached the pipeline; stats " + pipeline.stats());
    expect(scoped.stream().allMatch(e -> "req-trt11-1".equals(e.requestId())), "not all attributed to the request");
    TrtLogEvent err = scoped.stream().filter(TrtLogEvent::isError).findFirst().orElse(null);
    String kinds = scoped.stream().map(e -> e.severity() + "/" + e.kind().wireName()).distinct()
        .reduce((a, x) -> a + ", " + x).orElse("");
    return scoped.size() + " real lines, all req-trt11-1, kinds [" + kinds + "]; builder "
        + (isNull ? "null" : "created") + (err == null ? "" : "; error code " + err.errorCode() + " ("
        + err.errorCategory() + ")");
  }

  /** The emulator calls a JavaCPP ILogger (compiled by the preset against the 11.2 headers) through v11 slots. */
  private String loggerLayout() throws Exception {
    TensorRtLogger l = logger();
    String info = TensorRtEmulator.loggerInterfaceInfo(l.address());
    System.out.println("   slot 1 getInterfaceInfo -> " + info);
    expect(info.equals("ILogger 1.0"), "getInterfaceInfo through slot 1 gave " + info);
    int lang = TensorRtEmulator.loggerApiLanguage(l.address());
    System.out.println("   slot 0 getAPILanguage -> " + lang);
    expect(lang == nvinfer.APILanguage.kCPP.value, "getAPILanguage through slot 0 gave " + lang);
    long before = pipeline.stats().eventsBySeverity().get(TrtSeverity.INFO);
    int n = 20_000;
    TensorRtEmulator.logCalls(l.address(), TensorRtAbi.V11, 3, "trtrace v11 layout probe", 1000);
    long ns = TensorRtEmulator.logCalls(l.address(), 3, "trtrace v11 layout probe", n); // layout from the version
    long after = pipeline.stats().eventsBySeverity().get(TrtSeverity.INFO);
    expect(after - before == n + 1000, "INFO lines received " + (after - before) + " of " + (n + 1000));
    return String.format(Locale.ROOT, "getInterfaceInfo -> %s, getAPILanguage -> kCPP; %d log() calls through slot 4 all reached the"
        + " pipeline; %.0f ns per callback (INFO, VERBOSE run-time level)", info, n + 1000, (double) ns / n);
  }

  private String tracedBuilderCreation() throws Exception {
    TensorRtLogger l = logger();
    try (TracedBuilder tb = TracedBuilder.create(l)) {
      throw new Fail("TracedBuilder.create returned a builder: " + tb.builder());
    } catch (BuilderCreationException e) {
      BuildReport r = e.report();
      System.out.println(r.toJson());
      BuildFailureDiagnosis d = e.diagnosis();
      expect(r.status() == BuildReport.Status.FAILED, "status " + r.status());
      expect(d.cause() == BuildFailureDiagnosis.Cause.MISSING_BUILDER_RESOURCE, "cause " + d.cause());
      expect("libnvinfer_builder_resource_sm90.so.11.2.1".equals(d.missingFile()), "file " + d.missingFile());
      expect(d.summary().startsWith("Creating the TensorRT builder failed"), "summary " + d.summary());
      expect(BuildReport.read(r.toJson()).equals(r), "report does not read back equal");
      return "BuilderCreationException; report status=failed, tensorrt " + r.tensorrtVersion() + ", gpu "
          + (r.gpu() == null ? "?" : r.gpu().name() + " " + r.gpu().computeCapability()) + ", " + r.errors().size()
          + " error(s), " + r.log().size() + " log lines; diagnosis " + d.cause().wireName() + " " + d.missingFile()
          + "; " + d.fixSteps().size() + " fix steps; read back equal";
    }
  }

  private String errorRecorder() throws Exception {
    TensorRtLogger l = logger();
    IRuntime runtime = nvinfer.createInferRuntime(l);
    expect(runtime != null && !runtime.isNull(), "createInferRuntime returned null");
    ShimErrorRecorder recorder = ShimErrorRecorder.create();
    runtime.setErrorRecorder(recorder.asTensorRt());
    int refs = recorder.refCount();
    byte[] junk = new byte[4096];
    new Random(42).nextBytes(junk);
    BytePointer bytes = new BytePointer(junk);
    ICudaEngine engine = runtime.deserializeCudaEngine(bytes, junk.length);
    IErrorRecorder attached = runtime.getErrorRecorder();
    int nb = attached.getNbErrors();
    String descBefore = attached.getErrorDesc(0);
    long addrBefore = TensorRtEmulator.getErrorDescAddress(recorder, 0);
    List<RecordedError> errors = recorder.drain();
    String descAfter = attached.getErrorDesc(0);
    long addrAfter = TensorRtEmulator.getErrorDescAddress(recorder, 0);
    InterfaceInfo info = attached.getInterfaceInfo();
    for (RecordedError e : errors) {
      System.out.println("   RECORDED " + e.code() + " " + e.codeName() + " | " + e.description());
    }
    expect(engine == null || engine.isNull(), "junk deserialized into an engine");
    expect(!errors.isEmpty(), "recorder got no error");
    expect(nb == errors.size(), "getNbErrors via preset " + nb + " != drained " + errors.size());
    expect(descBefore != null && descBefore.equals(descAfter) && addrBefore == addrAfter,
        "getErrorDesc changed across a drain");
    expect("IErrorRecorder".equals(info.kind()) && info.major() == 1, "interface " + info.kind() + " " + info.major());
    recorder.clear();
    int nbAfterClear = attached.getNbErrors();
    runtime.setErrorRecorder(null);
    int refsAfterDetach = recorder.refCount();
    TensorRtObjects.destroy(runtime);
    recorder.close();
    return "recorder refs after setErrorRecorder=" + refs + ", after detach=" + refsAfterDetach + "; code "
        + errors.get(0).code() + " (" + errors.get(0).codeName() + "); getNbErrors via preset=" + nb
        + "; getErrorDesc pointer unchanged across drain; interface " + info.kind() + " " + info.major() + "."
        + info.minor() + "; after clear " + nbAfterClear + "; runtime destroyed (INoCopy delete)";
  }

  /** The preset's IProfiler JNI was compiled against the 11.2 headers: its calls must land in the 11 layout. */
  private String profiler() throws Exception {
    try (ShimProfiler p = ShimProfiler.create()) {
      expect(p.abi() == TensorRtAbi.V11, "ShimProfiler.create() chose " + p.abi());
      IProfiler ip = p.asTensorRt();
      InterfaceInfo info = ip.getInterfaceInfo();
      String lang = ip.getAPILanguage().toString();
      ip.reportLayerTime("qkv_proj_myl0_0", 0.041856f);
      ip.reportLayerTime("mlp_ffn_myl0_2", 0.014048f);
      List<String> got = new ArrayList<>();
      p.drain((layer, ms) -> got.add(layer + "=" + ms));
      expect(got.equals(List.of("qkv_proj_myl0_0=0.041856", "mlp_ffn_myl0_2=0.014048")), "drained " + got);
      expect("IProfiler".equals(info.kind()) && info.major() == 1 && info.minor() == 0,
          "getInterfaceInfo " + info.kind() + " " + info.major() + "." + info.minor());
      expect(lang.equals("kCPP"), "getAPILanguage " + lang);
      String emulated = TensorRtEmulator.interfaceInfo(p);
      return "abi " + p.abi() + "; preset getInterfaceInfo -> " + info.kind() + " " + info.major() + "." + info.minor()
          + ", getAPILanguage -> " + lang + ", reportLayerTime x2 drained " + got + "; emulator: " + emulated
          + " (setProfiler on a context needs an engine: none can be built here)";
    }
  }

  private String progressMonitor() throws Exception {
    try (ShimProgressMonitor m = ShimProgressMonitor.create()) {
      IProgressMonitor im = m.asTensorRt();
      im.phaseStart("phase", (String) null, 2);
      boolean go = im.stepComplete("phase", 0);
      m.cancel();
      boolean stop = im.stepComplete("phase", 1);
      im.phaseFinish("phase");
      List<ProgressEvent> ev = m.drain();
      InterfaceInfo info = im.getInterfaceInfo();
      expect(go && !stop && ev.size() == 4 && "IProgressMonitor".equals(info.kind()),
          "go=" + go + " stop=" + stop + " events=" + ev + " kind=" + info.kind());
      return "4 events, cancel honoured, interface " + info.kind() + " " + info.major() + "." + info.minor();
    }
  }

  private String nvml() throws Exception {
    try (NvmlMetricsSource nvml = NvmlMetricsSource.open(0)) {
      GpuMetricsSource.Reading r = nvml.read();
      return String.format(Locale.ROOT, "%s util %.0f%% mem %.0f/%.0f MiB %.0f C SM %.0f MHz events %s",
          nvml.deviceName(), r.utilPercent(), r.memUsedMb(), r.memTotalMb(), r.temperatureC(), r.smClockMhz(),
          r.throttleReasons());
    }
  }

  private String doctor() throws Exception {
    DoctorReport report = TensorRtDoctor.report(logger());
    System.out.println(report.toText());
    DoctorReport.Finding creation = report.findings().stream().filter(f -> f.check().equals("builder_creation"))
        .findFirst().orElseThrow();
    DoctorReport.Finding trt = report.findings().stream().filter(f -> f.check().equals("tensorrt"))
        .findFirst().orElseThrow();
    expect(trt.status() == DoctorReport.Status.OK, "tensorrt finding " + trt);
    expect(creation.status() == DoctorReport.Status.WARN && creation.detail().contains("Error Code 6"),
        "builder_creation finding " + creation);
    return "overall " + report.worst() + "; tensorrt: " + trt.detail() + "; builder_creation: " + creation.status();
  }

  private String loggerAfterClose() throws Exception {
    TensorRtLogger l = logger();
    l.close();
    long before = l.linesAfterClose();
    IRuntime runtime = nvinfer.createInferRuntime(l);
    byte[] junk = new byte[64];
    BytePointer bytes = new BytePointer(junk);
    ICudaEngine engine = runtime.deserializeCudaEngine(bytes, junk.length); // logs an error to the first logger
    TensorRtObjects.destroy(engine);
    TensorRtObjects.destroy(runtime);
    long after = l.linesAfterClose();
    expect(after > before, "TensorRT sent no line after close (before " + before + ", after " + after + ")");
    expect(!l.isNull(), "the native peer was freed");
    return (after - before) + " line(s) TensorRT sent to the closed logger were counted, not forwarded; no crash";
  }
}
