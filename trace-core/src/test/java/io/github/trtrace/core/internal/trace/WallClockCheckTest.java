package io.github.trtrace.core.internal.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The tracer's once-a-second check of its derived wall-clock time ({@link DefaultInferenceTracer#drifted}). */
class WallClockCheckTest {
  static final long MS = 1_000_000L;

  @Test
  void aDerivedTimeInsideTheWallClocksMillisecondIsKept() {
    long millis = 1_780_000_000_000L;
    assertThat(DefaultInferenceTracer.drifted(millis * MS, millis)).isFalse();
    assertThat(DefaultInferenceTracer.drifted(millis * MS + 999_999, millis)).isFalse();
    // currentTimeMillis truncates and is read a little later than nanoTime: half a millisecond either side is slack
    assertThat(DefaultInferenceTracer.drifted(millis * MS - DefaultInferenceTracer.DRIFT_NANOS, millis)).isFalse();
    assertThat(DefaultInferenceTracer.drifted(millis * MS + MS + DefaultInferenceTracer.DRIFT_NANOS - 1, millis))
        .isFalse();
  }

  @Test
  void aDerivedTimeOffByMoreThanTheSlackIsRecalibrated() {
    long millis = 1_780_000_000_000L;
    assertThat(DefaultInferenceTracer.drifted(millis * MS - DefaultInferenceTracer.DRIFT_NANOS - 1, millis)).isTrue();
    assertThat(DefaultInferenceTracer.drifted(millis * MS + MS + DefaultInferenceTracer.DRIFT_NANOS, millis)).isTrue();
    assertThat(DefaultInferenceTracer.drifted(millis * MS + 3_600_000 * MS, millis)).as("a step of an hour").isTrue();
  }
}
