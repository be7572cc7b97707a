package io.github.trtrace.core.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.Status;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SamplerTest {
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);

  private Sampler.Builder base() {
    return Sampler.builder().nanoClock(clock::get);
  }

  /** Feeds {@code n} successes with exponentially distributed latencies of the given mean; returns how many were kept. */
  private static int feedExponential(Sampler s, String model, int n, double meanMs, long seed) {
    Random r = new Random(seed);
    int kept = 0;
    for (int i = 0; i < n; i++) {
      double latency = -meanMs * Math.log(1.0 - r.nextDouble());
      if (s.decide(model, Status.SUCCESS, latency) != null) {
        kept++;
      }
    }
    return kept;
  }

  @Test
  void failuresAreAlwaysKeptWithTheirStatusAsReason() {
    Sampler s = base().rate(0.0).build();
    assertThat(s.decide("m", Status.ERROR, 1.0)).isEqualTo("error");
    assertThat(s.decide("m", Status.TIMEOUT, 30_000.0)).isEqualTo("timeout");
    assertThat(s.decide("m", Status.REJECTED, 0.1)).isEqualTo("rejected");
    assertThat(s.decide("m", Status.CANCELLED, 5.0)).isEqualTo("cancelled");
    assertThat(s.stats().keptByReason())
        .containsEntry("error", 1L).containsEntry("timeout", 1L)
        .containsEntry("rejected", 1L).containsEntry("cancelled", 1L);
  }

  @Test
  void successAtOrAboveTheFixedThresholdIsKeptAsSlow() {
    Sampler s = base().rate(0.0).adaptiveSlow(false).slowThreshold(Duration.ofMillis(500)).build();
    assertThat(s.decide("m", Status.SUCCESS, 500.0)).isEqualTo("slow");
    assertThat(s.decide("m", Status.SUCCESS, 12_000.0)).isEqualTo("slow");
    assertThat(s.decide("m", Status.SUCCESS, 499.9)).isNull();
  }

  @Test
  void successesAboveTheModelsP99AreKeptAsSlowP99AndThoseWellBelowAreNot() {
    Sampler s = base().rate(0.0).build();
    // exponential with mean 20 ms: exact p99 = 20 * ln(100) = 92.1 ms
    int keptDuringFeed = feedExponential(s, "llama", 10_000, 20.0, 7);

    assertThat(s.decide("llama", Status.SUCCESS, 120.0)).isEqualTo("slow_p99");
    assertThat(s.decide("llama", Status.SUCCESS, 100.0)).isEqualTo("slow_p99");
    assertThat(s.decide("llama", Status.SUCCESS, 80.0)).isNull();
    assertThat(s.decide("llama", Status.SUCCESS, 20.0)).isNull();
    // about 1 % of the feed itself was above the running p99
    assertThat(keptDuringFeed).isBetween(50, 200);
    assertThat(s.stats().keptByReason().get("slow_p99")).isEqualTo(keptDuringFeed + 2L);
  }

  @Test
  void aSteadyLatencyIsNeverSlowP99WhateverItsValue() {
    // every value here sits in the upper half of its histogram bucket: compared with the bucket's
    // midpoint, each request of a perfectly steady service would count as slower than the p99
    for (double steadyMs : new double[] {10.2, 47.9, 180.0, 2_040.0}) {
      Sampler s = base().rate(0.0).minSamples(50).build();
      for (int i = 0; i < 2_000; i++) {
        assertThat(s.decide("m", Status.SUCCESS, steadyMs)).as("%s ms, request %s", steadyMs, i).isNull();
      }
      assertThat(s.decide("m", Status.SUCCESS, steadyMs * 1.05)).as("5 %% above steady %s ms", steadyMs).isEqualTo("slow_p99");
    }
  }

  @Test
  void fixedThresholdWinsOverAdaptiveWhenBothApply() {
    Sampler s = base().rate(0.0).slowThreshold(Duration.ofMillis(100)).build();
    feedExponential(s, "m", 2_000, 1.0, 3);
    assertThat(s.decide("m", Status.SUCCESS, 50.0)).isEqualTo("slow_p99");
    assertThat(s.decide("m", Status.SUCCESS, 150.0)).isEqualTo("slow");
  }

  @Test
  void noAdaptiveVerdictBeforeMinSamples() {
    Sampler s = base().rate(0.0).minSamples(200).build();
    for (int i = 0; i < 150; i++) {
      s.decide("m", Status.SUCCESS, 10.0);
    }
    assertThat(s.decide("m", Status.SUCCESS, 10_000.0)).isNull();

    for (int i = 0; i < 200; i++) {
      s.decide("m", Status.SUCCESS, 10.0);
    }
    assertThat(s.decide("m", Status.SUCCESS, 10_000.0)).isEqualTo("slow_p99");
  }

  @Test
  void slidingWindowForgetsOldLatenciesWhenTheClockMoves() {
    Sampler s = base().rate(0.0).window(Duration.ofSeconds(60)).build();
    feedExponential(s, "m", 10_000, 20.0, 11);
    assertThat(s.decide("m", Status.SUCCESS, 150.0)).isEqualTo("slow_p99");

    clock.addAndGet(Duration.ofSeconds(61).toNanos());
    // the old minute has left the window: too few samples for a verdict
    assertThat(s.decide("m", Status.SUCCESS, 150.0)).isNull();

    // a new, slower regime: 150 ms is now ordinary, only its own tail is slow
    feedExponential(s, "m", 10_000, 200.0, 12);
    assertThat(s.decide("m", Status.SUCCESS, 150.0)).isNull();
    assertThat(s.decide("m", Status.SUCCESS, 1_500.0)).isEqualTo("slow_p99");
  }

  @Test
  void sampledOutSuccessesStillShapeThePercentile() {
    Sampler s = base().rate(0.0).build();
    int kept = feedExponential(s, "m", 5_000, 20.0, 5);
    assertThat(s.stats().sampledOut()).isEqualTo(5_000L - kept);
    assertThat(s.decide("m", Status.SUCCESS, 150.0)).isEqualTo("slow_p99");
  }

  @Test
  void rateZeroKeepsNoOrdinarySuccesses() {
    Sampler s = base().rate(0.0).adaptiveSlow(false).build();
    for (int i = 0; i < 1_000; i++) {
      assertThat(s.decide("m", Status.SUCCESS, 10.0)).isNull();
    }
    assertThat(s.stats().sampledOut()).isEqualTo(1_000);
    assertThat(s.stats().keptByReason()).isEmpty();
  }

  @Test
  void rateOneKeepsEverySuccessAsSampled() {
    Sampler s = base().adaptiveSlow(false).build();
    for (int i = 0; i < 100; i++) {
      assertThat(s.decide("m", Status.SUCCESS, 10.0)).isEqualTo("sampled");
    }
  }

  @Test
  void rateQuarterKeepsAboutAQuarterWithADeterministicRandomSource() {
    Random r = new Random(2026);
    Sampler s = base().rate(0.25).adaptiveSlow(false).randomSource(r::nextDouble).build();
    int kept = 0;
    for (int i = 0; i < 20_000; i++) {
      if ("sampled".equals(s.decide("m", Status.SUCCESS, 10.0))) {
        kept++;
      }
    }
    assertThat(kept).isBetween(4_700, 5_300);
    assertThat(s.stats().sampledOut()).isEqualTo(20_000L - kept);
  }

  @Test
  void rateUsesTheRandomSourceAsAThreshold() {
    double[] next = {0.0};
    Sampler s = base().rate(0.25).adaptiveSlow(false).randomSource(() -> next[0]).build();
    next[0] = 0.2499;
    assertThat(s.decide("m", Status.SUCCESS, 1.0)).isEqualTo("sampled");
    next[0] = 0.25;
    assertThat(s.decide("m", Status.SUCCESS, 1.0)).isNull();
  }

  @Test
  void eachModelHasItsOwnWindow() {
    Sampler s = base().rate(0.0).build();
    feedExponential(s, "fast", 5_000, 5.0, 1);
    feedExponential(s, "slow", 5_000, 500.0, 2);
    assertThat(s.decide("fast", Status.SUCCESS, 200.0)).isEqualTo("slow_p99");
    assertThat(s.decide("slow", Status.SUCCESS, 200.0)).isNull();
    assertThat(s.stats().modelsTracked()).isEqualTo(2);
  }

  @Test
  void modelCountIsBoundedAndFurtherModelsShareOneWindow() {
    Sampler s = base().rate(0.0).maxModels(4).build();
    for (int i = 0; i < 100; i++) {
      s.decide("model-" + i, Status.SUCCESS, 10.0);
    }
    s.decide("x".repeat(10_000), Status.SUCCESS, 10.0);
    Sampler.Stats stats = s.stats();
    assertThat(stats.modelsTracked()).isEqualTo(4);
    assertThat(stats.untrackedModelDecisions()).isEqualTo(97);
    assertThat(stats.decisions()).isEqualTo(101);
  }

  @Test
  void concurrentCallersAreAllCountedAndShareOneWindowPerModel() throws Exception {
    Sampler s = Sampler.builder().rate(0.5).build();
    int threads = 4;
    int perThread = 10_000;
    Thread[] workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      long seed = t;
      workers[t] = new Thread(() -> feedExponential(s, "shared", perThread, 20.0, seed));
      workers[t].start();
    }
    for (Thread w : workers) {
      w.join();
    }
    Sampler.Stats stats = s.stats();
    assertThat(stats.decisions()).isEqualTo((long) threads * perThread);
    assertThat(stats.modelsTracked()).isEqualTo(1);
    assertThat(s.decide("shared", Status.SUCCESS, 200.0)).isEqualTo("slow_p99");
  }

  @Test
  void alwaysKeepsEveryRecord() {
    Sampler s = Sampler.always();
    assertThat(s.decide("m", Status.SUCCESS, 1.0)).isEqualTo("always");
    assertThat(s.decide("m", Status.ERROR, 1.0)).isEqualTo("always");
    assertThat(s.stats().keptByReason()).containsExactly(java.util.Map.entry("always", 2L));
  }

  @Test
  void odditiesAtRunTimeAreSanitizedNotThrown() {
    Sampler s = base().rate(0.0).adaptiveSlow(true).build();
    assertThatCode(() -> {
      assertThat(s.decide("m", Status.SUCCESS, Double.NaN)).isNull();
      assertThat(s.decide("m", Status.SUCCESS, -3.0)).isNull();
      s.decide("m", Status.SUCCESS, Double.POSITIVE_INFINITY);
    }).doesNotThrowAnyException();
    Sampler throwing = base().rate(0.5).adaptiveSlow(false).randomSource(() -> {
      throw new IllegalStateException("boom");
    }).build();
    assertThat(throwing.decide("m", Status.SUCCESS, 1.0)).isEqualTo("sampled");
  }

  @Test
  void badConfigurationIsRejectedWithAClearMessage() {
    assertThatThrownBy(() -> Sampler.builder().rate(1.5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rate");
    assertThatThrownBy(() -> Sampler.builder().rate(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Sampler.builder().percentile(1.0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("percentile");
    assertThatThrownBy(() -> Sampler.builder().minSamples(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Sampler.builder().window(Duration.ofMillis(10))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Sampler.builder().slowThreshold(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Sampler.builder().maxModels(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Sampler.builder().nanoClock(null)).isInstanceOf(NullPointerException.class);
  }
}
