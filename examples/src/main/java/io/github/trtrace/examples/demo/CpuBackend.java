// Over 400 lines: the model (layers, key/value cache with its int8 tail, batched matmul) and its two callers, generate and the batched step.
package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Stage;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A small decoder-only transformer computed on the CPU with fixed pseudo-random weights (seeded, so every
 * run computes the same thing): {@value #LAYERS} layers of causal self-attention ({@value #ATTN} dims) and a
 * ReLU MLP ({@value #DIM} to {@value #HIDDEN}), with a key/value cache for decoding and greedy sampling with
 * a repetition penalty over the word vocabulary.
 *
 * <p>Its cost is that of a real model, so the latency knee is real. Per prompt token the projections and the
 * MLP cost a constant {@code ~57k} multiply-adds a layer; causal attention costs {@code 2 * ATTN} per pair of
 * tokens. And, as serving stacks do to bound memory, the key/value cache keeps only the first
 * {@value #RESIDENT} positions of a request in float32: later positions are stored quantized to int8 (a
 * scale per row) and every attention read of one dequantizes it, so a pair whose key lies past
 * {@value #RESIDENT} costs more. The quadratic part overtakes the constant one near 900 tokens and grows
 * faster past {@value #RESIDENT}: below, latency grows about linearly; past it, each extra token costs more
 * and more (the knee). Each decode step attends over the whole context,
 * so it too costs more the longer the prompt.
 *
 * <p>It computes batches: {@link #forward} runs the chunks of several requests (prefill chunks and decode
 * rows) as one pass, as an engine step of a continuous-batching server does ({@link BatchEngine}, through
 * {@link #step}); {@link #generate} is the batch of one.
 */
final class CpuBackend implements Backend, StepModel {
  static final String MODEL = "demo-llm-cpu";
  static final int DIM = 64;
  static final int ATTN = 32;
  static final int HIDDEN = 384;
  static final int LAYERS = 2;
  static final int MAX_CONTEXT = 4096;
  /** Positions of a request's key/value cache kept in float32; the rest are int8. */
  static final int RESIDENT = 1024;
  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private final Tokenizer tokenizer;
  private final int vocab;
  private final float[] embed; // vocab x DIM, also the output head (tied)
  private final Layer[] layers = new Layer[LAYERS];
  private final int[] outputTokens;

  CpuBackend(Tokenizer tokenizer) {
    this.tokenizer = tokenizer;
    this.vocab = tokenizer.vocabularySize();
    this.outputTokens = tokenizer.outputTokens();
    SplittableRandom r = new SplittableRandom(20261201L);
    embed = random(r, vocab * DIM, 1.0f);
    for (int l = 0; l < LAYERS; l++) {
      layers[l] = new Layer(r);
    }
  }

  @Override
  public String modelName() {
    return MODEL;
  }

  @Override
  public String description() {
    return MODEL + ": " + LAYERS + "-layer transformer, d=" + DIM + ", attention " + ATTN + ", MLP " + HIDDEN
        + ", vocabulary " + vocab + ", context " + MAX_CONTEXT + " tokens, computed on "
        + Runtime.getRuntime().availableProcessors() + " CPU cores";
  }

  @Override
  public int maxContext() {
    return MAX_CONTEXT;
  }

  @Override
  public Tokenizer tokenizer() {
    return tokenizer;
  }

  @Override
  public int[] generate(InferenceTrace trace, int[] prompt, int maxTokens, IntConsumer onToken) {
    Sequence seq = sequence(prompt.length + maxTokens);
    float[][] last = {trace.callStage(Stage.INFER, () -> forward(List.of(new Chunk(seq, prompt, 0)), null)[0])};
    int[] out = new int[maxTokens];
    int[] produced = {0};
    boolean[] used = new boolean[vocab];
    // Each step's forward pass is an INFER inside DECODE: infer_ms gets the model time, decode_ms the rest.
    trace.runStage(Stage.DECODE, () -> {
      for (int step = 0; step < maxTokens; step++) {
        int next = next(new float[][] {last[0]}, new boolean[][] {used}, new int[] {step})[0];
        if (next == Tokenizer.EOS) {
          break;
        }
        used[next] = true;
        out[produced[0]++] = next;
        onToken.accept(next);
        trace.token();
        if (step + 1 < maxTokens) {
          int position = prompt.length + step;
          last[0] = trace.callStage(Stage.INFER,
              () -> forward(List.of(new Chunk(seq, new int[] {next}, position)), null)[0]);
        }
      }
    });
    return Arrays.copyOf(out, produced[0]);
  }

  /** The model itself: its key/value caches are per request, so every replica may step it. */
  @Override
  public StepModel stepModel(int replica) {
    return this;
  }

  @Override
  public int vocabularySize() {
    return vocab;
  }

  /** A request's key/value cache, one per layer, for up to {@code capacity} positions. */
  @Override
  public Sequence sequence(int capacity) {
    return new Sequence(capacity);
  }

  /**
   * One step of the {@link BatchEngine}: {@link #forward} over the chunks, its thread CPU time as the launch's
   * device time ({@code gpu_ms}: on the CPU backend the CPU is the device, and its thread CPU time is, like CUDA
   * event time on a GPU, the device's work for the launch alone, which another process on the machine does not
   * inflate as it inflates wall time), split among the members {@linkplain SharedLaunch.ShareMethod#WEIGHTED by
   * weight}: each member weighs what {@link #forward} measured for it (its own attention, and the shared matrix
   * work by rows), so a long context's decode row costs more than a short one's, which a split by tokens would
   * not show.
   */
  @Override
  public float[][] step(SharedLaunch launch, List<StepModel.Chunk> chunks) {
    List<Chunk> own = new ArrayList<>(chunks.size());
    for (StepModel.Chunk c : chunks) {
      own.add(new Chunk((Sequence) c.seq(), c.tokens(), c.start()));
    }
    long[] share = new long[chunks.size()];
    float[][] last = forward(own, share);
    long cpu = 0;
    for (int m = 0; m < chunks.size(); m++) {
      launch.weight(chunks.get(m).trace(), share[m]);
      cpu += share[m];
    }
    launch.shareBy(SharedLaunch.ShareMethod.WEIGHTED).gpuMs(cpu / 1e6);
    return last;
  }

  /** One request's key/value caches. */
  static final class Sequence implements StepModel.Sequence {
    final KvCache[] caches = new KvCache[LAYERS];

    Sequence(int capacity) {
      for (int l = 0; l < LAYERS; l++) {
        caches[l] = new KvCache(capacity);
      }
    }
  }

  /** One member's part of a batched step: {@code tokens} at positions {@code start..} of {@code seq}. */
  record Chunk(Sequence seq, int[] tokens, int start) {}

  /**
   * One batched forward pass: every chunk's tokens go through the projections and the MLP as rows of one
   * matrix (each weight row read once for up to four rows, see {@link #matmul}); attention runs per chunk
   * over its own cache. Returns each chunk's last hidden state. When {@code cpuNanos} is given (one slot per
   * chunk), it receives each chunk's share of this thread's CPU time: attention measured per chunk, the
   * shared matrix work split by rows (it costs the same per row); the shares add up to the CPU time of the
   * whole call.
   */
  float[][] forward(List<Chunk> chunks, long @Nullable [] cpuNanos) {
    long cpu0 = cpuNanos == null ? 0 : CPU.getCurrentThreadCpuTime();
    int members = chunks.size();
    int[] rowStart = new int[members + 1];
    for (int m = 0; m < members; m++) {
      rowStart[m + 1] = rowStart[m] + chunks.get(m).tokens().length;
    }
    int n = rowStart[members];
    float[] x = new float[n * DIM];
    for (int m = 0; m < members; m++) {
      Chunk c = chunks.get(m);
      for (int i = 0; i < c.tokens().length; i++) {
        int r = rowStart[m] + i;
        System.arraycopy(embed, c.tokens()[i] * DIM, x, r * DIM, DIM);
        for (int d = 0; d < DIM; d += 2) { // sinusoidal positions
          double angle = (c.start() + i) / Math.pow(10_000, (double) d / DIM);
          x[r * DIM + d] += (float) Math.sin(angle);
          x[r * DIM + d + 1] += (float) Math.cos(angle);
        }
      }
    }
    long[] attention = cpuNanos == null ? null : new long[members];
    for (int l = 0; l < LAYERS; l++) {
      layers[l].apply(x, chunks, rowStart, l, attention);
    }
    float[][] last = new float[members][];
    for (int m = 0; m < members; m++) {
      last[m] = Arrays.copyOfRange(x, (rowStart[m + 1] - 1) * DIM, rowStart[m + 1] * DIM);
    }
    if (cpuNanos != null && attention != null) {
      long total = CPU.getCurrentThreadCpuTime() - cpu0;
      long shared = total;
      for (long a : attention) {
        shared -= a;
      }
      shared = Math.max(0, shared);
      long given = 0;
      for (int m = 0; m < members; m++) {
        cpuNanos[m] = attention[m] + shared * (rowStart[m + 1] - rowStart[m]) / n;
        given += cpuNanos[m];
      }
      cpuNanos[members - 1] += total - given; // rounding: the shares add up to the total
    }
    return last;
  }

  /**
   * The next token of each decode row: logits from the tied output head for every row at once (each
   * vocabulary row read once for the batch), then {@link Backend#greedy} per row.
   */
  @Override
  public int[] next(float[][] hidden, boolean[][] used, int[] steps) {
    int rows = hidden.length;
    float[][] logits = new float[rows][vocab];
    for (int t : outputTokens) {
      int off = t * DIM;
      for (int r = 0; r < rows; r++) {
        float[] h = hidden[r];
        float logit = 0;
        for (int d = 0; d < DIM; d++) {
          logit += h[d] * embed[off + d];
        }
        logits[r][t] = logit;
      }
    }
    int[] out = new int[rows];
    for (int r = 0; r < rows; r++) {
      float[] l = logits[r];
      out[r] = Backend.greedy(outputTokens, t -> l[t], used[r], steps[r]);
    }
    return out;
  }

  private static final class Layer {
    final float[] wq;
    final float[] wk;
    final float[] wv;
    final float[] wo;
    final float[] w1;
    final float[] w2;

    Layer(SplittableRandom r) {
      wq = random(r, DIM * ATTN, (float) (1 / Math.sqrt(DIM)));
      wk = random(r, DIM * ATTN, (float) (1 / Math.sqrt(DIM)));
      wv = random(r, DIM * ATTN, (float) (1 / Math.sqrt(DIM)));
      wo = random(r, ATTN * DIM, (float) (1 / Math.sqrt(ATTN)));
      w1 = random(r, DIM * HIDDEN, (float) (1 / Math.sqrt(DIM)));
      w2 = random(r, HIDDEN * DIM, (float) (1 / Math.sqrt(HIDDEN)));
    }

    /**
     * x (the rows of every chunk, chunk {@code m} from {@code rowStart[m]}) is updated in place; each chunk's
     * keys and values are appended to its cache of {@code layer}. {@code attentionNanos}, when given, adds up
     * each chunk's attention CPU time.
     */
    void apply(float[] x, List<Chunk> chunks, int[] rowStart, int layer, long @Nullable [] attentionNanos) {
      int n = rowStart[chunks.size()];
      float[] h = rmsNorm(x, n);
      float[] q = matmul(h, n, DIM, wq, ATTN);
      float[] k = matmul(h, n, DIM, wk, ATTN);
      float[] v = matmul(h, n, DIM, wv, ATTN);
      float[] attended = new float[n * ATTN];
      for (int m = 0; m < chunks.size(); m++) {
        long t0 = attentionNanos == null ? 0 : CPU.getCurrentThreadCpuTime();
        Chunk c = chunks.get(m);
        KvCache cache = c.seq().caches[layer];
        int from = rowStart[m];
        int rows = rowStart[m + 1] - from;
        cache.append(c.start(), rows, Arrays.copyOfRange(k, from * ATTN, (from + rows) * ATTN),
            Arrays.copyOfRange(v, from * ATTN, (from + rows) * ATTN));
        attend(q, attended, from, rows, c.start(), cache);
        if (attentionNanos != null) {
          attentionNanos[m] += CPU.getCurrentThreadCpuTime() - t0;
        }
      }
      add(x, matmul(attended, n, ATTN, wo, DIM));
      float[] hidden = matmul(rmsNorm(x, n), n, DIM, w1, HIDDEN);
      for (int i = 0; i < hidden.length; i++) {
        hidden[i] = Math.max(0, hidden[i]);
      }
      add(x, matmul(hidden, n, HIDDEN, w2, DIM));
    }

    /** Causal attention of rows {@code from..from+n} (positions {@code start..}) over their own cache. */
    private static void attend(float[] q, float[] attended, int from, int n, int start, KvCache cache) {
      float[] scores = new float[start + n];
      float[] row = new float[ATTN];
      float scale = (float) (1 / Math.sqrt(ATTN));
      for (int i = 0; i < n; i++) {
        int qi = (from + i) * ATTN;
        int visible = start + i + 1; // causal: every earlier position and itself
        int resident = Math.min(visible, RESIDENT);
        float max = Float.NEGATIVE_INFINITY;
        for (int j = 0; j < visible; j++) {
          float[] key = j < resident ? cache.hotK : cache.key(j, row);
          int off = j < resident ? j * ATTN : 0;
          float s = 0;
          for (int d = 0; d < ATTN; d++) {
            s += q[qi + d] * key[off + d];
          }
          scores[j] = s * scale;
          max = Math.max(max, scores[j]);
        }
        float sum = 0;
        for (int j = 0; j < visible; j++) {
          scores[j] = (float) Math.exp(scores[j] - max);
          sum += scores[j];
        }
        for (int j = 0; j < visible; j++) {
          float p = scores[j] / sum;
          float[] value = j < resident ? cache.hotV : cache.value(j, row);
          int off = j < resident ? j * ATTN : 0;
          for (int d = 0; d < ATTN; d++) {
            attended[qi + d] += p * value[off + d];
          }
        }
      }
    }
  }

  /** One layer's keys and values of one request: float32 up to {@value #RESIDENT} positions, int8 after. */
  static final class KvCache {
    final float[] hotK;
    final float[] hotV;
    private final byte[] coldK;
    private final byte[] coldV;
    private final float[] coldKScale;
    private final float[] coldVScale;

    KvCache(int capacity) {
      int hot = Math.min(capacity, RESIDENT);
      int cold = Math.max(0, capacity - RESIDENT);
      hotK = new float[hot * ATTN];
      hotV = new float[hot * ATTN];
      coldK = new byte[cold * ATTN];
      coldV = new byte[cold * ATTN];
      coldKScale = new float[cold];
      coldVScale = new float[cold];
    }

    void append(int start, int n, float[] k, float[] v) {
      for (int i = 0; i < n; i++) {
        int p = start + i;
        if (p < RESIDENT) {
          System.arraycopy(k, i * ATTN, hotK, p * ATTN, ATTN);
          System.arraycopy(v, i * ATTN, hotV, p * ATTN, ATTN);
        } else {
          coldKScale[p - RESIDENT] = quantize(k, i * ATTN, coldK, (p - RESIDENT) * ATTN);
          coldVScale[p - RESIDENT] = quantize(v, i * ATTN, coldV, (p - RESIDENT) * ATTN);
        }
      }
    }

    /** The key at cold position {@code p}, dequantized into {@code row}. */
    float[] key(int p, float[] row) {
      return dequantize(coldK, coldKScale, p - RESIDENT, row);
    }

    float[] value(int p, float[] row) {
      return dequantize(coldV, coldVScale, p - RESIDENT, row);
    }

    private static float quantize(float[] src, int from, byte[] dst, int to) {
      float max = 1e-12f;
      for (int d = 0; d < ATTN; d++) {
        max = Math.max(max, Math.abs(src[from + d]));
      }
      float scale = max / 127;
      for (int d = 0; d < ATTN; d++) {
        dst[to + d] = (byte) Math.round(src[from + d] / scale);
      }
      return scale;
    }

    private static float[] dequantize(byte[] q, float[] scales, int r, float[] row) {
      float scale = scales[r];
      int off = r * ATTN;
      for (int d = 0; d < ATTN; d++) {
        row[d] = q[off + d] * scale;
      }
      return row;
    }
  }

  /**
   * (n x in) times (in x out). Four rows at a time share each read of a weight row (what batching buys: the
   * weights are read once for the batch, not once per request); each row's sums are formed in the same
   * order as alone, so a row's result does not depend on the rows batched with it.
   */
  static float[] matmul(float[] a, int n, int in, float[] w, int out) {
    float[] c = new float[n * out];
    int i = 0;
    for (; i + 4 <= n; i += 4) {
      int c0 = i * out;
      int c1 = c0 + out;
      int c2 = c1 + out;
      int c3 = c2 + out;
      int a0 = i * in;
      for (int k = 0; k < in; k++) {
        float x0 = a[a0 + k];
        float x1 = a[a0 + in + k];
        float x2 = a[a0 + 2 * in + k];
        float x3 = a[a0 + 3 * in + k];
        int wk = k * out;
        for (int j = 0; j < out; j++) {
          float wj = w[wk + j];
          c[c0 + j] += x0 * wj;
          c[c1 + j] += x1 * wj;
          c[c2 + j] += x2 * wj;
          c[c3 + j] += x3 * wj;
        }
      }
    }
    for (; i < n; i++) {
      int ci = i * out;
      for (int k = 0; k < in; k++) {
        float aik = a[i * in + k];
        int wk = k * out;
        for (int j = 0; j < out; j++) {
          c[ci + j] += aik * w[wk + j];
        }
      }
    }
    return c;
  }

  private static float[] rmsNorm(float[] x, int n) {
    float[] y = new float[x.length];
    for (int i = 0; i < n; i++) {
      float ss = 0;
      for (int d = 0; d < DIM; d++) {
        ss += x[i * DIM + d] * x[i * DIM + d];
      }
      float inv = (float) (1 / Math.sqrt(ss / DIM + 1e-6));
      for (int d = 0; d < DIM; d++) {
        y[i * DIM + d] = x[i * DIM + d] * inv;
      }
    }
    return y;
  }

  private static void add(float[] x, float[] y) {
    for (int i = 0; i < x.length; i++) {
      x[i] += y[i];
    }
  }

  private static float[] random(SplittableRandom r, int size, float scale) {
    float[] w = new float[size];
    for (int i = 0; i < size; i++) {
      w[i] = (float) ((r.nextDouble() * 2 - 1) * 1.7320508 * scale); // uniform with standard deviation `scale`
    }
    return w;
  }

  @Override
  public void close() {}
}
