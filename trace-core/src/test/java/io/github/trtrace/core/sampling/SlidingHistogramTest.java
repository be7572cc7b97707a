package io.github.trtrace.core.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Scale;
import org.junit.jupiter.api.Test;

class SlidingHistogramTest {
  private static final long SUB = 10_000_000_000L; // 10 s

  @Property(tries = 300)
  void percentileEstimateIsWithinTwoPercentOfTheExactValue(
      @ForAll("latenciesMicros") List<Double> micros,
      @ForAll @DoubleRange(min = 0.001, max = 0.999) @Scale(4) double p) {
    SlidingHistogram h = new SlidingHistogram(6, SUB);
    for (double v : micros) {
      h.record(v, 0L);
    }
    double[] sorted = micros.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    long rank = Math.max(1, (long) Math.ceil(p * sorted.length));
    double exact = sorted[(int) rank - 1];

    double estimate = h.quantileMicros(p, 0L, 1);

    assertThat(Math.abs(estimate - exact) / exact).isLessThanOrEqualTo(0.02);
  }

  /** 1..3000 latencies, log-uniform over 1 µs .. 1 h, often clustered (as real latencies are). */
  @Provide
  Arbitrary<List<Double>> latenciesMicros() {
    Arbitrary<Double> logUniform = Arbitraries.doubles().between(0.0, 22.0).ofScale(6).map(Math::exp);
    Arbitrary<Double> clustered = Arbitraries.doubles().between(1_000.0, 1_200.0).ofScale(3);
    return Arbitraries.oneOf(logUniform, clustered).list().ofMinSize(1).ofMaxSize(3000);
  }

  @Property(tries = 2000)
  void everyValueInRangeFallsInsideItsBucket(
      @ForAll @DoubleRange(min = 1.0, max = 4.2e9) @Scale(6) double micros) {
    int i = LogLinearBuckets.index(micros);
    assertThat(i).isBetween(0, LogLinearBuckets.COUNT - 1);
    assertThat(LogLinearBuckets.lowerBound(i)).isLessThanOrEqualTo(micros);
    if (i + 1 < LogLinearBuckets.COUNT) {
      assertThat(micros).isLessThan(LogLinearBuckets.lowerBound(i + 1));
    }
  }

  @Test
  void valuesOutsideTheRangeAreClampedToTheEdgeBuckets() {
    assertThat(LogLinearBuckets.index(0.0)).isZero();
    assertThat(LogLinearBuckets.index(-5.0)).isZero();
    assertThat(LogLinearBuckets.index(Double.NaN)).isZero();
    assertThat(LogLinearBuckets.index(1e12)).isEqualTo(LogLinearBuckets.COUNT - 1);
    assertThat(LogLinearBuckets.index(Double.POSITIVE_INFINITY)).isEqualTo(LogLinearBuckets.COUNT - 1);
    // one hour is inside the range
    double hour = 3_600_000_000.0;
    assertThat(LogLinearBuckets.representative(LogLinearBuckets.index(hour))).isCloseTo(hour, within(hour * 0.016));
  }

  @Test
  void noEstimateBeforeMinSamples() {
    SlidingHistogram h = new SlidingHistogram(6, SUB);
    for (int i = 0; i < 199; i++) {
      h.record(1000, 0L);
    }
    assertThat(h.quantileMicros(0.99, 0L, 200)).isNaN();
    h.record(1000, 0L);
    assertThat(h.quantileMicros(0.99, 0L, 200)).isCloseTo(1000, within(16.0));
  }

  @Test
  void subWindowsExpireOneByOneAsTimeMoves() {
    SlidingHistogram h = new SlidingHistogram(6, SUB);
    for (int s = 0; s < 6; s++) {
      for (int i = 0; i < 10; i++) {
        h.record(100, s * SUB);
      }
    }
    assertThat(h.count(5 * SUB)).isEqualTo(60);
    assertThat(h.count(6 * SUB)).isEqualTo(50); // the first sub-window left the window
    assertThat(h.count(11 * SUB)).isZero();

    h.record(100, 11 * SUB); // reuses (and clears) a slot that held old data
    assertThat(h.count(11 * SUB)).isEqualTo(1);
  }

  @Test
  void worksWithNegativeNanoTime() {
    SlidingHistogram h = new SlidingHistogram(6, SUB);
    long t = -123_456_789_000L;
    h.record(500, t);
    h.record(500, t + SUB);
    assertThat(h.count(t + SUB)).isEqualTo(2);
    assertThat(h.count(t + 7 * SUB)).isZero();
  }
}
