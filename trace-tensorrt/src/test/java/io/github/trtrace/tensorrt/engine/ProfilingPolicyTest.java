package io.github.trtrace.tensorrt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PrimitiveIterator;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.DoubleStream;
import org.junit.jupiter.api.Test;

class ProfilingPolicyTest {

  @Test
  void samplingFollowsTheInjectedRandomSource() {
    PrimitiveIterator.OfDouble draws = DoubleStream.of(0.05, 0.5, 0.09, 0.1, 0.99).iterator();
    ProfilingPolicy p = ProfilingPolicy.builder().sampleRate(0.1).random(draws::nextDouble).build();
    List<Boolean> decisions = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      decisions.add(p.shouldProfile());
    }
    assertThat(decisions).containsExactly(true, false, true, false, false);
  }

  @Test
  void aSlowRequestTurnsOnProfilingForTheNextN() {
    ProfilingPolicy p = ProfilingPolicy.builder().slowThreshold(Duration.ofMillis(200)).profileAfterSlow(2).build();
    p.onCompleted(150.0);
    assertThat(p.shouldProfile()).isFalse();
    p.onCompleted(250.0);
    assertThat(p.shouldProfile()).isTrue();
    assertThat(p.shouldProfile()).isTrue();
    assertThat(p.shouldProfile()).isFalse();
  }

  @Test
  void aSlowRequestThatWasItselfProfiledDoesNotReArm() {
    ProfilingPolicy p = ProfilingPolicy.builder().slowThreshold(Duration.ofMillis(200)).build();
    p.onCompleted(500.0, false);
    assertThat(p.shouldProfile()).isTrue();
    p.onCompleted(900.0, true);   // slowed by its own profiling
    assertThat(p.shouldProfile()).isFalse();
  }

  @Test
  void neverAndFullRateAreTheExtremes() {
    assertThat(ProfilingPolicy.never().shouldProfile()).isFalse();
    assertThat(ProfilingPolicy.builder().sampleRate(1.0).build().shouldProfile()).isTrue();
  }

  @Test
  void concurrentRequestsConsumeExactlyTheNextNAfterASlowOne() throws Exception {
    ProfilingPolicy p = ProfilingPolicy.builder().slowThreshold(Duration.ofMillis(10)).profileAfterSlow(100).build();
    p.onCompleted(11.0);
    ExecutorService ex = Executors.newFixedThreadPool(4);
    try {
      List<Callable<Integer>> tasks = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        tasks.add(() -> {
          int yes = 0;
          for (int i = 0; i < 250; i++) {
            if (p.shouldProfile()) {
              yes++;
            }
          }
          return yes;
        });
      }
      int total = 0;
      for (Future<Integer> f : ex.invokeAll(tasks, 60, TimeUnit.SECONDS)) {
        total += f.get();
      }
      assertThat(total).isEqualTo(100);
    } finally {
      ex.shutdownNow();
    }
  }

  @Test
  void badSettingsAreRejected() {
    assertThatThrownBy(() -> ProfilingPolicy.builder().sampleRate(1.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sampleRate");
    assertThatThrownBy(() -> ProfilingPolicy.builder().slowThreshold(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slowThreshold");
    assertThatThrownBy(() -> ProfilingPolicy.builder().slowThreshold(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ProfilingPolicy.builder().profileAfterSlow(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("profileAfterSlow");
  }

  @Test
  void aSubMillisecondThresholdKeepsItsFraction() {
    ProfilingPolicy p = ProfilingPolicy.builder().slowThreshold(Duration.ofNanos(1_500_000)).build();
    p.onCompleted(1.4);
    assertThat(p.shouldProfile()).isFalse();
    p.onCompleted(1.6);
    assertThat(p.shouldProfile()).isTrue();
  }

  @Test
  void withoutASlowThresholdNoRequestIsSlow() {
    ProfilingPolicy p = ProfilingPolicy.builder().profileAfterSlow(5).build();
    p.onCompleted(1e9);
    assertThat(p.shouldProfile()).isFalse();
  }
}
