package io.github.trtrace.core.internal.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class GpuMetricsPollerTest {
  private static final Duration FAST = Duration.ofMillis(10);

  private static GpuMetricsSource.Reading reading(double util) {
    return GpuMetricsSource.Reading.builder().utilPercent(util).memUsedMb(1024).memTotalMb(143_771)
        .temperatureC(40).smClockMhz(1980).epochMillis(System.currentTimeMillis()).build();
  }

  /** Counts reads, remembers the reading threads, and closes once. */
  private static class CountingSource implements GpuMetricsSource {
    final AtomicInteger reads = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    final Set<String> threads = ConcurrentHashMap.newKeySet();
    final Set<Boolean> daemon = ConcurrentHashMap.newKeySet();

    @Override
    public GpuMetricsSource.Reading read() throws Exception {
      threads.add(Thread.currentThread().getName());
      daemon.add(Thread.currentThread().isDaemon());
      return reading(reads.incrementAndGet());
    }

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }

  @Test
  void latestReadingIsUnknownUntilTheFirstReadAndThenFollowsTheSource() throws Exception {
    CountDownLatch firstRead = new CountDownLatch(1);
    CountingSource source = new CountingSource() {
      @Override
      public GpuMetricsSource.Reading read() throws Exception {
        firstRead.await();
        return super.read();
      }
    };
    try (GpuMetricsPoller poller = GpuMetricsPoller.start(source, FAST)) {
      assertThat(poller.latest()).isSameAs(GpuMetricsSource.Reading.UNKNOWN);
      firstRead.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> poller.latest().utilPercent() >= 3);
      assertThat(poller.polls()).isGreaterThanOrEqualTo(3);
      assertThat(poller.failures()).isZero();
    }
  }

  @Test
  void failuresAreCountedAndTheLastGoodReadingIsKept() {
    AtomicInteger calls = new AtomicInteger();
    GpuMetricsSource flaky = () -> {
      int n = calls.incrementAndGet();
      if (n == 1) {
        return reading(42);
      }
      if (n % 2 == 0) {
        throw new IllegalStateException("NVML_ERROR_GPU_IS_LOST");
      }
      return null;
    };
    GpuMetricsPoller poller = GpuMetricsPoller.start(flaky, FAST);
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> poller.failures() >= 4);
      assertThat(poller.latest().utilPercent()).isEqualTo(42.0);
    } finally {
      poller.close(); // waits for the poll in flight: the counters read below are final
    }
    // read while polling went on, polls could be read before a poll counted and failures after (seen once on JDK 17:
    // "expecting 10L to be greater than 10L"); the first poll succeeded, so one poll more than failures
    assertThat(poller.polls()).isEqualTo(poller.failures() + 1);
  }

  @Test
  void aStackOverflowOrOutOfMemoryInTheSourceIsCountedAndPollingGoesOn() {
    // A scheduled task that throws is never run again, and nobody sees its error: polling would
    // stop silently with a stale reading on every record.
    AtomicInteger calls = new AtomicInteger();
    GpuMetricsSource deep = () -> {
      int n = calls.incrementAndGet();
      if (n == 1) {
        throw new StackOverflowError("recursive binding");
      }
      if (n == 2) {
        throw new OutOfMemoryError("huge sample buffer");
      }
      return reading(n);
    };
    try (GpuMetricsPoller poller = GpuMetricsPoller.start(deep, FAST)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> poller.latest().utilPercent() >= 3);
      assertThat(poller.failures()).isEqualTo(2);
    }
  }

  @Test
  void sourceIsOnlyEverCalledOnThePollerDaemonThread() {
    CountingSource source = new CountingSource();
    try (GpuMetricsPoller poller = GpuMetricsPoller.start(source, FAST)) {
      for (int i = 0; i < 1_000; i++) {
        poller.latest();
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> source.reads.get() >= 3);
    }
    assertThat(source.threads).containsExactly("trtrace-gpu-metrics");
    assertThat(source.daemon).containsExactly(true);
    assertThat(source.threads).doesNotContain(Thread.currentThread().getName());
  }

  @Test
  void closeStopsPollingAndClosesTheSourceOnce() {
    CountingSource source = new CountingSource();
    GpuMetricsPoller poller = GpuMetricsPoller.start(source, FAST);
    await().atMost(Duration.ofSeconds(10)).until(() -> source.reads.get() >= 2);

    poller.close();
    assertThat(source.closes.get()).isEqualTo(1);
    int readsAtClose = source.reads.get();
    await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> source.reads.get() == readsAtClose);

    poller.close();
    assertThat(source.closes.get()).isEqualTo(1);
    assertThat(poller.latest().utilPercent()).isEqualTo(readsAtClose); // the last reading stays readable
  }

  @Test
  void aHangingSourceNeitherBlocksLatestNorCloseAndIsClosedWhenItReturns() {
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger closes = new AtomicInteger();
    CountDownLatch hanging = new CountDownLatch(1);
    AtomicBoolean release = new AtomicBoolean();
    GpuMetricsSource wedged = new GpuMetricsSource() {
      @Override
      public GpuMetricsSource.Reading read() {
        if (calls.incrementAndGet() == 1) {
          return reading(7);
        }
        hanging.countDown();
        while (!release.get()) { // ignores interrupts, like a wedged driver call
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        return reading(8);
      }

      @Override
      public void close() {
        closes.incrementAndGet();
      }
    };
    GpuMetricsPoller poller = GpuMetricsPoller.start(wedged, FAST);
    await().atMost(Duration.ofSeconds(10)).until(() -> hanging.getCount() == 0);
    assertThat(poller.latest().utilPercent()).isEqualTo(7.0);

    poller.close(); // returns although the read is still stuck
    assertThat(closes.get()).isZero(); // never closed under a running read

    release.set(true);
    await().atMost(Duration.ofSeconds(10)).until(() -> closes.get() == 1);
  }

  @Test
  void intervalBelowTenMillisecondsIsRejected() {
    assertThatThrownBy(() -> GpuMetricsPoller.start(GpuMetricsSource.noop(), Duration.ofMillis(9)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10 ms");
    assertThatThrownBy(() -> GpuMetricsPoller.start(null, FAST)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> GpuMetricsPoller.start(GpuMetricsSource.noop(), null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void defaultIntervalIsHalfASecond() {
    assertThat(GpuMetricsPoller.DEFAULT_INTERVAL).isEqualTo(Duration.ofMillis(500));
    try (GpuMetricsPoller poller = GpuMetricsPoller.start(GpuMetricsSource.noop())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> poller.polls() >= 1);
      assertThat(poller.latest()).isSameAs(GpuMetricsSource.Reading.UNKNOWN);
    }
  }
}
