package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** Pooled launch objects: a launch's close and its place on its opener's stack must not outlive its use. */
class LaunchCloseRaceTest {

  @Test
  void twoConcurrentClosesOfALaunchAttributeItOnceAndPoolItOnce() throws Exception {
    List<InferenceRecord> records = new CopyOnWriteArrayList<>();
    AtomicInteger onLaunch = new AtomicInteger();
    AtomicBoolean armed = new AtomicBoolean();
    CyclicBarrier bothInClose = new CyclicBarrier(2);
    // the launch's close reads the clock right after its "already closed?" check: both closers meet there
    java.util.function.LongSupplier nanos = () -> {
      if (armed.get() && Thread.currentThread().getName().startsWith("closer")) {
        try {
          bothInClose.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
          // broken by the test: only one closer got this far
        }
        armed.set(false);
      }
      return 1_000_000_000L;
    };
    InferenceTracer tracer = new TracerFactory()
        .sink(RecordSink.named("memory", records::addAll))
        .clocks(Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC), nanos)
        .shutdownHook(false)
        .listener(new TraceListener() {
          @Override
          public Handle onStart(InferenceTrace trace, long startEpochNanos) {
            return Handle.NOOP;
          }

          @Override
          public void onLaunch(SharedLaunch.Ended l, List<@Nullable Handle> members) {
            onLaunch.incrementAndGet();
          }
        })
        .build();
    // launches opened on a thread of their own: one closed elsewhere stays on its opener's stack (see below)
    ExecutorService scheduler = Executors.newSingleThreadExecutor();
    try {
      InferenceTrace a = tracer.start("m", "req-a");
      SharedLaunch l = scheduler.submit(() -> tracer.launch(null)).get();
      l.decode(a).gpuMs(2);
      armed.set(true);
      Thread first = new Thread(l::close, "closer-1");
      first.start();
      while (bothInClose.getNumberWaiting() < 1) {
        Thread.onSpinWait();
      }
      Thread second = new Thread(l::close, "closer-2");
      second.start();
      second.join(3_000);
      if (bothInClose.getNumberWaiting() == 1) {
        bothInClose.reset(); // the second close returned at once: let the first go on
      }
      first.join(10_000);
      second.join(10_000);
      int seen = onLaunch.get();
      a.close();
      boolean same = scheduler.submit(() -> {
        SharedLaunch x = tracer.launch(null);
        SharedLaunch y = tracer.launch(null);
        y.close();
        x.close();
        return x == y;
      }).get();
      tracer.flush().join();
      System.out.printf("LaunchCloseRaceTest: onLaunch %d, req-a launches %d, x==y %b, misuse %d%n", seen,
          records.isEmpty() ? -1 : records.get(0).batching().launchCount(), same, tracer.stats().misuse());
      assertThat(seen).as("onLaunch calls for the one launch closed twice at once").isEqualTo(1);
      assertThat(records).hasSize(1);
      assertThat(records.get(0).batching().launchCount()).as("req-a rode one launch").isEqualTo(1);
      assertThat(same).as("two open launches share one pooled object").isFalse();
    } finally {
      scheduler.shutdownNow();
      tracer.close();
    }
  }

  @Test
  void aLaunchClosedOnAnotherThreadIsNoLongerCurrentOnItsOpenersThread() throws Exception {
    ExecutorService scheduler = Executors.newSingleThreadExecutor();
    try (BatchFixture f = new BatchFixture()) {
      SharedLaunch l = scheduler.submit(() -> f.tracer.launch(null)).get();
      assertThat(scheduler.submit(SharedLaunch::current).get()).isSameAs(l);
      l.close(); // e.g. the engine's completion callback, on another thread
      SharedLaunch reused = f.tracer.launch(null); // another scheduler's launch: the pooled object again
      try {
        SharedLaunch seen = scheduler.submit(SharedLaunch::current).get();
        assertThat(seen).as("the opener's current launch after its close elsewhere").isNull();
      } finally {
        reused.close();
      }
    } finally {
      scheduler.shutdownNow();
    }
  }
}
