package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import org.junit.jupiter.api.Test;

/**
 * A member's tokens in one launch are an int: counts that together pass {@link Integer#MAX_VALUE} (a
 * scheduler's bug) wrapped to a negative weight, and the member got a negative share (the largest one the
 * rest, far above the launch's time). They are capped, counted as misuse; every share stays >= 0.
 */
class TokenOverflowShareTest {

  @Test
  void tokensPastIntMaxAreCappedSoNoShareIsNegative() {
    try (BatchFixture f = new BatchFixture()) {
      InferenceTrace a = f.tracer.start("m", "req-a");
      InferenceTrace b = f.tracer.start("m", "req-b");
      InferenceTrace c = f.tracer.start("m", "req-c");
      long before = f.tracer.stats().misuse();
      try (SharedLaunch l = f.tracer.launch("e")) {
        l.prefill(a, Integer.MAX_VALUE).prefill(a, 2).prefill(c, Integer.MAX_VALUE).decode(b).gpuMs(4);
      }
      BatchFixture.Launch l = f.launches.get(0);
      assertThat(l.shares()).allSatisfy(s -> assertThat(s).isBetween(0.0, 4.0));
      assertThat(l.shareSum()).isCloseTo(4, within(1e-9));
      assertThat(f.tracer.stats().misuse() - before).isEqualTo(1);
      a.close();
      b.close();
      c.close();
      assertThat(f.byId().get("req-a").gpuMs()).isBetween(0.0, 4.0);
    }
  }
}
