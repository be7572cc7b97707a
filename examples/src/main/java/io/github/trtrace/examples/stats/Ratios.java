package io.github.trtrace.examples.stats;

import java.util.Arrays;

/**
 * The two summaries the overhead programs read their paired ratios with: the median, and the central 95 % of a
 * bootstrap distribution. Shared by the demo's CPU overhead program and the GPU check (which compiles this package
 * with its own sources).
 *
 * <pre>{@code
 * double m = Ratios.median(pairedRatios);
 * double[] ci = Ratios.central95(bootstrapMedians);   // {low, high}
 * }</pre>
 */
public final class Ratios {
  private Ratios() {}

  /** The median of {@code values} (the mean of the two middle ones for an even count); {@code values} is not changed. */
  public static double median(double[] values) {
    double[] s = values.clone();
    Arrays.sort(s);
    int m = s.length / 2;
    return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
  }

  /** The 2.5th and 97.5th percentiles of {@code boot} (a bootstrap distribution), as {@code {low, high}}. */
  public static double[] central95(double[] boot) {
    double[] s = boot.clone();
    Arrays.sort(s);
    return new double[] {s[(int) (0.025 * s.length)], s[(int) (0.975 * s.length) - 1]};
  }
}
