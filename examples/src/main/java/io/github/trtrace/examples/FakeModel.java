package io.github.trtrace.examples;

/**
 * Stand-in for a TensorRT engine that does real CPU work so the traces have real shapes: hashing
 * tokeniser, a prefill matrix multiply of size following the input length, one smaller multiply per
 * generated token.
 */
final class FakeModel {
  static final String NAME = "demo-llm-cpu";

  private final float[] weights = new float[256 * 256];

  FakeModel() {
    for (int i = 0; i < weights.length; i++) {
      weights[i] = (float) Math.sin(i * 0.001);
    }
  }

  /** Word-piece-ish tokens: words split into chunks of at most 4 characters, hashed to ids. */
  int[] tokenize(String text) {
    int[] out = new int[Math.max(1, text.length() / 3)];
    int n = 0;
    int h = 0;
    int len = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c) || len == 4) {
        if (len > 0) {
          if (n == out.length) {
            out = java.util.Arrays.copyOf(out, out.length * 2);
          }
          out[n++] = Math.floorMod(h, 32_000);
        }
        h = 0;
        len = 0;
        if (Character.isWhitespace(c)) {
          continue;
        }
      }
      h = 31 * h + c;
      len++;
    }
    if (len > 0) {
      if (n == out.length) {
        out = java.util.Arrays.copyOf(out, out.length + 1);
      }
      out[n++] = Math.floorMod(h, 32_000);
    }
    return java.util.Arrays.copyOf(out, n);
  }

  /** Prefill: an n x n by n x n multiply, n following the input length. */
  float prefill(int[] tokens) {
    int n = Math.min(256, 32 + tokens.length * 2);
    return multiply(n, tokens.length);
  }

  /** One decode step: a smaller multiply. */
  float decodeStep(int inputLength, int step) {
    int n = Math.min(128, 24 + inputLength / 2);
    return multiply(n, step);
  }

  private float multiply(int n, int seed) {
    float[] a = new float[n * n];
    float[] c = new float[n * n];
    for (int i = 0; i < a.length; i++) {
      a[i] = ((i + seed) % 17) * 0.01f;
    }
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < n; k++) {
        float aik = a[i * n + k];
        int row = k * 256;
        for (int j = 0; j < n; j++) {
          c[i * n + j] += aik * weights[row + j];
        }
      }
    }
    return c[n * n - 1];
  }
}
