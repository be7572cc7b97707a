package io.github.trtrace.core.internal.batch;

import io.github.trtrace.core.SharedLaunch.ShareMethod;

/** The split of one launch's GPU time into its members' shares (see {@link ShareMethod}). */
final class Shares {
  private Shares() {}

  /**
   * Writes the first {@code n} members' shares of {@code gpuMs} into {@code out}, in proportion to
   * their weights by {@code method} (equal when every weight is 0). The member with the largest weight
   * gets the rest, so the shares add up to {@code gpuMs} up to one rounding of a double, and none is
   * negative. One pass for the weights, one for the shares; no allocation.
   */
  static void split(double gpuMs, ShareMethod method, int n, int[] prefill, int[] decode, int[] rows,
      double[] weights, double[] out) {
    double total = 0;
    int largest = 0;
    for (int i = 0; i < n; i++) {
      double w = method == ShareMethod.WEIGHTED ? weights[i] : weight(method, prefill[i], decode[i], rows[i]);
      out[i] = w;
      total += w;
      if (w > out[largest]) {
        largest = i;
      }
    }
    boolean equal = total <= 0;
    double rest = gpuMs;
    for (int i = 0; i < n; i++) {
      if (i != largest) {
        double s = equal ? gpuMs / n : gpuMs * (out[i] / total);
        out[i] = s;
        rest -= s;
      }
    }
    out[largest] = Math.max(0, rest);
  }

  static double weight(ShareMethod method, int prefill, int decode, int rows) {
    switch (method) {
      case EQUAL:
        return 1;
      case ROWS:
        return (prefill > 0 ? 1 : 0) + decode + rows;
      case WEIGHTED: // given per member, see split
      case TOKENS:
      default:
        return (double) prefill + decode + rows;
    }
  }
}
