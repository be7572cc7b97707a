package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

class KneeTest {
  /** Bucket-like points every 64 tokens from 32 to 2,592, y = f(x) plus relative noise. */
  private static double[][] points(DoubleUnaryOperator f, double noise, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int n = 41;
    double[] x = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = 32 + 64 * i;
      y[i] = f.applyAsDouble(x[i]) * (1 + noise * (2 * r.nextDouble() - 1));
    }
    return new double[][] {x, y};
  }

  @Test
  void findsAKnownKneeWithItsSlopes() {
    double[][] p = points(x -> 300 + 0.2 * x + 1.5 * Math.max(0, x - 1024), 0.03, 1);
    Knee.Result k = Knee.fit(p[0], p[1]);
    assertThat(k.found()).as(k.reason()).isTrue();
    assertThat(k.knee()).isCloseTo(1024, within(80.0));
    assertThat(k.slopeBefore()).isCloseTo(0.2, within(0.08));
    assertThat(k.slopeAfter()).isCloseTo(1.7, within(0.15));
    assertThat(k.r2Two()).isGreaterThan(0.99).isGreaterThan(k.r2One());
    assertThat(k.reason()).startsWith("knee at ");
  }

  @Test
  void findsAKneeAtAnotherPlaceToo() {
    double[][] p = points(x -> 50 + 0.05 * x + 0.6 * Math.max(0, x - 1800), 0.02, 2);
    Knee.Result k = Knee.fit(p[0], p[1]);
    assertThat(k.found()).as(k.reason()).isTrue();
    assertThat(k.knee()).isCloseTo(1800, within(100.0));
  }

  @Test
  void aRiseOfThreeQuartersIsAKneeAQuarterIsNot() {
    // The demo's CPU backend rises about 2.2x past its knee; from 1.5x on, the rise counts (Knee.MIN_SLOPE_RATIO).
    double[][] mild = points(x -> 20 + 0.06 * x + 0.045 * Math.max(0, x - 1100), 0.01, 5);
    Knee.Result k = Knee.fit(mild[0], mild[1]);
    assertThat(k.found()).as(k.reason()).isTrue();
    assertThat(k.knee()).isCloseTo(1100, within(100.0));
    assertThat(k.slopeAfter() / k.slopeBefore()).isCloseTo(1.75, within(0.15));
    double[][] slight = points(x -> 20 + 0.06 * x + 0.015 * Math.max(0, x - 1100), 0.002, 6);
    assertThat(Knee.fit(slight[0], slight[1]).reason()).contains("does not rise sharply");
  }

  @Test
  void noKneeOnANoisyStraightLine() {
    for (long seed = 1; seed <= 20; seed++) {
      double[][] p = points(x -> 300 + 0.4 * x, 0.05, seed);
      Knee.Result k = Knee.fit(p[0], p[1]);
      assertThat(k.found()).as("seed %d: %s", seed, k.reason()).isFalse();
      assertThat(k.reason()).startsWith("no knee");
      assertThat(k.lineSlope()).isCloseTo(0.4, within(0.05));
    }
  }

  @Test
  void noKneeOnAnExactLineNorOnFlatNoise() {
    double[][] line = points(x -> 10 + 2 * x, 0, 1);
    assertThat(Knee.fit(line[0], line[1]).found()).isFalse();
    double[][] flat = points(x -> 800, 0.05, 3);
    assertThat(Knee.fit(flat[0], flat[1]).found()).isFalse();
  }

  @Test
  void noKneeWhenLatencyFlattensInsteadOfRising() {
    double[][] p = points(x -> 300 + 1.5 * Math.min(x, 1024) + 0.1 * Math.max(0, x - 1024), 0.01, 4);
    Knee.Result k = Knee.fit(p[0], p[1]);
    assertThat(k.found()).isFalse();
    assertThat(k.reason()).contains("does not rise sharply");
  }

  @Test
  void tooFewPointsIsSaidSo() {
    Knee.Result k = Knee.fit(new double[] {1, 2, 3, 4, 5}, new double[] {1, 2, 3, 4, 50});
    assertThat(k.found()).isFalse();
    assertThat(k.reason()).contains("not enough");
  }
}
