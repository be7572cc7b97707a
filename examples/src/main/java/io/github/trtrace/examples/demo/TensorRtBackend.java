package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.examples.tensorrt.Generation;
import io.github.trtrace.examples.tensorrt.Roofline;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import io.github.trtrace.tensorrt.model.build.BuildFingerprint;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.build.TracedBuilder;
import io.github.trtrace.tensorrt.cuda.CudaStream;
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
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
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
 * The demo's GPU backend: the {@link TransformerNetwork} built with TensorRT (FP16) at start-up, or loaded
 * from the engine cache when a plan of the same model, TensorRT version and GPU is there, and served through
 * trace-tensorrt's {@link TracedEngine}: a prefill launch, then one launch per decoded token (each an {@code
 * INFER} stage with CUDA-event {@code gpu_ms}), with the engine fingerprint on every record. Tokens come from
 * the demo's {@link Tokenizer} (its bidi defect included) and are chosen as the CPU backend chooses them.
 *
 * <p>The model is sized so that its decode steps are dominated by device-memory reads: 8 blocks of hidden
 * 2,048 and FFN 8,192 (about 0.4 G parameters, 0.8 GB of FP16 weights read by every launch) and an FP32 KV
 * cache of 128 KB per position (256 MB read and 512 MB written and re-read per step at 2,000 positions). Each
 * record carries the {@link Roofline} figures of its prefill, its decode steps and the whole request: bytes,
 * FLOPs, arithmetic intensity against the GPU's ridge point ({@code gpu.bound}: memory or compute) and the
 * achieved bandwidth and FLOP rate as shares of the data-sheet peaks; NVML's utilisation comes from the
 * tracer's poller ({@link #gpuMetrics()}).
 *
 * <p>System properties: {@code trtrace.demo.engines} (the engine cache folder, default
 * {@code <tmp>/trtrace-demo-engines}), {@code trtrace.demo.trt.contexts} (concurrent requests, default 4),
 * {@code trtrace.demo.trt.model} ({@code large}, the default, or {@code small}: the GPU check's 42 M model).
 *
 * <pre>{@code
 * try (Backend b = Backend.choose(System.out::println)) {   // TensorRT where a GPU and TensorRT load
 *   b.generate(trace, ids, 32, id -> {});
 * }
 * }</pre>
 */
final class TensorRtBackend implements Backend {
  static final String MODEL = "demo-llm-trt";
  static final long SEED = 20261201L;

  /** The demo's model for a vocabulary of {@code vocab}: large (memory-bound decode) or the check's small one. */
  static TransformerNetwork.Config config(int vocab, String size) {
    return switch (size) {
      case "small" -> new TransformerNetwork.Config(vocab, 768, 12, 3072, 4, 4096);
      case "large" -> new TransformerNetwork.Config(vocab, 2048, 16, 8192, 8, 4096);
      default -> throw new IllegalArgumentException("trtrace.demo.trt.model must be large or small: " + size);
    };
  }

  private final Tokenizer tokenizer;
  private final int[] outputTokens;
  private final TransformerNetwork.Config config;
  private final Roofline roofline;
  private final Roofline.@Nullable Peak peak;
  private final TensorRtLogger logger;
  private final IRuntime runtime;
  private final ShimErrorRecorder runtimeRecorder;
  private final ICudaEngine engine;
  private final BuildReport report;
  private final TracedEngine traced;
  private final BlockingQueue<Generation> generations;
  private final int contexts;
  private final @Nullable NvmlMetricsSource nvml;
  private final String description;

  TensorRtBackend(Tokenizer tokenizer) {
    this.tokenizer = tokenizer;
    this.outputTokens = tokenizer.outputTokens();
    this.config = config(tokenizer.vocabularySize(), System.getProperty("trtrace.demo.trt.model", "large"));
    this.roofline = Roofline.of(config, 2);
    this.contexts = Integer.getInteger("trtrace.demo.trt.contexts", 4);
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
    String key = cacheKey(config, SEED, trt, gpu, cc);
    Path plan = dir.resolve(MODEL + "-" + key + ".plan");
    long t0 = System.nanoTime();
    String how;
    try {
      Files.createDirectories(dir);
      if (Files.isRegularFile(plan) && Files.isRegularFile(TracedBuilder.reportPath(plan))) {
        how = "loaded from the engine cache";
      } else {
        build(plan);
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
    this.traced = TracedEngine.builder(engine).contexts(contexts).logPipeline(pipeline).buildReport(report).build();
    this.generations = new ArrayBlockingQueue<>(contexts);
    for (int i = 0; i < contexts; i++) {
      generations.add(new Generation(config, config.maxSeq()));
    }
    NvmlMetricsSource n;
    try {
      n = NvmlMetricsSource.open(0);
    } catch (RuntimeException | LinkageError e) {
      n = null;
    }
    this.nvml = n;
    this.description = String.format(Locale.ROOT,
        "TensorRT %s on %s (sm %s): %s, %d-block transformer d=%d, %d heads, FFN %d, vocabulary %d, context %d,"
            + " %.0f M parameters FP16; engine %s in %.1f s (%s, fingerprint %.12s); %d contexts; roofline peaks %s",
        trt, gpu, cc, MODEL, config.blocks(), config.hidden(), config.heads(), config.ffn(), config.vocab(),
        config.maxSeq(), config.parameters() / 1e6, how, seconds, plan, report.engineFingerprint(), contexts,
        peak == null ? "unknown for this GPU (no gpu.bound)"
            : String.format(Locale.ROOT, "%.1f TB/s, %.0f TFLOP/s FP16 (ridge %.0f FLOP/B)",
                peak.bytesPerSecond() / 1e12, peak.flopsPerSecond() / 1e12, peak.ridge()));
  }

  private void build(Path plan) throws IOException {
    try (TracedBuilder tb = TracedBuilder.create(logger)) {
      IBuilder builder = tb.builder();
      INetworkDefinition net = builder.createNetworkV2(0);
      TransformerNetwork t = TransformerNetwork.define(net, config, SEED, TransformerNetwork.Fusion.ALLOWED, n -> false);
      IBuilderConfig bc = builder.createBuilderConfig();
      bc.setFlag(nvinfer.BuilderFlag.kFP16);
      bc.setBuilderOptimizationLevel(1);
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

  /** The cache key: model, seed, TensorRT version and GPU (a plan is bound to all of them). */
  static String cacheKey(TransformerNetwork.Config c, long seed, String trt, String gpu, String cc) {
    byte[] h = BuildFingerprint.sha256().digest((c + "|" + seed + "|fp16|opt1|" + trt + "|" + gpu + "|" + cc)
        .getBytes(StandardCharsets.UTF_8));
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

  @Override
  public int maxConcurrency() {
    return contexts;
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
    Generation g = borrow();
    try (TracedEngine.Request r = traced.request(trace)) {
      return generate(trace, (gen, what) -> launch(r, gen, what), r::gpuMs, g, prompt, maxTokens, onToken);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("TensorRT generation failed", e);
    } finally {
      generations.add(g);
    }
  }

  /**
   * The same generation without the SDK: bind, {@code enqueueV3} and synchronise on a plain context of the
   * engine (the overhead measurement's baseline); {@code trace} is the noop tracer's.
   */
  int[] generateRaw(InferenceTrace trace, IExecutionContext context, CudaStream stream, int[] prompt, int maxTokens) {
    Generation g = borrow();
    try {
      return generate(trace, (gen, what) -> {
        gen.bind(context, stream);
        if (!context.enqueueV3(stream.handle())) {
          throw new IllegalStateException("raw " + what + " launch refused");
        }
        stream.synchronize();
      }, () -> 0, g, prompt, maxTokens, id -> {});
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("raw generation failed", e);
    } finally {
      generations.add(g);
    }
  }

  /** Creates a plain execution context of the engine (the caller destroys it). */
  IExecutionContext rawContext() {
    return engine.createExecutionContext();
  }

  private Generation borrow() {
    try {
      return generations.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for a device buffer set", e);
    }
  }

  /** One launch of the staged step. */
  @FunctionalInterface
  private interface Launcher {
    void launch(Generation g, String what) throws Exception;
  }

  private int[] generate(InferenceTrace trace, Launcher launcher, DoubleSupplier gpuMs, Generation g, int[] prompt,
      int maxTokens, IntConsumer onToken) throws Exception {
    g.prefill(prompt);
    launcher.launch(g, "prefill");   // through TracedEngine the launch is the INFER stage
    float[][] logits = {g.lastLogits()};
    g.advance();
    double prefillGpu = gpuMs.getAsDouble();
    Roofline.Work prefillWork = roofline.prefill(prompt.length);
    Roofline.Work[] decodeWork = {Roofline.Work.NONE};
    int[] out = new int[maxTokens];
    int[] produced = {0};
    boolean[] used = new boolean[config.vocab()];
    trace.runStage(Stage.DECODE, () -> {
      for (int step = 0; step < maxTokens; step++) {
        float[] l = logits[0];
        int next = Backend.greedy(outputTokens, t -> l[t], used, step);
        if (next == Tokenizer.EOS) {
          break;
        }
        used[next] = true;
        out[produced[0]++] = next;
        onToken.accept(next);
        trace.token();
        if (step + 1 < maxTokens) {
          decodeWork[0] = decodeWork[0].plus(roofline.decode(g.past()));
          g.decode(next);
          launcher.launch(g, "decode step");
          logits[0] = g.lastLogits();
          g.advance();
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
  }

  private static void put(InferenceTrace trace, Map<String, String> attributes) {
    attributes.forEach(trace::attribute);
  }

  private static void launch(TracedEngine.Request r, Generation g, String what) throws Exception {
    if (!r.launch(g::bind)) {
      throw new IllegalStateException("TensorRT refused the " + what + " launch (see the record's events)");
    }
  }

  @Override
  public void close() {
    traced.close();
    for (Generation g : generations) {
      g.close();
    }
    TensorRtObjects.destroy(engine);
    TensorRtObjects.destroy(runtime);
    runtimeRecorder.close();
    if (nvml != null) {
      nvml.close();
    }
  }
}
