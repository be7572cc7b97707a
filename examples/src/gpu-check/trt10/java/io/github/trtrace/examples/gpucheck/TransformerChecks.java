package io.github.trtrace.examples.gpucheck;

import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.examples.tensorrt.Generation;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.tensorrt.model.build.BuildDiff;
import io.github.trtrace.tensorrt.model.build.BuildGate;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.build.TracedBuilder;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.engine.ProfilingPolicy;
import io.github.trtrace.tensorrt.engine.TracedEngine;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.log.TensorRtLogger;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.nvml.NvmlMetricsSource;
import io.github.trtrace.tensorrt.internal.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import io.github.trtrace.testing.InMemorySink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.IBuilder;
import org.bytedeco.tensorrt.nvinfer.IBuilderConfig;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.nvinfer.IEngineInspector;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;
import org.bytedeco.tensorrt.nvinfer.INetworkDefinition;
import org.bytedeco.tensorrt.nvinfer.IRuntime;
import org.bytedeco.tensorrt.nvinfer.ITimingCache;

/**
 * The real-engine checks of {@link GpuCheck}: the transformer of {@link TransformerNetwork} built
 * through {@link TracedBuilder} in several variants, the build gate on the real reports, and the built
 * engine served through {@link TracedEngine} (prefill + token-by-token decode, per-layer profiling, a
 * real run-time error, 8 threads over 4 contexts, tracing overhead). Runs only where TensorRT can build
 * engines (TensorRT 10.6 on the H200 here). Artifacts (reports, inspector JSON, log and profiler
 * excerpts, records) go to {@code artifacts}.
 */
final class TransformerChecks {
  static final long SEED = 20261201L;
  static final TransformerNetwork.Config CONFIG = TransformerNetwork.DEFAULT;

  /** A build variant: name, builder flags, fusion, FP32-constrained layers. */
  record Variant(String name, List<nvinfer.BuilderFlag> flags, TransformerNetwork.Fusion fusion, Predicate<String> fp32) {}

  static final Variant FP32 = new Variant("fp32", List.of(), TransformerNetwork.Fusion.ALLOWED, n -> false);
  static final Variant FP16 = new Variant("fp16", List.of(nvinfer.BuilderFlag.kFP16), TransformerNetwork.Fusion.ALLOWED, n -> false);
  static final Variant BF16 = new Variant("bf16", List.of(nvinfer.BuilderFlag.kBF16), TransformerNetwork.Fusion.ALLOWED, n -> false);
  static final Variant UNFUSED = new Variant("fp16-unfused", List.of(nvinfer.BuilderFlag.kFP16),
      TransformerNetwork.Fusion.BROKEN, n -> false);
  /** FP16 with the MLP constrained to FP32: the FP16 -> FP32 fallback the gate must catch. */
  static final Variant FALLBACK = new Variant("fp16-fp32-mlp",
      List.of(nvinfer.BuilderFlag.kFP16, nvinfer.BuilderFlag.kOBEY_PRECISION_CONSTRAINTS),
      TransformerNetwork.Fusion.ALLOWED, n -> n.contains(".mlp_"));

  private final TensorRtLogger logger;
  private final TrtLogPipeline pipeline;
  private final Path dir;
  private final Path artifacts;
  private final Map<String, BuildReport> reports = new LinkedHashMap<>();
  private final Map<String, Path> plans = new LinkedHashMap<>();
  private final List<String> runtimeErrors = new ArrayList<>();
  private IRuntime runtime;
  private ShimErrorRecorder runtimeRecorder;
  private ICudaEngine engine;
  private BuildReport engineReport;

  TransformerChecks(TensorRtLogger logger, Path artifacts) throws IOException {
    this.logger = logger;
    this.pipeline = logger.pipeline();
    this.dir = Files.createTempDirectory("trtrace-transformer");
    this.artifacts = Files.createDirectories(artifacts);
  }

  // --------------------------------------------------------------------------------------------- builds

  /** Builds every variant through TracedBuilder; one timing cache for all (optimisation level 1). */
  String buildAll() throws Exception {
    StringBuilder out = new StringBuilder();
    System.out.println("   network: " + CONFIG + ", " + CONFIG.parameters() / 1_000_000 + " M parameters, seed " + SEED);
    try (TracedBuilder tb = TracedBuilder.create(logger)) {
      IBuilder builder = tb.builder();
      IBuilderConfig cacheOwner = builder.createBuilderConfig();
      ITimingCache cache = cacheOwner.createTimingCache(null, 0);
      for (Variant v : List.of(FP16, FP32, BF16, UNFUSED, FALLBACK)) {
        INetworkDefinition net = builder.createNetworkV2(0);
        TransformerNetwork t = TransformerNetwork.define(net, CONFIG, SEED, v.fusion(), v.fp32());
        IBuilderConfig config = builder.createBuilderConfig();
        v.flags().forEach(config::setFlag);
        config.setBuilderOptimizationLevel(1);
        config.setTimingCache(cache, false);
        t.addProfile(builder, config);
        Path plan = dir.resolve("transformer-" + v.name() + ".plan");
        tb.progressBar(v == FP16 ? System.out : null);
        TracedBuilder.Result r = tb.build("transformer-" + v.name(), net, config, plan);
        t.releaseWeights();
        TensorRtObjects.destroy(config);
        TensorRtObjects.destroy(net);
        BuildReport rep = r.report();
        reports.put(v.name(), rep);
        Files.copy(TracedBuilder.reportPath(plan), artifacts.resolve("transformer-" + v.name() + ".plan.build.json"),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        String line = summary(v.name(), rep);
        System.out.println("   " + line);
        out.append(v.name()).append(' ').append(rep.status().wireName()).append("; ");
        if (!r.succeeded()) {
          throw new GpuCheck.Fail("build " + v.name() + " failed: " + rep.errors());
        }
        if (r.planFile() == null || Files.size(r.planFile()) != rep.planBytes()) {
          throw new GpuCheck.Fail("plan file of " + v.name() + " missing or of the wrong size");
        }
        plans.put(v.name(), plan);
      }
      TensorRtObjects.destroy(cache);
      TensorRtObjects.destroy(cacheOwner);
    }
    BuildReport fp16 = reports.get("fp16");
    System.out.println("   fp16 phases: " + fp16.phases());
    System.out.println("   fp16 captured build log: " + fp16.log().size() + " lines (VERBOSE included), e.g.");
    fp16.log().stream().filter(l -> l.startsWith("VERBOSE")).limit(5).forEach(l -> System.out.println("     " + l));
    Files.write(artifacts.resolve("transformer-fp16-build-log.txt"), fp16.log());
    if (fp16.phases().isEmpty()) {
      throw new GpuCheck.Fail("no progress-monitor phase reached the fp16 report");
    }
    if (fp16.log().stream().noneMatch(l -> l.startsWith("VERBOSE"))) {
      throw new GpuCheck.Fail("no VERBOSE line was captured into the fp16 report");
    }
    return out.toString();
  }

  private static String summary(String name, BuildReport r) {
    Map<String, Long> precisions = r.layers().stream().collect(Collectors.groupingBy(
        l -> String.valueOf(l.precision()), LinkedHashMap::new, Collectors.counting()));
    return String.format(Locale.ROOT,
        "%-14s %s build %.0f ms, %d phases, %d log lines, %d network -> %d engine layers, fusion rate %.3f,"
            + " precisions %s, fp32 fallbacks %d, device memory %d B, plan %d B, %d warnings",
        name, r.status().wireName(), r.buildMs(), r.phases().size(), r.log().size(), r.networkLayerCount(),
        r.engineLayerCount(), r.fusionRate(), precisions, r.fp32Fallbacks().size(), r.deviceMemoryBytes(),
        r.planBytes(), r.warnings().size());
  }

  /** BuildReport.diff and BuildGate on the real reports. */
  String gate() throws Exception {
    BuildReport base = need("fp16");
    BuildGate gate = BuildGate.builder().build();
    BuildGate.GateResult same = gate.check(base, base);
    BuildGate.GateResult unfused = gate.check(need("fp16-unfused"), base);
    BuildGate.GateResult fallback = gate.check(need("fp16-fp32-mlp"), base);
    BuildDiff fp32 = need("fp32").diff(base);
    System.out.println("   fp16 vs itself: " + same.message());
    System.out.println("   fp16-unfused vs fp16: " + unfused.message());
    System.out.println("   fp16-fp32-mlp vs fp16: " + fallback.message());
    System.out.println("   fp32 vs fp16 diff: " + fp32.regressions().size() + " regressions, kinds "
        + fp32.regressions().stream().map(BuildDiff.Regression::kind).distinct().toList());
    System.out.println("   fp16-fp32-mlp fp32Fallbacks: " + need("fp16-fp32-mlp").fp32Fallbacks().stream()
        .map(BuildReport.Layer::name).limit(8).toList());
    boolean unfusedCaught = unfused.failures().stream().anyMatch(f -> f.kind() == BuildDiff.Kind.FUSION_RATE
        || f.kind() == BuildDiff.Kind.ENGINE_LAYER_COUNT);
    boolean fallbackCaught = fallback.failures().stream().anyMatch(f -> f.kind() == BuildDiff.Kind.PRECISION_FALLBACK);
    if (!same.passed() || !unfusedCaught || !fallbackCaught) {
      throw new GpuCheck.Fail("gate: self passed=" + same.passed() + " unfused caught=" + unfusedCaught
          + " fallback caught=" + fallbackCaught);
    }
    return "gate passes fp16 vs itself, fails fp16-unfused (" + kinds(unfused) + ") and fp16-fp32-mlp (" + kinds(fallback) + ")";
  }

  private static String kinds(BuildGate.GateResult r) {
    return r.failures().stream().map(f -> f.kind().name()).distinct().collect(Collectors.joining(", "));
  }

  private BuildReport need(String variant) throws GpuCheck.Skip {
    BuildReport r = reports.get(variant);
    if (r == null || r.status() != BuildReport.Status.SUCCESS) {
      throw new GpuCheck.Skip("no " + variant + " engine was built");
    }
    return r;
  }

  /** Deserialises a streamed plan file and saves its inspector JSON (a CI fixture). */
  private ICudaEngine load(String variant) throws Exception {
    need(variant);
    if (runtime == null) {
      runtime = nvinfer.createInferRuntime(logger);
      runtimeRecorder = ShimErrorRecorder.create();
      runtime.setErrorRecorder(runtimeRecorder.asTensorRt());
    }
    byte[] bytes = Files.readAllBytes(plans.get(variant));
    BytePointer data = new BytePointer(bytes);
    ICudaEngine e = runtime.deserializeCudaEngine(data, bytes.length);
    data.close();
    if (e == null || e.isNull()) {
      throw new GpuCheck.Fail("the streamed plan of " + variant + " did not deserialise: " + runtimeRecorder.drain());
    }
    IEngineInspector inspector = e.createEngineInspector();
    String json = inspector.getEngineInformation(nvinfer.LayerInformationFormat.kJSON);
    Files.writeString(artifacts.resolve("transformer-" + variant + "-inspector.json"), json);
    TensorRtObjects.destroy(inspector);
    return e;
  }

  // --------------------------------------------------------------------------------------------- serving

  /** Greedy generation through a traced request: prefill, then one launch per decoded token. */
  static int[] generate(TracedEngine.Request r, InferenceTrace t, Generation g, int[] prompt, int newTokens)
      throws Exception {
    int[] out = new int[newTokens];
    t.inputTokens(prompt.length);
    t.runStage(Stage.DECODE, () -> {
      g.prefill(prompt);
      if (!r.launch(g::bind)) {
        throw new IllegalStateException("prefill failed");
      }
      int next = Generation.argmax(g.lastLogits());
      g.advance();
      t.token();
      out[0] = next;
      for (int i = 1; i < newTokens; i++) {
        g.decode(next);
        if (!r.launch(g::bind)) {
          throw new IllegalStateException("decode step " + i + " failed");
        }
        next = Generation.argmax(g.lastLogits());
        g.advance();
        t.token();
        out[i] = next;
      }
    });
    return out;
  }

  static int[] prompt(int length, int variant) {
    int[] p = new int[length];
    for (int i = 0; i < length; i++) {
      p[i] = (int) ((variant * 7919L + i * 104729L) % CONFIG.vocab());
    }
    return p;
  }

  /**
   * The KV cache is real: a prefill of n tokens and a prefill of n - 1 followed by one decode step give
   * the same last-position logits (FP32 engine; TF32 is on by default, hence the tolerance).
   */
  String kvCacheConsistency() throws Exception {
    ICudaEngine fp32 = load("fp32");
    try (TracedEngine e = TracedEngine.builder(fp32).contexts(1).build();
        InferenceTracer tracer = InferenceTracer.noop();
        Generation g = new Generation(CONFIG, 64)) {
      int[] p = prompt(24, 3);
      float[] full;
      float[] stepped;
      try (InferenceTrace t = tracer.start("transformer-fp32"); TracedEngine.Request r = e.request(t)) {
        g.prefill(p);
        r.launch(g::bind);
        full = g.lastLogits();
        g.prefill(Arrays.copyOf(p, p.length - 1));
        r.launch(g::bind);
        g.advance();
        g.decode(p[p.length - 1]);
        r.launch(g::bind);
        stepped = g.lastLogits();
      }
      double diff = Generation.maxAbsDiff(full, stepped);
      double scale = Generation.maxAbs(full);
      String d = String.format(Locale.ROOT, "max |prefill(24) - prefill(23)+decode(1)| = %.2e (max |logit| %.2f), argmax %d vs %d",
          diff, scale, Generation.argmax(full), Generation.argmax(stepped));
      if (!(diff <= 2e-2 * Math.max(1, scale)) || Generation.argmax(full) != Generation.argmax(stepped)) {
        throw new GpuCheck.Fail(d);
      }
      return d;
    } finally {
      TensorRtObjects.destroy(fp32);
    }
  }

  private ICudaEngine fp16() throws Exception {
    if (engine == null) {
      engine = load("fp16");
      engineReport = need("fp16");
    }
    return engine;
  }

  /** One traced request on the FP16 engine: prompt 32, 16 tokens (prefill + 15 decode launches); the record's timings. */
  String serveOne() throws Exception {
    ICudaEngine e16 = fp16();
    InMemorySink sink = InMemorySink.create();
    try (NvmlMetricsSource nvml = NvmlMetricsSource.open(0);
        InferenceTracer tracer = InferenceTracer.builder().sink(sink).gpuMetrics(nvml, Duration.ofMillis(20)).build();
        TracedEngine e = TracedEngine.builder(e16).contexts(4).logPipeline(pipeline).buildReport(engineReport).build();
        Generation g = new Generation(CONFIG, 128)) {
      int[] tokens;
      try (InferenceTrace t = tracer.start("transformer-fp16", "req-serve-1"); TracedEngine.Request r = e.request(t)) {
        tokens = generate(r, t, g, prompt(32, 1), 16);
      }
      // a long one (prefill 2000 + 48 tokens): GPU and memory-bandwidth utilisation over its lifetime
      try (Generation big = new Generation(CONFIG, 2048);
          InferenceTrace t = tracer.start("transformer-fp16", "req-serve-long"); TracedEngine.Request r = e.request(t)) {
        generate(r, t, big, prompt(2000, 11), 48);
      }
      tracer.flush().join();
      InferenceRecord longRec = sink.findByRequestId("req-serve-long").orElseThrow();
      System.out.println("   long record: " + RecordConvention.toJson(longRec));
      Files.writeString(artifacts.resolve("record-serve-long.json"), RecordConvention.toJson(longRec) + "\n");
      InferenceRecord rec = sink.findByRequestId("req-serve-1").orElseThrow();
      String json = RecordConvention.toJson(rec);
      System.out.println("   record: " + json);
      Files.writeString(artifacts.resolve("record-serve-1.json"), json + "\n");
      System.out.println("   tokens: " + Arrays.toString(tokens));
      boolean ok = rec.status() == Status.SUCCESS && rec.gpuMs() > 0 && rec.inferMs() > 0 && rec.ttftMs() > 0
          && rec.tpotMs() > 0 && rec.outputTokens() == 16 && rec.inputTokens() == 32 && rec.engineFingerprint() != null
          && rec.inferMs() + rec.decodeMs() <= rec.latencyMs() + 1e-6;
      String d = String.format(Locale.ROOT,
          "16 launches: latency %.2f ms, ttft %.2f ms, tpot %.3f ms, infer %.2f ms (inside decode, decode self %.2f ms),"
              + " gpu %.2f ms (CUDA events), fingerprint %s; long request (prefill 2000 + 48): latency %.1f ms, gpu %.1f ms,"
              + " gpu_util mean/max %.0f/%.0f, gpu_mem_util mean/max %.0f/%.0f", rec.latencyMs(), rec.ttftMs(), rec.tpotMs(),
          rec.inferMs(), rec.decodeMs(), rec.gpuMs(), rec.engineFingerprint().substring(0, 12), longRec.latencyMs(),
          longRec.gpuMs(), longRec.gpuUtilMean(), longRec.gpuUtilMax(), longRec.gpuMemUtilMean(), longRec.gpuMemUtilMax());
      if (!ok) {
        throw new GpuCheck.Fail(d + " / record " + json);
      }
      return d;
    }
  }

  /**
   * Per-layer profiles: a profiled request's table sums its 16 launches and joins the build report;
   * after a slow request the next one (only) is profiled.
   */
  String profile() throws Exception {
    ICudaEngine e16 = fp16();
    InMemorySink sink = InMemorySink.create();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).build();
        Generation g = new Generation(CONFIG, 2048)) {
      // sampled: every request
      try (TracedEngine e = TracedEngine.builder(e16).contexts(2).buildReport(engineReport).maxLayersPerRecord(48)
          .profiling(ProfilingPolicy.builder().sampleRate(1.0).build()).build();
          InferenceTrace t = tracer.start("transformer-fp16", "req-profiled");
          TracedEngine.Request r = e.request(t)) {
        generate(r, t, g, prompt(32, 2), 16);
      }
      // how many of a request's launches report layer times, on a fresh profiled context and again
      try (TracedEngine e = TracedEngine.builder(e16).contexts(1).profiling(ProfilingPolicy.builder().sampleRate(1.0).build()).build()) {
        int[] launches = {1, 2, 3, 1, 2};
        for (int i = 0; i < launches.length; i++) {
          try (InferenceTrace t = tracer.start("transformer-fp16", "req-launches-" + i); TracedEngine.Request r = e.request(t)) {
            generate(r, t, g, prompt(8, 7), launches[i]);
          }
        }
      }
      // after slow: a short request calibrates, a long prefill is slow, the next short one is profiled
      double shortMs;
      try (TracedEngine warm = TracedEngine.builder(e16).build()) {
        long t0 = System.nanoTime();
        try (InferenceTrace t = tracer.start("transformer-fp16", "req-calibrate"); TracedEngine.Request r = warm.request(t)) {
          generate(r, t, g, prompt(16, 4), 4);
        }
        shortMs = (System.nanoTime() - t0) / 1e6;
      }
      ProfilingPolicy afterSlow = ProfilingPolicy.builder().slowThreshold(Duration.ofNanos(Math.round(Math.max(1, shortMs * 3) * 1e6))).build();
      List<Boolean> profiled = new ArrayList<>();
      try (TracedEngine e = TracedEngine.builder(e16).buildReport(engineReport).profiling(afterSlow).build()) {
        String[] ids = {"req-before-slow", "req-slow", "req-after-slow", "req-after-after"};
        int[] promptLen = {16, 2000, 16, 16};
        int[] steps = {4, 40, 4, 4};
        for (int i = 0; i < ids.length; i++) {
          try (InferenceTrace t = tracer.start("transformer-fp16", ids[i]); TracedEngine.Request r = e.request(t)) {
            profiled.add(r.profiled());
            generate(r, t, g, prompt(promptLen[i], 5), steps[i]);
          }
        }
      }
      tracer.flush().join();
      InferenceRecord rec = sink.findByRequestId("req-profiled").orElseThrow();
      List<String> table = new ArrayList<>();
      rec.layers().forEach(l -> table.add(String.format(Locale.ROOT, "%s|%.4f|%d", l.name(), l.ms(), l.invocations())));
      Files.write(artifacts.resolve("profile-req-profiled.txt"), table);
      System.out.println("   req-profiled layers (" + rec.layers().size() + "; name|ms|invocations):");
      table.stream().limit(12).forEach(l -> System.out.println("     " + l));
      rec.attributes().entrySet().stream().filter(en -> en.getKey().startsWith("trt_layer.")).limit(6)
          .forEach(en -> System.out.println("     " + en.getKey() + " = " + en.getValue()));
      System.out.println("   after-slow decisions (before, slow, after, after-after): " + profiled);
      for (int i = 0; i < 5; i++) {
        InferenceRecord lr = sink.findByRequestId("req-launches-" + i).orElseThrow();
        System.out.println("   req-launches-" + i + ": " + lr.outputTokens() + " launches, layer invocations "
            + lr.layers().stream().map(InferenceRecord.LayerTime::invocations).collect(Collectors.toCollection(java.util.TreeSet::new)));
      }
      InferenceRecord after = sink.findByRequestId("req-after-slow").orElseThrow();
      // how many launches reported layer times: every layer runs once per launch
      java.util.Set<Integer> counts = rec.layers().stream().map(InferenceRecord.LayerTime::invocations)
          .collect(Collectors.toCollection(java.util.TreeSet::new));
      System.out.println("   invocations per layer (16 launches): " + counts);
      boolean allLaunches = counts.size() == 1 && counts.iterator().next() == 16;
      boolean ok = !rec.layers().isEmpty() && allLaunches && profiled.equals(List.of(false, false, true, false))
          && !after.layers().isEmpty() && rec.attributes().keySet().stream().anyMatch(k -> k.startsWith("trt_layer."));
      double layerSum = rec.layers().stream().mapToDouble(InferenceRecord.LayerTime::ms).sum();
      String d = String.format(Locale.ROOT, "%d layers, each reported by %s of 16 launches (sum %.2f ms, gpu_ms %.2f),"
              + " explained from the build report; after-slow profiled exactly the next request %s", rec.layers().size(),
          counts, layerSum, rec.gpuMs(), profiled);
      if (!ok) {
        throw new GpuCheck.Fail(d + " every layer once per launch=" + allLaunches);
      }
      return d;
    }
  }

  /** A real run-time error (input shape outside the profile) lands on that request's record only. */
  String runtimeError() throws Exception {
    ICudaEngine e16 = fp16();
    InMemorySink sink = InMemorySink.create();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).build();
        TracedEngine e = TracedEngine.builder(e16).contexts(1).logPipeline(pipeline).build();
        Generation g = new Generation(CONFIG, 64)) {
      try (InferenceTrace t = tracer.start("transformer-fp16", "req-too-long"); TracedEngine.Request r = e.request(t)) {
        g.outOfProfile(4096);
        try {
          r.launch(g::bind);
          throw new GpuCheck.Fail("a launch with input_ids [1, 4096] was accepted");
        } catch (IllegalArgumentException expected) {
          System.out.println("   binder: " + expected.getMessage());
        }
      }
      try (InferenceTrace t = tracer.start("transformer-fp16", "req-next"); TracedEngine.Request r = e.request(t)) {
        generate(r, t, g, prompt(8, 6), 2);
      }
      tracer.flush().join();
      InferenceRecord bad = sink.findByRequestId("req-too-long").orElseThrow();
      InferenceRecord next = sink.findByRequestId("req-next").orElseThrow();
      bad.events().forEach(ev -> runtimeErrors.add(ev.kind() + "|" + ev.severity() + "|" + ev.message()));
      Files.write(artifacts.resolve("runtime-errors.txt"), runtimeErrors);
      System.out.println("   req-too-long: " + RecordConvention.toJson(bad));
      boolean ok = bad.status() != Status.SUCCESS && bad.errorType() != null && bad.errorType().startsWith("tensorrt.")
          && !bad.events().isEmpty() && next.status() == Status.SUCCESS && next.errorType() == null
          && next.events().stream().noneMatch(ev -> ev.severity().equals("error"));
      String d = "error_type " + bad.errorType() + ", " + bad.events().size() + " event(s): "
          + (bad.events().isEmpty() ? "-" : bad.events().get(0).message()) + "; next request on the context clean: "
          + (next.errorType() == null);
      if (!ok) {
        throw new GpuCheck.Fail(d);
      }
      return d;
    }
  }

  /**
   * 8 threads, 4 contexts, 1,000 requests (prefill 8 + 3 decoded tokens; every 25th shaped outside the
   * profile; pairs sharing one request ID): each error lands on its request, and every request with the
   * same prompt generated the same tokens (no KV or binding mix-up between contexts).
   */
  String concurrency() throws Exception {
    ICudaEngine e16 = fp16();
    InMemorySink sink = InMemorySink.create(2000);
    int requests = 1000;
    Map<Integer, String> tokensByPrompt = new ConcurrentHashMap<>();
    AtomicInteger mismatches = new AtomicInteger();
    long t0;
    long t1;
    try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).queueCapacity(4096).build();
        TracedEngine e = TracedEngine.builder(e16).contexts(4).logPipeline(pipeline).buildReport(engineReport)
            .profiling(ProfilingPolicy.builder().sampleRate(0.05).build()).build()) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      ThreadLocal<Generation> gens = ThreadLocal.withInitial(() -> new Generation(CONFIG, 64));
      List<Generation> all = new java.util.concurrent.CopyOnWriteArrayList<>();
      List<Future<?>> fs = new ArrayList<>();
      t0 = System.nanoTime();
      for (int i = 0; i < requests; i++) {
        int idx = i;
        fs.add(pool.submit(() -> {
          Generation g = gens.get();
          if (!all.contains(g)) {
            all.add(g);
          }
          String id = "req-c-" + (idx / 2);   // two requests per ID
          try (InferenceTrace t = tracer.start("transformer-fp16", id); var scope = t.makeCurrent();
              TracedEngine.Request r = e.request(t)) {
            t.attribute("idx", Integer.toString(idx));
            if (idx % 25 == 7) {
              g.outOfProfile(4096);
              try {
                r.launch(g::bind);
              } catch (IllegalArgumentException expected) {
                // recorded on the trace: TensorRT's error from the context's recorder
              }
            } else {
              int p = idx % 8;
              String toks = Arrays.toString(generate(r, t, g, prompt(8, p), 3));
              String first = tokensByPrompt.putIfAbsent(p, toks);
              if (first != null && !first.equals(toks)) {
                mismatches.incrementAndGet();
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get(120, TimeUnit.SECONDS);
      }
      t1 = System.nanoTime();
      pool.shutdown();
      tracer.flush().join();
      all.forEach(Generation::close);
      List<InferenceRecord> recs = sink.records();
      int wrong = 0;
      int errors = 0;
      for (InferenceRecord r : recs) {
        int idx = Integer.parseInt(r.attributes().get("idx"));
        boolean shouldFail = idx % 25 == 7;
        boolean failed = r.errorType() != null;
        if (failed) {
          errors++;
        }
        boolean eventsOk = shouldFail ? !r.events().isEmpty() && r.events().stream().allMatch(ev -> ev.message().contains("Error Code"))
            : r.events().stream().noneMatch(ev -> ev.severity().equals("error"));
        if (shouldFail != failed || !eventsOk || !r.requestId().equals("req-c-" + (idx / 2))
            || (!shouldFail && (r.outputTokens() != 3 || !(r.gpuMs() > 0)))) {
          wrong++;
          if (wrong <= 3) {
            System.out.println("   WRONG " + RecordConvention.toJson(r));
          }
        }
      }
      var stats = e.poolStats();
      String d = String.format(Locale.ROOT,
          "%d records in %.2f s (%.0f req/s); %d errors on exactly the out-of-profile requests: %s; misattributed %d;"
              + " token mismatches %d (prompts %d); pool borrows %d, max in use %d, waits %d; profiled %d",
          recs.size(), (t1 - t0) / 1e9, requests / ((t1 - t0) / 1e9), errors, wrong == 0, wrong, mismatches.get(),
          tokensByPrompt.size(), stats.borrows(), stats.maxInUse(), stats.waits(),
          recs.stream().filter(r -> !r.layers().isEmpty()).count());
      if (recs.size() != requests || wrong != 0 || mismatches.get() != 0 || errors != requests / 25) {
        throw new GpuCheck.Fail(d);
      }
      return d;
    }
  }

  // --------------------------------------------------------------------------------------------- overhead

  /** Per-request latency and throughput of one mode over a request mix. */
  record Run(String mode, double p50, double p99, double mean, double reqPerS) {
    String line() {
      return String.format(Locale.ROOT, "%-22s p50 %8.3f ms  p99 %8.3f ms  mean %8.3f ms  %8.1f req/s", mode, p50, p99,
          mean, reqPerS);
    }
  }

  interface Body {
    void run(int i) throws Exception;
  }

  static Run measure(String mode, int n, Body body) throws Exception {
    double[] ms = new double[n];
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      body.run(i);
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    double total = (System.nanoTime() - start) / 1e9;
    double[] sorted = ms.clone();
    Arrays.sort(sorted);
    return new Run(mode, sorted[n / 2], sorted[(int) Math.ceil(n * 0.99) - 1], Arrays.stream(ms).average().orElse(0),
        n / total);
  }

  /**
   * Tracing overhead on real inference: the same request, traced fully (records to a JSON Lines file,
   * GPU metrics, MDC, CUDA-event GPU time) vs {@code InferenceTracer.noop()} through the same traced
   * engine, and a raw context without the SDK. Short: prefill 16 + 32 decode steps (the decode step
   * dominates); long: one 2,000-token prefill. Modes interleave in rounds. Also per-layer profiling's
   * cost, and unprofiled requests on an engine that profiles 20 %.
   */
  String overhead() throws Exception {
    ICudaEngine e16 = fp16();
    Path log = dir.resolve("records.jsonl");
    StringBuilder report = new StringBuilder();
    try (NvmlMetricsSource nvml = NvmlMetricsSource.open(0);
        InferenceTracer full = InferenceTracer.builder().jsonLinesFile(log).gpuMetrics(nvml, Duration.ofMillis(100)).build();
        InferenceTracer noop = InferenceTracer.noop();
        TracedEngine plain = TracedEngine.builder(e16).logPipeline(pipeline).buildReport(engineReport).build();
        TracedEngine always = TracedEngine.builder(e16).buildReport(engineReport)
            .profiling(ProfilingPolicy.builder().sampleRate(1.0).build()).build();
        TracedEngine some = TracedEngine.builder(e16).buildReport(engineReport)
            .profiling(ProfilingPolicy.builder().sampleRate(0.2).random(new java.util.SplittableRandom(1)::nextDouble).build()).build();
        Generation g = new Generation(CONFIG, 2048);
        CudaStream rawStream = CudaStream.createNonBlocking()) {
      IExecutionContext raw = e16.createExecutionContext();
      int[] shortPrompt = prompt(16, 9);
      int[] longPrompt = prompt(2000, 10);
      Body rawShort = i -> rawGenerate(raw, rawStream, g, shortPrompt, 32);
      Body rawLong = i -> rawGenerate(raw, rawStream, g, longPrompt, 1);
      // warm-up
      for (int i = 0; i < 20; i++) {
        rawShort.run(i);
        traced(full, plain, g, shortPrompt, 32);
        traced(noop, plain, g, shortPrompt, 32);
      }
      // the modes take turns request by request, so clock and thermal drift hit all of them alike
      Map<String, List<Run>> rounds = new LinkedHashMap<>();
      for (Run r : interleaved(300, Map.of(
          "short raw", rawShort,
          "short noop tracer", i -> traced(noop, plain, g, shortPrompt, 32),
          "short full tracing", i -> traced(full, plain, g, shortPrompt, 32)))) {
        add(rounds, r);
      }
      for (Run r : interleaved(150, Map.of(
          "long raw", rawLong,
          "long noop tracer", i -> traced(noop, plain, g, longPrompt, 1),
          "long full tracing", i -> traced(full, plain, g, longPrompt, 1)))) {
        add(rounds, r);
      }
      for (Run r : interleaved(100, Map.of(
          "short profiled", i -> traced(full, always, g, shortPrompt, 32),
          "short full tracing (never-profiling engine)", i -> traced(full, plain, g, shortPrompt, 32)))) {
        add(rounds, r);
      }
      double[][] someVsNever = unprofiledLatencies(full, some, plain, g, shortPrompt, 300);
      double[] unprofiledOfSome = someVsNever[0];
      double[] neverEngine = someVsNever[1];
      // one decode step alone, for the per-launch figure
      Run step = measure("decode step raw", 500, i -> {
        if (i == 0) {
          g.prefill(shortPrompt);
          rawLaunch(raw, rawStream, g);
          g.advance();
        }
        if (g.past() >= 2000) {
          g.prefill(shortPrompt);
          rawLaunch(raw, rawStream, g);
          g.advance();
        }
        g.decode(1);
        rawLaunch(raw, rawStream, g);
        g.advance();
      });
      // memory-bandwidth utilisation while long prefills run (NVML samples over its own period)
      double[] memUtil = sampleMemUtil(nvml, rawLong);
      TensorRtObjects.destroy(raw);
      for (Map.Entry<String, List<Run>> en : rounds.entrySet()) {
        Run best = median(en.getValue());
        report.append(best.line()).append('\n');
      }
      Run sRaw = median(rounds.get("short raw"));
      Run sNoop = median(rounds.get("short noop tracer"));
      Run sFull = median(rounds.get("short full tracing"));
      Run lRaw = median(rounds.get("long raw"));
      Run lNoop = median(rounds.get("long noop tracer"));
      Run lFull = median(rounds.get("long full tracing"));
      Run prof = median(rounds.get("short profiled"));
      Run profPeer = median(rounds.get("short full tracing (never-profiling engine)"));
      Arrays.sort(unprofiledOfSome);
      Arrays.sort(neverEngine);
      report.append(String.format(Locale.ROOT,
          "short (prefill 16 + 32 steps): full/noop p50 %.4f p99 %.4f throughput %.4f; full/raw p50 %.4f%n"
              + "long (prefill 2000): full/noop p50 %.4f p99 %.4f throughput %.4f; full/raw p50 %.4f%n"
              + "decode step (raw launch + readback): p50 %.3f ms%n"
              + "profiled request / unprofiled (full tracing): p50 %.3f%n"
              + "unprofiled requests of an engine profiling 20%%: p50 %.3f ms vs %.3f ms on a never-profiling engine, interleaved (ratio %.4f)%n"
              + "NVML memory-bandwidth utilisation during long prefills: mean %.0f %%, max %.0f %% (%d samples)%n",
          sFull.p50() / sNoop.p50(), sFull.p99() / sNoop.p99(), sFull.reqPerS() / sNoop.reqPerS(), sFull.p50() / sRaw.p50(),
          lFull.p50() / lNoop.p50(), lFull.p99() / lNoop.p99(), lFull.reqPerS() / lNoop.reqPerS(), lFull.p50() / lRaw.p50(),
          step.p50(), prof.p50() / profPeer.p50(), unprofiledOfSome[unprofiledOfSome.length / 2],
          neverEngine[neverEngine.length / 2], unprofiledOfSome[unprofiledOfSome.length / 2] / neverEngine[neverEngine.length / 2],
          memUtil[0], memUtil[1], (int) memUtil[2]));
    }
    full0(log);
    Files.writeString(artifacts.resolve("overhead.txt"), report.toString());
    System.out.print(report.toString().lines().map(l -> "   " + l + "\n").collect(Collectors.joining()));
    return "see the table above (" + Files.lines(log).count() + " records written to the JSON Lines file)";
  }

  private void full0(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    Files.write(artifacts.resolve("records-sample.jsonl"), lines.subList(0, Math.min(5, lines.size())));
  }

  private static void add(Map<String, List<Run>> rounds, Run r) {
    rounds.computeIfAbsent(r.mode(), k -> new ArrayList<>()).add(r);
  }

  private static Run median(List<Run> runs) {
    List<Run> s = new ArrayList<>(runs);
    s.sort((a, b) -> Double.compare(a.p50(), b.p50()));
    return s.get(s.size() / 2);
  }

  private static void traced(InferenceTracer tracer, TracedEngine e, Generation g, int[] prompt, int n) throws Exception {
    try (InferenceTrace t = tracer.start("transformer-fp16"); var scope = t.makeCurrent(); TracedEngine.Request r = e.request(t)) {
      generate(r, t, g, prompt, n);
    }
  }

  /** Unprofiled requests' latencies on {@code some} (which profiles a share) and on {@code never}, taking turns. */
  private static double[][] unprofiledLatencies(InferenceTracer tracer, TracedEngine some, TracedEngine never,
      Generation g, int[] prompt, int n) throws Exception {
    List<Double> a = new ArrayList<>();
    List<Double> b = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      boolean profiled;
      try (InferenceTrace t = tracer.start("transformer-fp16"); var scope = t.makeCurrent(); TracedEngine.Request r = some.request(t)) {
        profiled = r.profiled();
        generate(r, t, g, prompt, 32);
      }
      long t1 = System.nanoTime();
      traced(tracer, never, g, prompt, 32);
      long t2 = System.nanoTime();
      if (!profiled) {
        a.add((t1 - t0) / 1e6);
        b.add((t2 - t1) / 1e6);
      }
    }
    return new double[][] {a.stream().mapToDouble(Double::doubleValue).toArray(), b.stream().mapToDouble(Double::doubleValue).toArray()};
  }

  /** Runs the modes in turn, one request each, {@code n} rounds (modes in a fixed order). */
  static List<Run> interleaved(int n, Map<String, Body> modes) throws Exception {
    List<String> names = new ArrayList<>(new java.util.TreeMap<>(modes).keySet());
    double[][] ms = new double[names.size()][n];
    for (int i = 0; i < n; i++) {
      for (int m = 0; m < names.size(); m++) {
        long t0 = System.nanoTime();
        modes.get(names.get(m)).run(i);
        ms[m][i] = (System.nanoTime() - t0) / 1e6;
      }
    }
    List<Run> out = new ArrayList<>();
    for (int m = 0; m < names.size(); m++) {
      double[] sorted = ms[m].clone();
      Arrays.sort(sorted);
      double sum = Arrays.stream(ms[m]).sum();
      out.add(new Run(names.get(m), sorted[n / 2], sorted[(int) Math.ceil(n * 0.99) - 1], sum / n, n / (sum / 1e3)));
    }
    return out;
  }

  private static void rawGenerate(IExecutionContext ctx, CudaStream s, Generation g, int[] prompt, int n) {
    g.prefill(prompt);
    rawLaunch(ctx, s, g);
    int next = Generation.argmax(g.lastLogits());
    g.advance();
    for (int i = 1; i < n; i++) {
      g.decode(next);
      rawLaunch(ctx, s, g);
      next = Generation.argmax(g.lastLogits());
      g.advance();
    }
  }

  private static void rawLaunch(IExecutionContext ctx, CudaStream s, Generation g) {
    g.bind(ctx, s);
    if (!ctx.enqueueV3(s.handle())) {
      throw new IllegalStateException("raw enqueue failed");
    }
    s.synchronize();
  }

  private static double[] sampleMemUtil(NvmlMetricsSource nvml, Body longPrefill) throws Exception {
    List<Double> samples = new ArrayList<>();
    long end = System.nanoTime() + 1_500_000_000L;
    int i = 0;
    while (System.nanoTime() < end) {
      longPrefill.run(i++);
      double m = nvml.memoryUtilPercent();
      if (!Double.isNaN(m)) {
        samples.add(m);
      }
    }
    double mean = samples.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    double max = samples.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    return new double[] {mean, max, samples.size()};
  }

  void close() {
    TensorRtObjects.destroy(engine);
    TensorRtObjects.destroy(runtime);
    if (runtimeRecorder != null) {
      runtimeRecorder.close();
    }
  }

  static List<RecordedError> none() {
    return List.of();
  }
}
