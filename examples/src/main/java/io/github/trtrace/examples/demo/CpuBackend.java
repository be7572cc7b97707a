package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Stage;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;

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
 */
final class CpuBackend implements Backend {
  static final String MODEL = "demo-llm-cpu";
  static final int DIM = 64;
  static final int ATTN = 32;
  static final int HIDDEN = 384;
  static final int LAYERS = 2;
  static final int MAX_CONTEXT = 4096;
  /** Positions of a request's key/value cache kept in float32; the rest are int8. */
  static final int RESIDENT = 1024;

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
    int n = prompt.length;
    int capacity = n + maxTokens;
    KvCache[] caches = new KvCache[LAYERS];
    for (int l = 0; l < LAYERS; l++) {
      caches[l] = new KvCache(capacity);
    }
    float[][] last = {trace.callStage(Stage.INFER, () -> forward(prompt, 0, caches))};
    int[] out = new int[maxTokens];
    int[] produced = {0};
    boolean[] used = new boolean[vocab];
    // Each step's forward pass is an INFER inside DECODE: infer_ms gets the model time, decode_ms the rest.
    trace.runStage(Stage.DECODE, () -> {
      for (int step = 0; step < maxTokens; step++) {
        int next = sample(last[0], used, step);
        if (next == Tokenizer.EOS) {
          break;
        }
        used[next] = true;
        out[produced[0]++] = next;
        onToken.accept(next);
        trace.token();
        if (step + 1 < maxTokens) {
          int position = n + step;
          last[0] = trace.callStage(Stage.INFER, () -> forward(new int[] {next}, position, caches));
        }
      }
    });
    return Arrays.copyOf(out, produced[0]);
  }

  /** Runs {@code tokens} at positions {@code start..} through every layer; returns the last hidden state. */
  private float[] forward(int[] tokens, int start, KvCache[] caches) {
    int n = tokens.length;
    float[] x = new float[n * DIM];
    for (int i = 0; i < n; i++) {
      System.arraycopy(embed, tokens[i] * DIM, x, i * DIM, DIM);
      for (int d = 0; d < DIM; d += 2) { // sinusoidal positions
        double angle = (start + i) / Math.pow(10_000, (double) d / DIM);
        x[i * DIM + d] += (float) Math.sin(angle);
        x[i * DIM + d + 1] += (float) Math.cos(angle);
      }
    }
    for (int l = 0; l < LAYERS; l++) {
      layers[l].apply(x, n, start, caches[l]);
    }
    return Arrays.copyOfRange(x, (n - 1) * DIM, n * DIM);
  }

  /** Greedy over the word vocabulary (see {@link Backend#greedy}); logits from the tied output head. */
  private int sample(float[] hidden, boolean[] used, int step) {
    return Backend.greedy(outputTokens, t -> {
      float logit = 0;
      int row = t * DIM;
      for (int d = 0; d < DIM; d++) {
        logit += hidden[d] * embed[row + d];
      }
      return logit;
    }, used, step);
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

    /** x (n x DIM) at positions start.. is updated in place; its keys and values are appended to the cache. */
    void apply(float[] x, int n, int start, KvCache cache) {
      float[] h = rmsNorm(x, n);
      float[] q = matmul(h, n, DIM, wq, ATTN);
      float[] k = matmul(h, n, DIM, wk, ATTN);
      float[] v = matmul(h, n, DIM, wv, ATTN);
      cache.append(start, n, k, v);
      float[] attended = new float[n * ATTN];
      float[] scores = new float[start + n];
      float[] row = new float[ATTN];
      float scale = (float) (1 / Math.sqrt(ATTN));
      for (int i = 0; i < n; i++) {
        int visible = start + i + 1; // causal: every earlier position and itself
        int resident = Math.min(visible, RESIDENT);
        float max = Float.NEGATIVE_INFINITY;
        for (int j = 0; j < visible; j++) {
          float[] key = j < resident ? cache.hotK : cache.key(j, row);
          int off = j < resident ? j * ATTN : 0;
          float s = 0;
          for (int d = 0; d < ATTN; d++) {
            s += q[i * ATTN + d] * key[off + d];
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
            attended[i * ATTN + d] += p * value[off + d];
          }
        }
      }
      add(x, matmul(attended, n, ATTN, wo, DIM));
      float[] hidden = matmul(rmsNorm(x, n), n, DIM, w1, HIDDEN);
      for (int i = 0; i < hidden.length; i++) {
        hidden[i] = Math.max(0, hidden[i]);
      }
      add(x, matmul(hidden, n, HIDDEN, w2, DIM));
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

  /** (n x in) times (in x out), row by row so the inner loop vectorises. */
  static float[] matmul(float[] a, int n, int in, float[] w, int out) {
    float[] c = new float[n * out];
    for (int i = 0; i < n; i++) {
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
