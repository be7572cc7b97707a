// Over 400 lines: the engine build and cache, the start-up statement, and serving alone (generate, raw) beside the batched step model, with the javadoc each needs.
package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.examples.tensorrt.Roofline;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import io.github.trtrace.tensorrt.model.build.BuildFingerprint;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.build.TracedBuilder;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.engine.ProfilingPolicy;
import io.github.trtrace.tensorrt.engine.TracedEngine;
import io.github.trtrace.tensorrt.internal.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import io.github.trtrace.tensorrt.log.TensorRtLogger;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.nvml.NvmlMetricsSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.IntConsumer;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.IBuilder;
import org.bytedeco.tensorrt.nvinfer.IBuilderConfig;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;
import org.bytedeco.tensorrt.nvinfer.INetworkDefinition;
import org.bytedeco.tensorrt.nvinfer.IRuntime;
import org.jspecify.annotations.Nullable;

/**
 * The demo's GPU backend: the {@link TransformerNetwork} built with a batch dimension and its key/value cache read in
 * place ({@link TransformerNetwork#defineSlotted}, FP16, builder optimisation level 1) at start-up, or loaded from
 * the engine cache when a plan of the same model, batch extents, TensorRT version and GPU is there, and served through
 * trace-tensorrt's {@link TracedEngine} by continuous batching: the service's {@link BatchEngine} (the CPU
 * backend's scheduler) steps a {@link TensorRtSteps}, one engine launch a step carrying up to {@value #MAX_BATCH}
 * requests' rows (prefill chunks of up to {@value #STEP_TOKENS} tokens and decode rows mixed: the decode rows in one
 * enqueue at one position a row, each run of adjacent prefill chunks in another, padded to its longest and masked,
 * {@link StepPlan}), each request's key/value cache kept on the device in a slot between steps and read there by
 * the launch (only the step's new positions are copied, into the slot), each launch
 * timed once with CUDA events and its time shared among its members by their roofline weights, the engine
 * fingerprint on the launch and its members. Tokens come from the demo's {@link Tokenizer} (its bidi defect
 * included) and are chosen as the CPU backend chooses them. {@link #generate} serves one request alone on the
 * same engine (rows of one: a chunked prefill, then one launch per token, each an {@code INFER} stage with
 * CUDA-event {@code gpu_ms} and the request's {@link Roofline} attributes), as the overhead measurement does.
 *
 * <p>The model is sized so that its decode steps are dominated by device-memory reads: 8 blocks of hidden
 * 2,048 and FFN 8,192 (about 0.4 G parameters, 0.8 GB of FP16 weights read by every launch) and an FP16 KV
 * cache of 64 KB per position. Requests served alone carry the {@link Roofline} figures of their prefill,
 * their decode steps and the whole request: bytes, FLOPs, arithmetic intensity against the GPU's ridge point
 * ({@code gpu.bound}: memory or compute) and the achieved bandwidth and FLOP rate as shares of the data-sheet
 * peaks; NVML's utilisation comes from the tracer's poller ({@link #gpuMetrics()}).
 *
 * <p>System properties: {@code trtrace.demo.engines} (the engine cache folder, default
 * {@code <tmp>/trtrace-demo-engines}), {@code trtrace.demo.trt.contexts} (execution contexts, and requests
 * {@link #generate} serves at once, default 1: the batched service launches from one scheduler thread), {@code trtrace.demo.trt.model} ({@code large}, the default, or
 * {@code small}: the GPU check's 42 M model), {@code trtrace.demo.trt.opt} (the builder optimisation level, 0 or
 * 1; default 1), {@code trtrace.demo.trt.auxStreams} (a cap on the engine's auxiliary streams, {@code
 * setMaxAuxStreams}; default TensorRT's choice), {@code trtrace.demo.trt.profile} (the share of launches run on the
 * profiled context, 0..1, default 0: their per-layer times go to the launch log's line of each such launch, which
 * shows which layers a step's time grows in as its batch grows).
 *
 * <pre>{@code
 * try (Backend b = Backend.choose(System.out::println)) {   // TensorRT where a GPU and TensorRT load
 *   BatchEngine e = BatchEngine.start(b.stepModel(0), BatchEngine.Settings.continuous(), 0, tracer);
 * }
 * }</pre>
 */
final class TensorRtBackend implements Backend {
  static final String MODEL = "demo-llm-trt";
  static final long SEED = 20261201L;
  /** Rows (requests) a launch carries at most: the scheduler's continuous batching. */
  static final int MAX_BATCH = 16;
  /** New positions a row brings at most: the scheduler's step budget. */
  static final int STEP_TOKENS = 256;

  /** The demo's model for a vocabulary of {@code vocab}: large (memory-bound decode) or the check's small one. */
  static TransformerNetwork.Config config(int vocab, String size) {
    return switch (size) {
      case "small" -> new TransformerNetwork.Config(vocab, 768, 12, 3072, 4, 4096);
      case "large" -> new TransformerNetwork.Config(vocab, 2048, 16, 8192, 8, 4096);
      default -> throw new IllegalArgumentException("trtrace.demo.trt.model must be large or small: " + size);
    };
  }

  /**
   * The engine's batch extents: the scheduler's batch and step (checked to match {@link
   * BatchEngine.Settings#continuous()}), and a whole context of cached positions a row.
   */
  static TransformerNetwork.Slots extents() {
    BatchEngine.Settings s = BatchEngine.Settings.continuous();
    if (s.maxBatch() != MAX_BATCH || s.stepTokens() != STEP_TOKENS) {
      throw new IllegalStateException("the engine's extents and the scheduler's settings differ: " + s);
    }
    return new TransformerNetwork.Slots(MAX_BATCH, STEP_TOKENS);
  }

  private final Tokenizer tokenizer;
  private final int[] outputTokens;
  private final TransformerNetwork.Config config;
  private final TransformerNetwork.Slots extents;
  private final Roofline roofline;
  private final Roofline.@Nullable Peak peak;
  private final TensorRtLogger logger;
  private final IRuntime runtime;
  private final ShimErrorRecorder runtimeRecorder;
  private final ICudaEngine engine;
  private final BuildReport report;
  private final TracedEngine traced;
  private final int contexts;
  /** Step models of one row for {@link #generate}, made when first needed, up to {@code contexts}. */
  private final BlockingQueue<TensorRtSteps> alone;
  private final AtomicInteger aloneMade = new AtomicInteger();
  private final List<TensorRtSteps> made = new java.util.concurrent.CopyOnWriteArrayList<>();
  private @Nullable TensorRtSteps serving;
  private final @Nullable NvmlMetricsSource nvml;
  private final String description;

  TensorRtBackend(Tokenizer tokenizer) {
    this.tokenizer = tokenizer;
    this.outputTokens = tokenizer.outputTokens();
    this.config = config(tokenizer.vocabularySize(), System.getProperty("trtrace.demo.trt.model", "large"));
    this.extents = extents();
    this.roofline = Roofline.of(config, 2);
    this.contexts = Integer.getInteger("trtrace.demo.trt.contexts", 1);
    int opt = Integer.getInteger("trtrace.demo.trt.opt", 1);
    int aux = Integer.getInteger("trtrace.demo.trt.auxStreams", -1);
    if (contexts < 1 || opt < 0 || opt > 1 || aux < -1) {
      throw new IllegalArgumentException("trtrace.demo.trt.contexts must be >= 1, trtrace.demo.trt.opt 0 or 1 and"
          + " trtrace.demo.trt.auxStreams -1 (TensorRT's choice) or more: " + contexts + ", " + opt + ", " + aux);
    }
    String trt = versionString(nvinfer.getInferLibVersion());
    String gpu;
    String cc;
    try (cudaDeviceProp p = new cudaDeviceProp()) {
      check("cudaGetDeviceProperties", cudart.cudaGetDeviceProperties(p, 0));
      gpu = p.name().getString();
      cc = p.major() + "." + p.minor();
    }
    this.peak = Roofline.Peak.forGpu(gpu);
    TrtLogPipeline pipeline = TrtLogPipeline.builder().build();
    this.logger = TensorRtLogger.create(pipeline);
    Path dir = Path.of(System.getProperty("trtrace.demo.engines",
        Path.of(System.getProperty("java.io.tmpdir"), "trtrace-demo-engines").toString()));
    String key = cacheKey(config, extents, opt, aux, SEED, trt, gpu, cc);
    Path plan = dir.resolve(MODEL + "-" + key + ".plan");
    long t0 = System.nanoTime();
    String how;
    try {
      Files.createDirectories(dir);
      if (Files.isRegularFile(plan) && Files.isRegularFile(TracedBuilder.reportPath(plan))) {
        how = "loaded from the engine cache";
      } else {
        build(plan, opt, aux);
        how = "built";
      }
      this.report = BuildReport.read(TracedBuilder.reportPath(plan));
      this.runtime = nvinfer.createInferRuntime(logger);
      this.runtimeRecorder = ShimErrorRecorder.create();
      runtime.setErrorRecorder(runtimeRecorder.asTensorRt());
      byte[] bytes = Files.readAllBytes(plan);
      try (BytePointer data = new BytePointer(bytes)) {
        this.engine = runtime.deserializeCudaEngine(data, bytes.length);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("engine cache " + dir, e);
    }
    if (engine == null || engine.isNull()) {
      throw new IllegalStateException("the plan " + plan + " did not deserialise: " + runtimeRecorder.drain());
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    // TensorRtSteps sizes and copies the slots and the new keys and values as FP16: an engine that kept another type
    // would be read and written at the wrong size.
    for (String tensor : List.of("cache_key_0", "new_key_0", "new_value_" + (config.blocks() - 1))) {
      nvinfer.DataType type = engine.getTensorDataType(tensor);
      if (type.value != nvinfer.DataType.kHALF.value) { // JavaCPP enums: compare the values
        throw new IllegalStateException("the engine's " + tensor + " is " + type + ", not FP16: " + plan);
      }
    }
    double profile = Double.parseDouble(System.getProperty("trtrace.demo.trt.profile", "0"));
    this.traced = TracedEngine.builder(engine).contexts(contexts).logPipeline(pipeline).buildReport(report)
        .profiling(profile > 0 ? ProfilingPolicy.builder().sampleRate(profile).build() : ProfilingPolicy.never())
        .build();
    this.alone = new ArrayBlockingQueue<>(contexts);
    String selfCheck = selfCheck();
    NvmlMetricsSource n;
    try {
      n = NvmlMetricsSource.open(0);
    } catch (RuntimeException | LinkageError e) {
      n = null;
    }
    this.nvml = n;
    this.description = String.format(Locale.ROOT,
        "TensorRT %s on %s (sm %s): %s, %d-block transformer d=%d, %d heads, FFN %d, vocabulary %d, context %d,"
            + " %.0f M parameters FP16; engine %s in %.1f s (%s, builder optimisation level %d, fingerprint %.12s);"
            + " serving by continuous batching, up to %d requests a step (one launch timed by one pair of CUDA events:"
            + " decode rows in one enqueue at S = 1, prefill chunks of up to %d tokens in one more a run of adjacent"
            + " slots), key/value caches FP16 in slots on the device, read in"
            + " place (%.1f GB of slots and launch buffers); %d contexts, %d auxiliary streams; roofline peaks %s; %s",
        trt, gpu, cc, MODEL, config.blocks(), config.hidden(), config.heads(), config.ffn(), config.vocab(),
        config.maxSeq(), config.parameters() / 1e6, how, seconds, plan, opt, report.engineFingerprint(),
        extents.maxRows(), extents.maxStep(), TensorRtSteps.deviceBytes(config, extents, extents.maxRows()) / 1e9,
        contexts, engine.getNbAuxStreams(), // layers on them overlap: a profiled launch's layer times can add up to more
        peak == null ? "unknown for this GPU (no gpu.bound)"
            : String.format(Locale.ROOT, "%.1f TB/s, %.0f TFLOP/s FP16 (ridge %.0f FLOP/B)",
                peak.bytesPerSecond() / 1e12, peak.flopsPerSecond() / 1e12, peak.ridge()), selfCheck);
  }

  /** {@link SlotSelfCheck} on a plain context and buffers of three slots, freed after. */
  private String selfCheck() {
    IExecutionContext ctx = engine.createExecutionContext();
    try (CudaStream stream = CudaStream.createNonBlocking();
        TensorRtSteps steps = new TensorRtSteps(MODEL, traced, config, extents, 3, roofline,
            peak != null ? peak : java.util.Objects.requireNonNull(Roofline.Peak.forGpu("H200")), outputTokens)) {
      return SlotSelfCheck.run(steps, ctx, stream, 48).line();
    } catch (RuntimeException e) { // the serving launches will fail the same way, each on its requests' records
      return "engine self-check could not run: " + e;
    } finally {
      TensorRtObjects.destroy(ctx);
    }
  }

  /** Builds the plan; {@code aux} ≥ 0 caps TensorRT's auxiliary streams ({@code setMaxAuxStreams}), -1 leaves them. */
  private void build(Path plan, int opt, int aux) throws IOException {
    try (TracedBuilder tb = TracedBuilder.create(logger)) {
      IBuilder builder = tb.builder();
      INetworkDefinition net = builder.createNetworkV2(0);
      TransformerNetwork t = TransformerNetwork.defineSlotted(net, config, SEED, extents);
      IBuilderConfig bc = builder.createBuilderConfig();
      bc.setFlag(nvinfer.BuilderFlag.kFP16);
      bc.setBuilderOptimizationLevel(opt);
      if (aux >= 0) {
        bc.setMaxAuxStreams(aux);
      }
      t.addProfile(builder, bc);
      TracedBuilder.Result r;
      try {
        r = tb.build(MODEL, net, bc, plan);
      } catch (Exception e) {
        throw new IllegalStateException("engine build failed", e);
      } finally {
        t.releaseWeights();
        TensorRtObjects.destroy(bc);
        TensorRtObjects.destroy(net);
      }
      if (!r.succeeded()) {
        Files.deleteIfExists(plan);
        throw new IllegalStateException("engine build failed: " + r.report().errors());
      }
    }
  }

  /**
   * The cache key: model, batch extents, optimisation level, the cap on auxiliary streams (-1: TensorRT's choice, the
   * key it always had), seed, TensorRT version and GPU (a plan is bound to all).
   */
  static String cacheKey(TransformerNetwork.Config c, TransformerNetwork.Slots b, int opt, int aux, long seed,
      String trt, String gpu, String cc) {
    byte[] h = BuildFingerprint.sha256().digest((c + "|" + b + "|" + seed + "|fp16|opt" + opt + (aux >= 0 ? "|aux" + aux
        : "") + "|" + trt + "|" + gpu + "|" + cc).getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(h, 0, 8);
  }

  static String versionString(int encoded) {
    return (encoded / 10000) + "." + (encoded / 100 % 100) + "." + (encoded % 100);
  }

  private static void check(String call, int rc) {
    if (rc != 0) {
      throw new IllegalStateException(call + " failed: cudaError " + rc);
    }
  }

  @Override
  public String modelName() {
    return MODEL;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public int maxContext() {
    return config.maxSeq();
  }

  /**
   * One engine replica: its steps carry up to {@value #MAX_BATCH} requests. A second would hold a second set of
   * slots and launch buffers to run its launches beside the first's on the same GPU, which batching makes moot.
   */
  @Override
  public int maxConcurrency() {
    return 1;
  }

  /** The serving step model (replica 0 only: {@link #maxConcurrency()}), made on the first call. */
  @Override
  public synchronized StepModel stepModel(int replica) {
    if (replica != 0) {
      throw new IllegalArgumentException("the TensorRT backend runs one engine replica, not " + (replica + 1));
    }
    if (serving == null) {
      serving = steps(extents, extents.maxRows());
    }
    return serving;
  }

  private TensorRtSteps steps(TransformerNetwork.Slots b, int slots) {
    TensorRtSteps s = new TensorRtSteps(MODEL, traced, config, b, slots, roofline,
        peak != null ? peak : java.util.Objects.requireNonNull(Roofline.Peak.forGpu("H200")), outputTokens);
    made.add(s);
    return s;
  }

  @Override
  public Tokenizer tokenizer() {
    return tokenizer;
  }

  @Override
  public @Nullable GpuMetricsSource gpuMetrics() {
    return nvml;
  }

  @Override
  public int[] generate(InferenceTrace trace, int[] prompt, int maxTokens, IntConsumer onToken) {
    TensorRtSteps lane = borrow();
    try (TracedEngine.Request r = traced.request(trace)) {
      return generate(trace, TensorRtSteps.Launcher.single(r::launch), r::gpuMs, lane, prompt, maxTokens, onToken);
    } finally {
      alone.add(lane);
    }
  }

  /**
   * The same generation without the SDK: bind, {@code enqueueV3} and synchronise on a plain context of the
   * engine (the overhead measurement's baseline); {@code trace} is the noop tracer's.
   */
  int[] generateRaw(InferenceTrace trace, IExecutionContext context, CudaStream stream, int[] prompt, int maxTokens) {
    TensorRtSteps lane = borrow();
    try {
      return generate(trace, TensorRtSteps.Launcher.raw(context, stream), () -> 0, lane, prompt, maxTokens, id -> {});
    } finally {
      alone.add(lane);
    }
  }

  /** Creates a plain execution context of the engine (the caller destroys it). */
  IExecutionContext rawContext() {
    return engine.createExecutionContext();
  }

  /** A step model of one row, made when none is free and fewer than {@code contexts} exist. */
  private TensorRtSteps borrow() {
    TensorRtSteps s = alone.poll();
    if (s != null) {
      return s;
    }
    if (aloneMade.getAndIncrement() < contexts) {
      try {
        return steps(new TransformerNetwork.Slots(1, extents.maxStep()), 1);
      } catch (RuntimeException e) {
        aloneMade.decrementAndGet();
        throw e;
      }
    }
    try {
      return alone.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for a device buffer set", e);
    }
  }

  /**
   * One request alone: its prompt in chunks of up to {@value #STEP_TOKENS} tokens (each an {@code INFER}), then
   * a {@code DECODE} stage of one launch per token.
   */
  private int[] generate(InferenceTrace trace, TensorRtSteps.Launcher launcher, DoubleSupplier gpuMs,
      TensorRtSteps lane, int[] prompt, int maxTokens, IntConsumer onToken) {
    TensorRtSteps.Slot seq = lane.sequence(prompt.length + maxTokens);
    try {
      float[][] logits = null;
      Roofline.Work prefillWork = Roofline.Work.NONE;
      for (int at = 0; at < prompt.length; at += extents.maxStep()) {
        int[] chunk = Arrays.copyOfRange(prompt, at, Math.min(prompt.length, at + extents.maxStep()));
        logits = one(lane, trace, seq, chunk, at, launcher);
        prefillWork = prefillWork.plus(roofline.launch(chunk.length, at));
      }
      if (logits == null) {
        throw new IllegalArgumentException("an empty prompt");
      }
      double prefillGpu = gpuMs.getAsDouble();
      float[][] last = logits;
      Roofline.Work[] decodeWork = {Roofline.Work.NONE};
      int[] out = new int[maxTokens];
      int[] produced = {0};
      boolean[] used = new boolean[config.vocab()];
      trace.runStage(Stage.DECODE, () -> {
        float[][] l = last;
        for (int step = 0; step < maxTokens; step++) {
          int next = lane.next(l, new boolean[][] {used}, new int[] {step})[0];
          if (next == Tokenizer.EOS) {
            break;
          }
          used[next] = true;
          out[produced[0]++] = next;
          onToken.accept(next);
          trace.token();
          if (step + 1 < maxTokens) {
            int position = prompt.length + step;
            decodeWork[0] = decodeWork[0].plus(roofline.decode(position));
            l = one(lane, trace, seq, new int[] {next}, position, launcher);
          }
        }
      });
      if (peak != null) {
        double total = gpuMs.getAsDouble();
        put(trace, Roofline.attributes("gpu.", prefillWork.plus(decodeWork[0]), total, peak));
        // The phases without their raw byte and FLOP counts (the request's totals carry those).
        put(trace, Roofline.phaseAttributes("gpu.prefill.", prefillWork, prefillGpu, peak));
        put(trace, Roofline.phaseAttributes("gpu.decode.", decodeWork[0], total - prefillGpu, peak));
      }
      return Arrays.copyOf(out, produced[0]);
    } finally {
      seq.release();
    }
  }

  /** One launch of one row: {@code tokens} at {@code start} of {@code seq}. */
  private static float[][] one(TensorRtSteps lane, InferenceTrace trace, TensorRtSteps.Slot seq, int[] tokens,
      int start, TensorRtSteps.Launcher launcher) {
    List<StepModel.Chunk> chunk = List.of(new StepModel.Chunk(trace, seq, tokens, start));
    return lane.run(chunk, lane.plan(chunk), launcher, e -> {});
  }

  private static void put(InferenceTrace trace, Map<String, String> attributes) {
    attributes.forEach(trace::attribute);
  }

  @Override
  public void close() {
    traced.close();
    for (TensorRtSteps s : made) {
      s.close();
    }
    TensorRtObjects.destroy(engine);
    TensorRtObjects.destroy(runtime);
    runtimeRecorder.close();
    if (nvml != null) {
      nvml.close();
    }
  }
}
