package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AnalysisTest {

  @Test
  void findsAKnownKneeAndItsSlopes() {
    SplittableRandom r = new SplittableRandom(3);
    int n = 400;
    double[] x = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = 8 + r.nextInt(2400);
      double noise = 1 + 0.1 * (r.nextDouble() - 0.5);
      y[i] = (5 + 0.05 * x[i] + 0.25 * Math.max(0, x[i] - 1000)) * noise;
    }
    Analysis.Knee k = Analysis.knee(x, y);
    assertThat(k.found()).isTrue();
    // Within one 256-token bin of the true knee; slopes as far as the bins' medians allow
    assertThat(k.tokens()).isBetween(1000 - Analysis.BIN_TOKENS, 1000 + Analysis.BIN_TOKENS);
    assertThat(k.slopeBelow()).isBetween(0.02, 0.08);
    assertThat(k.slopeAbove()).isBetween(0.2, 0.4);
    assertThat(k.slopeAbove() / k.slopeBelow()).isGreaterThan(3);
  }

  @Test
  void findsNoKneeOnAStraightLine() {
    SplittableRandom r = new SplittableRandom(4);
    int n = 400;
    double[] x = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = 8 + r.nextInt(2400);
      y[i] = (5 + 0.2 * x[i]) * (1 + 0.1 * (r.nextDouble() - 0.5));
    }
    assertThat(Analysis.knee(x, y).found()).isFalse();
  }

  @Test
  void pearsonOfALineIsOne() {
    assertThat(Analysis.pearson(new double[] {1, 2, 3}, new double[] {2, 4, 6})).isCloseTo(1, within(1e-9));
    assertThat(Analysis.pearson(new double[] {1, 2, 3}, new double[] {6, 4, 2})).isCloseTo(-1, within(1e-9));
  }

  private static Analysis.Rec rec(String id, double atSeconds, String status, int tokens, List<String> in,
      List<String> out) {
    return new Analysis.Rec(id, Instant.EPOCH.plusMillis((long) (atSeconds * 1000)), status, 10 + tokens * 0.1,
        tokens, 1, Map.of("infer_ms", 5.0), in, out, "sampled", null);
  }

  @Test
  void relatesGarbledOutputsToBidiInputsAndRejectionsToTheArrivalPeak() {
    List<Analysis.Rec> recs = new ArrayList<>();
    for (int i = 0; i < 100; i++) { // one arrival every 100 ms for 10 s
      recs.add(rec(String.format("api-%04d", i), i * 0.1, "success", 10 + i, List.of(), List.of()));
    }
    recs.add(rec("api-bidi-clean", 1.05, "success", 20, List.of("bidi_control"), List.of()));
    recs.add(rec("api-bidi-garbled", 2.05, "success", 20, List.of("bidi_control"),
        List.of("bidi_control", "repetition")));
    for (int i = 0; i < 40; i++) { // a burst at 5 s, half of it rejected
      recs.add(rec(String.format("api-b%03d", i), 5.0 + i * 0.002, i % 2 == 0 ? "rejected" : "success", 10,
          List.of(), List.of()));
    }
    recs.add(rec("api-late-reject", 9.0, "rejected", 10, List.of(), List.of()));

    Analysis.Report r = Analysis.analyse(recs);
    assertThat(r.garbled()).extracting(Analysis.Rec::id).containsExactly("api-bidi-garbled");
    assertThat(r.garbledWithBidi()).isEqualTo(1);
    assertThat(r.bidiInputs()).isEqualTo(2);
    assertThat(r.rejected()).hasSize(21);
    assertThat(r.peakAt().toMillis()).isEqualTo(5000);
    assertThat(r.rejectedNearPeak()).isEqualTo(20);
    assertThat(r.rejectedExample()).isEqualTo("api-b000");
  }
}
