package io.github.trtrace.cli.internal;

/**
 * Finds the knee of latency against input length: the input-token count above which latency per
 * token rises sharply.
 *
 * <p>Fits the points (bucket mean tokens, bucket median latency) twice by least squares: with one
 * line, and with two line segments joined at a breakpoint {@code k} ({@code y = a + b1 x + (b2 - b1)
 * max(0, x - k)}). The breakpoint is searched over the points and ten steps between neighbours,
 * keeping at least {@link #MIN_SIDE} points on each side, and the one with the least squared error
 * wins. A knee is reported only when the two-segment fit is meaningfully better ({@code SSE2 <=
 * }{@link #MAX_SSE_RATIO}{@code  * SSE1}) and the slope rises ({@code b2 >= }{@link #MIN_SLOPE_RATIO}
 * {@code  * b1}, {@code b2 > 0}); otherwise the result says why not.
 */
final class Knee {
  static final int MIN_SIDE = 3;
  static final double MAX_SSE_RATIO = 0.5;
  /**
   * How much steeper the second segment must be. 1.5, not 2: the demo's CPU backend, a real knee (attention
   * reads of int8-stored keys past 1,024 positions), rises about 2.2 times; fits to 84-request samples of one
   * demo log (the end-to-end test's size) gave ratios from 1.92 up, so a threshold of 2 missed the knee in 2
   * of 20 samples, 1.5 in none of 40. A straight line stays a line: its noise fails {@link #MAX_SSE_RATIO}.
   */
  static final double MIN_SLOPE_RATIO = 1.5;

  /**
   * A fit.
   *
   * @param found whether a knee was found
   * @param reason why not, or a summary when found
   * @param points points fitted
   * @param knee breakpoint in tokens (NaN when none was fitted)
   * @param intercept {@code a} of the two-segment fit
   * @param slopeBefore ms per token below the knee
   * @param slopeAfter ms per token above the knee
   * @param r2Two R² of the two-segment fit
   * @param lineIntercept intercept of the one-line fit
   * @param lineSlope slope of the one-line fit
   * @param r2One R² of the one-line fit
   */
  record Result(boolean found, String reason, int points, double knee, double intercept, double slopeBefore,
      double slopeAfter, double r2Two, double lineIntercept, double lineSlope, double r2One) {

    /** Latency of the two-segment fit at {@code x} tokens. */
    double twoSegment(double x) {
      return intercept + slopeBefore * x + (slopeAfter - slopeBefore) * Math.max(0, x - knee);
    }
  }

  private Knee() {}

  /** Fits {@code x} (ascending) and {@code y}. */
  static Result fit(double[] xIn, double[] y) {
    int n = xIn.length;
    // fit on x scaled to 0..1 so the normal equations stay well conditioned
    double scale = 0;
    for (double v : xIn) {
      scale = Math.max(scale, Math.abs(v));
    }
    if (!(scale > 0)) {
      scale = 1;
    }
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = xIn[i] / scale;
    }
    double[] line = line(x, y);
    line[1] /= scale;
    double sse1 = line[2];
    double sst = sst(y);
    double r2One = sst > 0 ? 1 - sse1 / sst : Double.NaN;
    if (n < 2 * MIN_SIDE) {
      return new Result(false, "not enough input-length buckets (" + n + ", need " + 2 * MIN_SIDE + ")", n,
          Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, line[0], line[1], r2One);
    }
    double bestSse = Double.POSITIVE_INFINITY;
    double[] best = null;
    double bestK = Double.NaN;
    for (int i = MIN_SIDE - 1; i <= n - MIN_SIDE; i++) {
      int steps = i < n - MIN_SIDE ? 10 : 1;
      for (int s = 0; s < steps; s++) {
        double k = x[i] + (x[i + 1 < n ? i + 1 : i] - x[i]) * s / 10.0;
        double[] f = hinge(x, y, k);
        if (f != null && f[3] < bestSse) {
          bestSse = f[3];
          best = f;
          bestK = k;
        }
      }
    }
    if (best == null) {
      return new Result(false, "input lengths too close together to fit two segments", n,
          Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, line[0], line[1], r2One);
    }
    double a = best[0];
    double b1 = best[1] / scale;
    double b2 = (best[1] + best[2]) / scale;
    bestK *= scale;
    double r2Two = sst > 0 ? 1 - bestSse / sst : Double.NaN;
    String why;
    boolean found = false;
    if (!(sst > 0) || sse1 <= 1e-12 * sst) {
      why = "no knee: latency follows one straight line";
    } else if (bestSse > MAX_SSE_RATIO * sse1) {
      why = String.format(java.util.Locale.ROOT,
          "no knee: two segments fit hardly better than one line (R² %.3f vs %.3f)", r2Two, r2One);
    } else if (!(b2 > 0) || b2 < MIN_SLOPE_RATIO * Math.max(b1, 0)) {
      why = String.format(java.util.Locale.ROOT,
          "no knee: the slope does not rise sharply (%.4g -> %.4g ms/token)", b1, b2);
    } else {
      found = true;
      why = String.format(java.util.Locale.ROOT,
          "knee at %.0f tokens: %.4g ms/token below, %.4g ms/token above (x%.1f); R² %.3f (one line %.3f)",
          bestK, b1, b2, b1 > 0 ? b2 / b1 : Double.POSITIVE_INFINITY, r2Two, r2One);
    }
    return new Result(found, why, n, bestK, a, b1, b2, r2Two, line[0], line[1], r2One);
  }

  /** Intercept, slope, SSE of the least-squares line. */
  private static double[] line(double[] x, double[] y) {
    int n = x.length;
    if (n == 0) {
      return new double[] {Double.NaN, Double.NaN, 0};
    }
    double mx = 0;
    double my = 0;
    for (int i = 0; i < n; i++) {
      mx += x[i];
      my += y[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0;
    double sxy = 0;
    for (int i = 0; i < n; i++) {
      sxx += (x[i] - mx) * (x[i] - mx);
      sxy += (x[i] - mx) * (y[i] - my);
    }
    double b = sxx > 0 ? sxy / sxx : 0;
    double a = my - b * mx;
    double sse = 0;
    for (int i = 0; i < n; i++) {
      double e = y[i] - a - b * x[i];
      sse += e * e;
    }
    return new double[] {a, b, sse};
  }

  /** a, b1, d (= b2 - b1), SSE of the hinge fit at {@code k}; null when singular. */
  private static double[] hinge(double[] x, double[] y, double k) {
    double[][] m = new double[3][4];
    for (int i = 0; i < x.length; i++) {
      double[] row = {1, x[i], Math.max(0, x[i] - k)};
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
          m[r][c] += row[r] * row[c];
        }
        m[r][3] += row[r] * y[i];
      }
    }
    double[] beta = solve(m);
    if (beta == null) {
      return null;
    }
    double sse = 0;
    for (int i = 0; i < x.length; i++) {
      double e = y[i] - beta[0] - beta[1] * x[i] - beta[2] * Math.max(0, x[i] - k);
      sse += e * e;
    }
    return new double[] {beta[0], beta[1], beta[2], sse};
  }

  /** Gaussian elimination with partial pivoting of a 3x3 augmented matrix. */
  private static double[] solve(double[][] m) {
    int n = 3;
    for (int col = 0; col < n; col++) {
      int piv = col;
      for (int r = col + 1; r < n; r++) {
        if (Math.abs(m[r][col]) > Math.abs(m[piv][col])) {
          piv = r;
        }
      }
      double scale = Math.abs(m[0][0]) + Math.abs(m[1][1]) + Math.abs(m[2][2]);
      if (Math.abs(m[piv][col]) <= 1e-12 * scale) {
        return null;
      }
      double[] tmp = m[col];
      m[col] = m[piv];
      m[piv] = tmp;
      for (int r = 0; r < n; r++) {
        if (r != col) {
          double f = m[r][col] / m[col][col];
          for (int c = col; c <= n; c++) {
            m[r][c] -= f * m[col][c];
          }
        }
      }
    }
    return new double[] {m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]};
  }

  private static double sst(double[] y) {
    double my = 0;
    for (double v : y) {
      my += v;
    }
    my /= Math.max(1, y.length);
    double s = 0;
    for (double v : y) {
      s += (v - my) * (v - my);
    }
    return s;
  }
}
