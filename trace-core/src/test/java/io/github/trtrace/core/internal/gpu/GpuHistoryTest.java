package io.github.trtrace.core.internal.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.gpu.GpuMetricsSource;
import java.util.List;
import org.junit.jupiter.api.Test;

class GpuHistoryTest {
  private static GpuMetricsSource.Reading reading(double util, double memUtil) {
    return GpuMetricsSource.Reading.builder().utilPercent(util).memUtilPercent(memUtil).memUsedMb(1024)
        .memTotalMb(143_771).temperatureC(40).smClockMhz(1980).build();
  }

  @Test
  void nothingIsKnownBeforeTheFirstReading() {
    GpuHistory h = new GpuHistory();
    assertThat(h.usageSince(h.head())).isEqualTo(GpuUsage.UNKNOWN);
  }

  @Test
  void theWindowStartsWithTheReadingInEffectAndEndsWithTheLatest() {
    GpuHistory h = new GpuHistory();
    h.add(reading(90, 90)); // before the request: not counted
    h.add(reading(10, Double.NaN)); // in effect when the request starts
    GpuMetricsPoller.Mark start = h.head();
    h.add(reading(50, 20));
    h.add(reading(30, 40));
    GpuUsage u = h.usageSince(start);
    assertThat(u.readings()).isEqualTo(3);
    assertThat(u.utilMean()).isEqualTo(30.0);
    assertThat(u.utilMax()).isEqualTo(50.0);
    assertThat(u.memUtilMean()).as("NaN readings are left out").isEqualTo(30.0);
    assertThat(u.memUtilMax()).isEqualTo(40.0);
  }

  @Test
  void aRequestShorterThanOnePollGetsTheReadingInEffect() {
    GpuHistory h = new GpuHistory();
    h.add(reading(42, 7));
    GpuUsage u = h.usageSince(h.head());
    assertThat(u).isEqualTo(new GpuUsage(42, 42, 7, 7, 1));
  }

  @Test
  void aRequestStartedBeforeAnyReadingCountsFromTheFirst() {
    GpuHistory h = new GpuHistory();
    GpuMetricsPoller.Mark start = h.head();
    h.add(reading(20, 1));
    h.add(reading(40, 3));
    assertThat(h.usageSince(start)).isEqualTo(new GpuUsage(30, 40, 2, 3, 2));
  }

  @Test
  void aWindowLongerThanTheRingKeepsAnExactMeanAndTheMaxOfWhatIsLeft() {
    GpuHistory h = new GpuHistory();
    h.add(reading(99, 99));
    GpuMetricsPoller.Mark start = h.head();
    for (int i = 0; i < 3 * GpuHistory.CAPACITY; i++) {
      h.add(reading(1, 1));
    }
    GpuUsage u = h.usageSince(start);
    int n = 3 * GpuHistory.CAPACITY + 1;
    assertThat(u.readings()).isEqualTo(n);
    assertThat(u.utilMean()).isCloseTo((99.0 + n - 1) / n, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(u.utilMax()).as("the first reading is held by the mark").isEqualTo(99.0);
  }
}
