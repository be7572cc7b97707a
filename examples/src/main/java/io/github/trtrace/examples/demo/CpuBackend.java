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
 * <p>Its cost is that of a real model, so the latency knee is real: per prompt token the projections and the
 * MLP cost a constant {@code ~57k} multiply-adds a layer, while causal attention costs {@code 2 * ATTN} per
 * pair of tokens, {@code ~32 n^2} a layer over a prompt of {@code n}. Below about 900 tokens the constant part
 * dominates and latency grows linearly; above it the quadratic part takes over and every extra token costs
 * more (the marginal cost doubles near 900 tokens and triples near 1,800). Each decode step attends over
 * the whole context, so it too costs more the longer the prompt.
 */
final class CpuBackend implements Backend {
  static final String MODEL = "demo-llm-cpu";
  static final int DIM = 64;
  static final int ATTN = 32;
  static final int HIDDEN = 384;
  static final int LAYERS = 2;
  static final int MAX_CONTEXT = 4096;

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
    float[][] keys = new float[LAYERS][capacity * ATTN];
    float[][] values = new float[LAYERS][capacity * ATTN];
    float[][] last = {trace.inStage(Stage.INFER, () -> forward(prompt, 0, keys, values))};
    int[] out = new int[maxTokens];
    int[] produced = {0};
    boolean[] used = new boolean[vocab];
    // Each step's forward pass is an INFER inside DECODE: infer_ms gets the model time, decode_ms the rest.
    trace.inStage(Stage.DECODE, () -> {
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
          last[0] = trace.inStage(Stage.INFER, () -> forward(new int[] {next}, position, keys, values));
        }
      }
    });
    return Arrays.copyOf(out, produced[0]);
  }

  /** Runs {@code tokens} at positions {@code start..} through every layer; returns the last hidden state. */
  private float[] forward(int[] tokens, int start, float[][] keys, float[][] values) {
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
      layers[l].apply(x, n, start, keys[l], values[l]);
    }
    return Arrays.copyOfRange(x, (n - 1) * DIM, n * DIM);
  }

  /** Greedy over the word vocabulary; tokens already produced are penalised; no stop in the first 4 steps. */
  private int sample(float[] hidden, boolean[] used, int step) {
    int best = -1;
    float bestLogit = Float.NEGATIVE_INFINITY;
    for (int t : outputTokens) {
      if (t == Tokenizer.EOS && step < 4) {
        continue;
      }
      float logit = 0;
      int row = t * DIM;
      for (int d = 0; d < DIM; d++) {
        logit += hidden[d] * embed[row + d];
      }
      if (used[t]) {
        logit -= 1e4f;
      }
      if (logit > bestLogit) {
        bestLogit = logit;
        best = t;
      }
    }
    return best;
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
    void apply(float[] x, int n, int start, float[] keyCache, float[] valueCache) {
      float[] h = rmsNorm(x, n);
      float[] q = matmul(h, n, DIM, wq, ATTN);
      float[] k = matmul(h, n, DIM, wk, ATTN);
      float[] v = matmul(h, n, DIM, wv, ATTN);
      System.arraycopy(k, 0, keyCache, start * ATTN, n * ATTN);
      System.arraycopy(v, 0, valueCache, start * ATTN, n * ATTN);
      float[] attended = new float[n * ATTN];
      float[] scores = new float[start + n];
      float scale = (float) (1 / Math.sqrt(ATTN));
      for (int i = 0; i < n; i++) {
        int visible = start + i + 1; // causal: every earlier position and itself
        float max = Float.NEGATIVE_INFINITY;
        for (int j = 0; j < visible; j++) {
          float s = 0;
          for (int d = 0; d < ATTN; d++) {
            s += q[i * ATTN + d] * keyCache[j * ATTN + d];
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
          for (int d = 0; d < ATTN; d++) {
            attended[i * ATTN + d] += p * valueCache[j * ATTN + d];
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
