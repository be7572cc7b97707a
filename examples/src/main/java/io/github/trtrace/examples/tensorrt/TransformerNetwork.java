package io.github.trtrace.examples.tensorrt;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.global.nvinfer.DataType;
import org.bytedeco.tensorrt.global.nvinfer.ElementWiseOperation;
import org.bytedeco.tensorrt.global.nvinfer.MatrixOperation;
import org.bytedeco.tensorrt.global.nvinfer.OptProfileSelector;
import org.bytedeco.tensorrt.nvinfer.Dims64;
import org.bytedeco.tensorrt.nvinfer.IBuilder;
import org.bytedeco.tensorrt.nvinfer.IBuilderConfig;
import org.bytedeco.tensorrt.nvinfer.IConcatenationLayer;
import org.bytedeco.tensorrt.nvinfer.ILayer;
import org.bytedeco.tensorrt.nvinfer.INetworkDefinition;
import org.bytedeco.tensorrt.nvinfer.IOptimizationProfile;
import org.bytedeco.tensorrt.nvinfer.IShuffleLayer;
import org.bytedeco.tensorrt.nvinfer.ITensor;
import org.bytedeco.tensorrt.nvinfer.Permutation;
import org.bytedeco.tensorrt.nvinfer.Weights;
import org.jspecify.annotations.Nullable;

/**
 * A small decoder-only transformer defined with the {@code INetworkDefinition} API, with deterministic
 * weights (a seeded {@link SplittableRandom}) and named layers (each layer's metadata is its name, so
 * the inspector says which network layers an engine layer absorbed).
 *
 * <p>One network serves prefill and decode: the KV cache is passed in and out as tensors. Inputs:
 * {@code input_ids} and {@code position_ids} (int32 {@code [1, S]}), {@code attn_mask} (float, additive,
 * {@code [1, 1, S, P + S]}: 0 where a query may attend, -10000 where not — causal for a prefill), and
 * per block {@code past_key_<i>} / {@code past_value_<i>} (float {@code [1, H, P, Dh]}; P = 0 for a
 * prefill: empty tensors). Outputs: {@code logits} ({@code [1, S, V]}) and {@code present_key_<i>} /
 * {@code present_value_<i>} ({@code [1, H, P + S, Dh]}), which the next step passes back as its past.
 * One optimisation profile: S 1..2048, P 0..2047.
 *
 * <p>Per block: layer norm, QKV projection (one MatMul) + bias, attention (MatMul, scale, mask,
 * softmax, MatMul) over the concatenated cache, output projection + bias, residual add, layer norm,
 * MLP (MatMul + bias, GELU, MatMul + bias), residual add. Embedding: token and position gathers.
 *
 * <p>{@link Fusion#BROKEN} marks each block's QKV and MLP-up MatMul outputs (before the bias) as
 * network outputs, so TensorRT must materialise them and cannot fuse MatMul + bias (+ GELU): the
 * deliberately worse build the build gate must catch.
 *
 * <p>Shared by the demo's TensorRT backend and the GPU check ({@code examples/src/gpu-check/trt10}, which
 * compiles against the examples' classes; trace-tensorrt itself never depends on the examples).
 *
 * <pre>{@code
 * INetworkDefinition net = builder.createNetworkV2(0);
 * TransformerNetwork t = TransformerNetwork.define(net, TransformerNetwork.DEFAULT, 20261201L,
 *     TransformerNetwork.Fusion.ALLOWED, name -> false);
 * t.addProfile(builder, config);          // then build; t.releaseWeights() after
 * }</pre>
 */
public final class TransformerNetwork {

  /** Model dimensions. */
  public record Config(int vocab, int hidden, int heads, int ffn, int blocks, int maxSeq) {
    /** Dimensions of one attention head. */
    public int headDim() {
      return hidden / heads;
    }

    /** Parameters (weights and biases). */
    public long parameters() {
      long perBlock = 4L * hidden * hidden + 2L * hidden * ffn + 9L * hidden + ffn;
      return (long) vocab * hidden * 2 + (long) maxSeq * hidden + blocks * perBlock + 2L * hidden;
    }
  }

  /** Whether the network lets TensorRT fuse MatMul + bias (+ activation). */
  public enum Fusion { ALLOWED, BROKEN }

  /** The GPU check's model: 42 M parameters (hidden 768, 12 heads, FFN 3072, 4 blocks, vocabulary 8192). */
  public static final Config DEFAULT = new Config(8192, 768, 12, 3072, 4, 2048);
  /** The additive mask value where a query may not attend. */
  public static final float MASKED = -10000f;

  private final INetworkDefinition net;
  private final Config c;
  private final SplittableRandom rnd;
  private final Fusion fusion;
  /** Host weights and structs TensorRT reads until the build ends. */
  private final List<Pointer> keep = new ArrayList<>();
  private final List<String> layerNames = new ArrayList<>();

  private final Predicate<String> fp32Layers;
  /** The batch extents of a batched network, or null: the batch is fixed at 1. */
  private final @Nullable Batch batch;
  /** The extents of a network reading its cache in place ({@link #defineSlotted}), or null. */
  private final @Nullable Slots slots;
  /** The slotted network's {@code cache_mask} and {@code step_mask} inputs, while it is defined. */
  private @Nullable ITensor cacheMask;
  private @Nullable ITensor stepMask;

  /**
   * The extents of a batched network's optimisation profile: up to {@code maxRows} rows (requests) a launch,
   * up to {@code maxStep} new positions a row, up to {@code maxPast} cached positions a row.
   */
  public record Batch(int maxRows, int maxStep, int maxPast) {
    public Batch {
      if (maxRows < 1 || maxStep < 1 || maxPast < 1) {
        throw new IllegalArgumentException("batch extents must be positive: " + maxRows + ", " + maxStep + ", " + maxPast);
      }
    }
  }

  /**
   * The extents of a network that reads its key/value cache in place ({@link #defineSlotted}): up to {@code
   * maxRows} rows a launch, up to {@code maxStep} new positions a row; every row's cache holds the model's whole
   * context ({@link Config#maxSeq()}) positions.
   */
  public record Slots(int maxRows, int maxStep) {
    public Slots {
      if (maxRows < 1 || maxStep < 1) {
        throw new IllegalArgumentException("slot extents must be positive: " + maxRows + ", " + maxStep);
      }
    }
  }

  private TransformerNetwork(INetworkDefinition net, Config c, long seed, Fusion fusion, Predicate<String> fp32Layers,
      @Nullable Batch batch, @Nullable Slots slots) {
    this.net = net;
    this.c = c;
    this.rnd = new SplittableRandom(seed);
    this.fusion = fusion;
    this.fp32Layers = fp32Layers;
    this.batch = batch;
    this.slots = slots;
  }

  /**
   * Defines the network in {@code net} (from {@code builder.createNetworkV2(0)}). Layers whose name
   * {@code fp32Layers} accepts are constrained to FP32 (precision and output types; the build needs
   * {@code kOBEY_PRECISION_CONSTRAINTS} for TensorRT to keep them).
   */
  public static TransformerNetwork define(
      INetworkDefinition net, Config c, long seed, Fusion fusion, Predicate<String> fp32Layers) {
    TransformerNetwork t = new TransformerNetwork(net, c, seed, fusion, fp32Layers, null, null);
    t.define();
    return t;
  }

  /**
   * The same network with a batch dimension: every input and output gains a leading dimension of 1 to
   * {@code batch.maxRows()} rows, one per request, each with its own positions, additive mask ({@code [B, 1, S,
   * P + S]}) and cache rows ({@code past_*} {@code [B, H, P, Dh]}). Rows of different lengths are padded to the
   * launch's S and P and the padding masked. The same seed gives the same weights as {@link #define}.
   */
  public static TransformerNetwork defineBatched(INetworkDefinition net, Config c, long seed, Batch batch) {
    TransformerNetwork t = new TransformerNetwork(net, c, seed, Fusion.ALLOWED, n -> false, batch, null);
    t.define();
    return t;
  }

  /**
   * The same network reading its key/value cache in place: each row's cache is a slot of the model's whole context
   * (C = {@link Config#maxSeq()} positions), FP16, bound where it lies, and the network returns only the row's new
   * positions, which the caller appends to the slot. Nothing copies a row's cache before or after a launch, and the
   * network never rewrites it (the batched form's {@code concat(past, new)} reads and writes every cached position
   * every step, converting FP32 to FP16 and back on the way).
   *
   * <p>Inputs: {@code input_ids}, {@code position_ids} (int32 {@code [B, S]}); {@code cache_mask} (float, additive,
   * {@code [B, 1, 1, C]}: 0 at the row's cached positions, {@link #MASKED} elsewhere); {@code step_mask} (float,
   * additive, {@code [1, 1, S, S]}: causal over the new positions); per block {@code cache_key_<i>} / {@code
   * cache_value_<i>} (FP16 {@code [B, H, C, Dh]}: row r of a launch is the buffer's slot r). Outputs: {@code logits}
   * ({@code [B, S, V]}), {@code new_key_<i>} / {@code new_value_<i>} (FP16 {@code [B, H, S, Dh]}). Attention takes the
   * scores against the cache and against the new positions apart, joins them for one softmax and splits the
   * probabilities again, so in the network the cache is an operand of the two matrix products only (the engine
   * TensorRT builds still transposes and reformats it for them: trace-tensorrt/GPU-RESULTS.md, run 31). A launch's B
   * is its highest slot + 1 (a slot not in the launch is a masked row), and every row reads all C positions of its
   * slot, masked past its length: the price of reading in place without a paged-attention kernel. (Slicing the slots
   * to the launch's longest cache inside the network was tried on the H200 and made decode slower: run 32.) The same
   * seed gives the same weights as {@link #define}.
   */
  public static TransformerNetwork defineSlotted(INetworkDefinition net, Config c, long seed, Slots slots) {
    TransformerNetwork t = new TransformerNetwork(net, c, seed, Fusion.ALLOWED, n -> false, null, slots);
    t.define();
    return t;
  }

  /** The layer names given, in order. */
  public List<String> layerNames() {
    return List.copyOf(layerNames);
  }

  /** Adds the optimisation profile (S 1..maxSeq, P 0..maxSeq-1) to {@code config}. */
  public void addProfile(IBuilder builder, IBuilderConfig config) {
    IOptimizationProfile p = builder.createOptimizationProfile();
    if (batch != null || slots != null) {
      if (batch != null) {
        addBatchedProfile(p, batch);
      } else {
        addSlottedProfile(p, slots);
      }
      if (config.addOptimizationProfile(p) < 0) {
        throw new IllegalStateException("the optimisation profile was refused");
      }
      return;
    }
    int max = c.maxSeq();
    for (String in : List.of("input_ids", "position_ids")) {
      set(p, in, dims(1, 1), dims(1, 64), dims(1, max));
    }
    set(p, "attn_mask", dims(1, 1, 1, 1), dims(1, 1, 64, 320), dims(1, 1, max, 2L * max - 1));
    for (int i = 0; i < c.blocks(); i++) {
      for (String kind : List.of("past_key_", "past_value_")) {
        set(p, kind + i, dims(1, c.heads(), 0, c.headDim()), dims(1, c.heads(), 256, c.headDim()),
            dims(1, c.heads(), max - 1, c.headDim()));
      }
    }
    if (config.addOptimizationProfile(p) < 0) {
      throw new IllegalStateException("the optimisation profile was refused");
    }
  }

  /** B 1..maxRows (opt 8), S 1..maxStep (opt 1: decode), P 0..maxPast (opt maxPast / 2). */
  private void addBatchedProfile(IOptimizationProfile p, Batch b) {
    long optRows = Math.min(8, b.maxRows());
    long optPast = b.maxPast() / 2;
    for (String in : List.of("input_ids", "position_ids")) {
      set(p, in, dims(1, 1), dims(optRows, 1), dims(b.maxRows(), b.maxStep()));
    }
    set(p, "attn_mask", dims(1, 1, 1, 1), dims(optRows, 1, 1, optPast + 1),
        dims(b.maxRows(), 1, b.maxStep(), (long) b.maxPast() + b.maxStep()));
    for (int i = 0; i < c.blocks(); i++) {
      for (String kind : List.of("past_key_", "past_value_")) {
        set(p, kind + i, dims(1, c.heads(), 0, c.headDim()), dims(optRows, c.heads(), optPast, c.headDim()),
            dims(b.maxRows(), c.heads(), b.maxPast(), c.headDim()));
      }
    }
  }

  /** B 1..maxRows (opt 8), S 1..maxStep (opt 1: decode); C fixed. */
  private void addSlottedProfile(IOptimizationProfile p, Slots b) {
    long opt = Math.min(8, b.maxRows());
    for (String in : List.of("input_ids", "position_ids")) {
      set(p, in, dims(1, 1), dims(opt, 1), dims(b.maxRows(), b.maxStep()));
    }
    set(p, "cache_mask", dims(1, 1, 1, c.maxSeq()), dims(opt, 1, 1, c.maxSeq()), dims(b.maxRows(), 1, 1, c.maxSeq()));
    set(p, "step_mask", dims(1, 1, 1, 1), dims(1, 1, 1, 1), dims(1, 1, b.maxStep(), b.maxStep()));
    for (int i = 0; i < c.blocks(); i++) {
      for (String kind : List.of("cache_key_", "cache_value_")) {
        set(p, kind + i, dims(1, c.heads(), c.maxSeq(), c.headDim()), dims(opt, c.heads(), c.maxSeq(), c.headDim()),
            dims(b.maxRows(), c.heads(), c.maxSeq(), c.headDim()));
      }
    }
  }

  private static void set(IOptimizationProfile p, String input, Dims64 min, Dims64 opt, Dims64 max) {
    boolean ok = p.setDimensions(input, OptProfileSelector.kMIN, min)
        && p.setDimensions(input, OptProfileSelector.kOPT, opt)
        && p.setDimensions(input, OptProfileSelector.kMAX, max);
    if (!ok) {
      throw new IllegalStateException("profile dimensions refused for " + input);
    }
  }

  /** TensorRT dimensions of the given extents. */
  public static Dims64 dims(long... d) {
    Dims64 out = new Dims64();
    out.nbDims(d.length);
    for (int i = 0; i < d.length; i++) {
      out.d(i, d[i]);
    }
    return out;
  }

  private void define() {
    int d = c.hidden();
    long rows = batch == null && slots == null ? 1 : -1;
    ITensor ids = net.addInput("input_ids", DataType.kINT32, dims(rows, -1));
    ITensor pos = net.addInput("position_ids", DataType.kINT32, dims(rows, -1));
    @Nullable ITensor mask = null;
    if (slots == null) {
      mask = net.addInput("attn_mask", DataType.kFLOAT, dims(rows, 1, -1, -1));
    } else {
      cacheMask = net.addInput("cache_mask", DataType.kFLOAT, dims(-1, 1, 1, c.maxSeq()));
      stepMask = net.addInput("step_mask", DataType.kFLOAT, dims(1, 1, -1, -1));
    }
    ITensor tok = name(net.addGather(constant("embed.tokens", random(c.vocab() * (long) d, 0.5f), c.vocab(), d), ids, 0),
        "embed.token_gather").getOutput(0);
    ITensor posEmb = name(net.addGather(constant("embed.positions", random(c.maxSeq() * (long) d, 0.1f), c.maxSeq(), d), pos, 0),
        "embed.position_gather").getOutput(0);
    ITensor x = add("embed.sum", tok, posEmb);
    for (int i = 0; i < c.blocks(); i++) {
      x = block(i, x, mask);
    }
    ITensor h = norm("final.ln", x);
    ITensor logits = matmul("lm_head", h, weight("lm_head.w", d, c.vocab()));
    logits.setName("logits");
    net.markOutput(logits);
  }

  private ITensor block(int i, ITensor x, @Nullable ITensor mask) {
    int d = c.hidden();
    int h = c.heads();
    int dh = c.headDim();
    String b = "block" + i + ".";
    ITensor n1 = norm(b + "ln1", x);
    ITensor qkvRaw = matmul(b + "attn_qkv", n1, weight(b + "attn_qkv.w", d, 3 * d));
    breakFusion(qkvRaw, b + "attn_qkv");
    ITensor qkv = add(b + "attn_qkv_bias", qkvRaw, bias(b + "attn_qkv.b", 3 * d));
    IShuffleLayer split = name(net.addShuffle(qkv), b + "attn_split_heads");
    split.setReshapeDimensions(dims(0, 0, 3, h, dh));          // [1, S, 3, H, Dh]
    split.setSecondTranspose(permutation(2, 0, 3, 1, 4));       // [3, 1, H, S, Dh]
    ITensor heads = split.getOutput(0);
    ITensor q = pick(b + "attn_q", heads, 0);
    ITensor k = pick(b + "attn_k", heads, 1);
    ITensor v = pick(b + "attn_v", heads, 2);
    ITensor ctx = slots != null ? slottedAttention(i, q, k, v) : concatAttention(i, q, k, v, Objects.requireNonNull(mask));
    IShuffleLayer merge = name(net.addShuffle(ctx), b + "attn_merge_heads");
    merge.setFirstTranspose(permutation(0, 2, 1, 3));           // [1, S, H, Dh]
    merge.setReshapeDimensions(dims(0, 0, d));                 // [1, S, D]
    ITensor attnOut = add(b + "attn_out_bias",
        matmul(b + "attn_out", merge.getOutput(0), weight(b + "attn_out.w", d, d)), bias(b + "attn_out.b", d));
    ITensor x1 = add(b + "attn_residual", x, attnOut);
    ITensor n2 = norm(b + "ln2", x1);
    ITensor upRaw = matmul(b + "mlp_up", n2, weight(b + "mlp_up.w", d, c.ffn()));
    breakFusion(upRaw, b + "mlp_up");
    ITensor up = add(b + "mlp_up_bias", upRaw, bias(b + "mlp_up.b", c.ffn()));
    ITensor act = name(net.addActivation(up, nvinfer.ActivationType.kGELU_ERF), b + "mlp_gelu").getOutput(0);
    ITensor down = add(b + "mlp_down_bias",
        matmul(b + "mlp_down", act, weight(b + "mlp_down.w", c.ffn(), d)), bias(b + "mlp_down.b", d));
    return add(b + "mlp_residual", x1, down);
  }

  /** Attention over {@code concat(past, new)}, which is also the block's {@code present_*} output. */
  private ITensor concatAttention(int i, ITensor q, ITensor k, ITensor v, ITensor mask) {
    int h = c.heads();
    int dh = c.headDim();
    String b = "block" + i + ".";
    long rows = batch == null ? 1 : -1;
    ITensor pastK = net.addInput("past_key_" + i, DataType.kFLOAT, dims(rows, h, -1, dh));
    ITensor pastV = net.addInput("past_value_" + i, DataType.kFLOAT, dims(rows, h, -1, dh));
    ITensor presentK = concat(b + "kv_append_key", 2, pastK, k);
    ITensor presentV = concat(b + "kv_append_value", 2, pastV, v);
    presentK.setName("present_key_" + i);
    presentV.setName("present_value_" + i);
    net.markOutput(presentK);
    net.markOutput(presentV);
    ITensor scores = name(net.addMatrixMultiply(q, MatrixOperation.kNONE, presentK, MatrixOperation.kTRANSPOSE),
        b + "attn_scores").getOutput(0);                         // [1, H, S, T]
    ITensor scaled = mul(b + "attn_scale", scores, scalar(b + "attn_scale.c", (float) (1 / Math.sqrt(dh))));
    ITensor masked = add(b + "attn_mask_add", scaled, mask);
    var softmax = name(net.addSoftMax(masked), b + "attn_softmax");
    softmax.setAxes(1 << 3);
    return name(net.addMatrixMultiply(softmax.getOutput(0), MatrixOperation.kNONE, presentV, MatrixOperation.kNONE),
        b + "attn_context").getOutput(0);                        // [1, H, S, Dh]
  }

  /**
   * Attention over the row's cache slot read in place and its new positions: scores against each apart (masked by
   * {@code cache_mask} and {@code step_mask}), one softmax over both, the probabilities split again and each
   * product with its values summed. The new keys and values are the block's {@code new_*} outputs (FP16).
   */
  private ITensor slottedAttention(int i, ITensor q, ITensor k, ITensor v) {
    int h = c.heads();
    int dh = c.headDim();
    int ctxLen = c.maxSeq();
    String b = "block" + i + ".";
    ITensor cacheK = net.addInput("cache_key_" + i, DataType.kHALF, dims(-1, h, ctxLen, dh));
    ITensor cacheV = net.addInput("cache_value_" + i, DataType.kHALF, dims(-1, h, ctxLen, dh));
    output(cast(b + "new_key_cast", k, DataType.kHALF), "new_key_" + i);
    output(cast(b + "new_value_cast", v, DataType.kHALF), "new_value_" + i);
    float scale = (float) (1 / Math.sqrt(dh));
    // The cache is only ever an operand of a matrix product with FP16 on both sides; the casts are on the small
    // tensors (the queries, scores, probabilities and context), never on the cache.
    ITensor qHalf = cast(b + "attn_q_cast", q, DataType.kHALF);
    ITensor onCache = cast(b + "attn_scores_cache_cast", name(net.addMatrixMultiply(qHalf, MatrixOperation.kNONE,
        cacheK, MatrixOperation.kTRANSPOSE), b + "attn_scores_cache").getOutput(0), DataType.kFLOAT); // [B, H, S, C]
    ITensor onStep = name(net.addMatrixMultiply(q, MatrixOperation.kNONE, k, MatrixOperation.kTRANSPOSE),
        b + "attn_scores_step").getOutput(0);                    // [B, H, S, S]
    ITensor cacheScores = add(b + "attn_cache_mask_add",
        mul(b + "attn_cache_scale", onCache, scalar(b + "attn_cache_scale.c", scale)), Objects.requireNonNull(cacheMask));
    ITensor stepScores = add(b + "attn_step_mask_add",
        mul(b + "attn_step_scale", onStep, scalar(b + "attn_step_scale.c", scale)), Objects.requireNonNull(stepMask));
    var softmax = name(net.addSoftMax(concat(b + "attn_scores", 3, cacheScores, stepScores)), b + "attn_softmax");
    softmax.setAxes(1 << 3);
    ITensor p = softmax.getOutput(0);                            // [B, H, S, C + S]
    ITensor pCache = cast(b + "attn_probs_cache_cast", slice(b + "attn_probs_cache", p, 0, onCache), DataType.kHALF);
    ITensor pStep = slice(b + "attn_probs_step", p, ctxLen, onStep);
    ITensor fromCache = cast(b + "attn_context_cache_cast", name(net.addMatrixMultiply(pCache, MatrixOperation.kNONE,
        cacheV, MatrixOperation.kNONE), b + "attn_context_cache").getOutput(0), DataType.kFLOAT);
    ITensor fromStep = name(net.addMatrixMultiply(pStep, MatrixOperation.kNONE, v, MatrixOperation.kNONE),
        b + "attn_context_step").getOutput(0);
    return add(b + "attn_context", fromCache, fromStep);       // [B, H, S, Dh]
  }

  /** Marks {@code t} (FP16, from a cast) an output of that name, its I/O type FP16 as well. */
  private void output(ITensor t, String name) {
    t.setName(name);
    net.markOutput(t);
    t.setType(DataType.kHALF);
  }

  private ITensor cast(String name, ITensor t, DataType to) {
    return name(net.addCast(t, to), name).getOutput(0);
  }

  /** The part of {@code t} from {@code start} on its last axis, shaped as {@code like} (whose shape is known at run time). */
  private ITensor slice(String name, ITensor t, long start, ITensor like) {
    ITensor shape = name(net.addShape(like), name + ".shape").getOutput(0);
    var l = name(net.addSlice(t, dims(0, 0, 0, start), dims(1, 1, 1, 1), dims(1, 1, 1, 1)), name);
    l.setInput(2, shape);
    return l.getOutput(0);
  }

  private void breakFusion(ITensor matmulOut, String name) {
    if (fusion == Fusion.BROKEN) {
      matmulOut.setName(name + ".unfused");
      net.markOutput(matmulOut);
    }
  }

  // ---------------------------------------------------------------------------------------------- helpers

  private <L extends ILayer> L name(L layer, String name) {
    layer.setName(name);
    layer.setMetadata(name);
    layerNames.add(name);
    if (fp32Layers.test(name)) {
      layer.setPrecision(DataType.kFLOAT);
      for (int i = 0; i < layer.getNbOutputs(); i++) {
        layer.setOutputType(i, DataType.kFLOAT);
      }
    }
    return layer;
  }

  private ITensor norm(String name, ITensor x) {
    int d = c.hidden();
    float[] ones = new float[d];
    java.util.Arrays.fill(ones, 1f);
    float[] scale = ones.clone();
    for (int i = 0; i < d; i++) {
      scale[i] += (float) (rnd.nextDouble() - 0.5) * 0.1f;
    }
    ITensor s = constant(name + ".scale", scale, 1, 1, d);
    ITensor b = constant(name + ".bias", random(d, 0.05f), 1, 1, d);
    var l = name(net.addNormalization(x, s, b, 1 << 2), name);
    l.setEpsilon(1e-5f);
    return l.getOutput(0);
  }

  private ITensor matmul(String name, ITensor a, ITensor w) {
    return name(net.addMatrixMultiply(a, MatrixOperation.kNONE, w, MatrixOperation.kNONE), name).getOutput(0);
  }

  private ITensor add(String name, ITensor a, ITensor b) {
    return name(net.addElementWise(a, b, ElementWiseOperation.kSUM), name).getOutput(0);
  }

  private ITensor mul(String name, ITensor a, ITensor b) {
    return name(net.addElementWise(a, b, ElementWiseOperation.kPROD), name).getOutput(0);
  }

  private ITensor concat(String name, int axis, ITensor first, ITensor second) {
    PointerPointer<ITensor> inputs = new PointerPointer<>(first, second);
    keep.add(inputs);
    IConcatenationLayer l = name(net.addConcatenation(inputs, 2), name);
    l.setAxis(axis);
    return l.getOutput(0);
  }

  /** Element {@code index} of axis 0 (a gather with a scalar index drops the axis). */
  private ITensor pick(String name, ITensor t, int index) {
    IntPointer v = new IntPointer(1).put(index);
    keep.add(v);
    Weights w = new Weights().type(DataType.kINT32).values(v).count(1);
    keep.add(w);
    ITensor idx = name(net.addConstant(dims(), w), name + ".index").getOutput(0);
    return name(net.addGather(t, idx, 0), name).getOutput(0);
  }

  private ITensor weight(String name, int in, int out) {
    return constant(name, random((long) in * out, (float) (1 / Math.sqrt(in))), 1, in, out);
  }

  private ITensor bias(String name, int n) {
    return constant(name, random(n, 0.02f), 1, 1, n);
  }

  private ITensor scalar(String name, float value) {
    return constant(name, new float[] {value}, 1, 1, 1, 1);
  }

  private ITensor constant(String name, float[] values, long... shape) {
    FloatPointer p = new FloatPointer(values.length).put(values);
    keep.add(p);
    Weights w = new Weights().type(DataType.kFLOAT).values(p).count(values.length);
    keep.add(w);
    return name(net.addConstant(dims(shape), w), name).getOutput(0);
  }

  private float[] random(long n, float scale) {
    float[] out = new float[Math.toIntExact(n)];
    for (int i = 0; i < out.length; i++) {
      out[i] = (float) ((rnd.nextDouble() * 2 - 1) * scale);
    }
    return out;
  }

  private Permutation permutation(int... order) {
    Permutation p = new Permutation();
    for (int i = 0; i < order.length; i++) {
      p.order(i, order[i]);
    }
    keep.add(p);
    return p;
  }

  /** Frees the host weights; call after the build. */
  public void releaseWeights() {
    for (Pointer p : keep) {
      p.close();
    }
    keep.clear();
  }
}
