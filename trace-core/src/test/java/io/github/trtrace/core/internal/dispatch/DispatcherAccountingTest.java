package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.TracerStats.DispatcherStats;
import static io.github.trtrace.core.internal.dispatch.DispatcherTest.record;
import static io.github.trtrace.core.fault.Accounting.assertAccountedFor;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.TracerStats.SinkStats;
import io.github.trtrace.core.sink.CapturingSink;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.RecordSink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 11, defects 1, 3 and 5: counters that tell the truth, per-sink isolation, sinks closed. */
class DispatcherAccountingTest {

  @Test
  void aBufferedRecordIsNotCountedAsWrittenUntilTheFileWriteThatCarriesItReturned(@TempDir Path dir)
      throws Exception {
    Path log = dir.resolve("inference.log");
    JsonLinesFileSink file = JsonLinesFileSink.builder(log).flushInterval(Duration.ofHours(1)).build();
    AtomicInteger writes = new AtomicInteger();
    RecordSink observed =
        new RecordSink() {
          @Override
          public String name() {
            return file.name();
          }

          @Override
          public void write(List<InferenceRecord> batch) throws IOException {
            file.write(batch);
            writes.incrementAndGet();
          }

          @Override
          public void flush() throws IOException {
            file.flush();
          }

          @Override
          public void close() throws IOException {
            file.close();
          }

          @Override
          public Delivery delivery() {
            return file.delivery();
          }
        };
    Dispatcher d =
        Dispatcher.builder().sink(observed).flushInterval(Duration.ofHours(1)).shutdownHook(false).build();
    try {
      for (int i = 0; i < 10; i++) {
        d.offer(record("buffered-" + i), false);
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> d.stats().sinks().get(file.name()).inFlight() == 10
          && writes.get() > 0 && d.stats().queued() == 0);
      assertThat(Files.size(log)).as("the lines are still in the sink's buffer").isZero();
      SinkStats before = d.stats().sinks().get(file.name());
      assertThat(before.written()).isZero();
      assertThat(before.inFlight()).isEqualTo(10);

      d.flush().get(30, SECONDS);
      SinkStats after = d.stats().sinks().get(file.name());
      assertThat(after.written()).isEqualTo(Files.readAllLines(log).size()).isEqualTo(10);
      assertThat(after.inFlight()).isZero();
      assertAccountedFor(d.stats());
    } finally {
      d.close(Duration.ofSeconds(10));
    }
  }

  @Test
  void tracerStatsExposeEverySinksWrittenAndLostByName() {
    CapturingSink memory = CapturingSink.create();
    RecordSink failing =
        RecordSink.named(
            "failing",
            batch -> {
              throw new IOException("unreachable collector");
            });
    InferenceTracer tracer = InferenceTracer.builder().sink(memory).sink(failing).shutdownHook(false).build();
    for (int i = 0; i < 25; i++) {
      try (InferenceTrace t = tracer.start("m")) {
        t.inputTokens(1);
      }
    }
    tracer.flush().join();
    var sinks = tracer.stats().sinks();
    assertThat(sinks.keySet()).containsExactly(memory.name(), "failing");
    assertThat(sinks.get(memory.name()).written()).isEqualTo(25);
    assertThat(sinks.get(memory.name()).lost()).isZero();
    assertThat(sinks.get("failing").written()).isZero();
    assertThat(sinks.get("failing").lostFailed()).isEqualTo(25);
    assertThat(tracer.stats().enqueued()).isEqualTo(tracer.stats().dispatcher().accepted()).isEqualTo(25);
    assertAccountedFor(tracer.stats().dispatcher());
    tracer.close();
  }

  @Test
  void aSinkBlockedForeverDoesNotStopTheOthersAndCloseReportsWhatItHeld() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    RecordSink blocked =
        RecordSink.named(
            "blocked",
            batch -> {
              entered.countDown();
              try {
                never.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    CapturingSink good = CapturingSink.create();
    Dispatcher d =
        Dispatcher.builder()
            .sink(blocked)
            .sink(good)
            .batchSize(10)
            .exportTimeout(Duration.ofMillis(100))
            .shutdownHook(false)
            .build();
    try {
      int offered = 1000;
      int accepted = 0;
      for (int i = 0; i < offered; i++) {
        if (d.offer(record("r-" + i), false)) {
          accepted++;
        }
      }
      assertThat(accepted).as("the caller is unaffected").isEqualTo(offered);
      assertThat(entered.await(20, SECONDS)).isTrue();
      assertThat(good.awaitCount(offered, Duration.ofSeconds(30))).as("the other sink got everything").isTrue();

      CloseReport report = d.close(Duration.ofMillis(300));
      assertThat(report.timedOut()).isTrue();
      assertThat(report.unwritten()).containsEntry("blocked", (long) offered).containsEntry(good.name(), 0L);
      DispatcherStats s = d.stats();
      SinkStats b = s.sinks().get("blocked");
      assertThat(b.written()).isZero();
      assertThat(b.lostStuck()).as("batches it missed while stuck").isPositive();
      assertThat(b.lostClosed()).as("the batches it held when close gave up: one inside it, one waiting").isBetween(1L, 20L);
      assertThat(b.lost()).isEqualTo(offered);
      assertThat(b.inFlight()).isZero();
      assertAccountedFor(s);
    } finally {
      never.countDown();
    }
  }

  @Test
  void aSlowSinkWithinTheExportTimeoutLosesNothingAndTheOthersGetEverything() throws Exception {
    RecordSink slow =
        RecordSink.named(
            "slow",
            batch -> {
              try {
                Thread.sleep(5);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    CapturingSink good = CapturingSink.create();
    Dispatcher d =
        Dispatcher.builder().sink(slow).sink(good).batchSize(50).exportTimeout(Duration.ofSeconds(10))
            .blockTimeout(Duration.ofSeconds(5)).shutdownHook(false).build();
    for (int i = 0; i < 2000; i++) {
      assertThat(d.offer(record("r-" + i), false)).isTrue();
    }
    CloseReport report = d.close(Duration.ofSeconds(30));
    assertThat(report.clean()).as("%s", report).isTrue();
    assertThat(d.stats().sinks().get("slow").written()).isEqualTo(2000);
    assertThat(good.count()).isEqualTo(2000);
    assertAccountedFor(d.stats());
  }

  @Test
  void everySinkIsClosedAfterAFatalJvmErrorStopsTheDispatcher() throws Exception {
    List<String> closed = java.util.Collections.synchronizedList(new ArrayList<>());
    RecordSink fatal =
        new RecordSink() {
          @Override
          public String name() {
            return "fatal";
          }

          @Override
          public void write(List<InferenceRecord> batch) {
            throw new InternalError("the JVM is broken");
          }

          @Override
          public void close() {
            closed.add(name());
          }
        };
    RecordSink healthy =
        new RecordSink() {
          @Override
          public String name() {
            return "healthy";
          }

          @Override
          public void write(List<InferenceRecord> batch) {}

          @Override
          public void close() {
            closed.add(name());
          }
        };
    Dispatcher d = Dispatcher.builder().sink(fatal).sink(healthy).shutdownHook(false).build();
    d.offer(record("dies"), false);
    d.flush().get(30, SECONDS);
    // the fatal error is rethrown on the sink's thread, as documented: not a failure of this test
    await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(20)).until(() -> closed.size() == 2);
    assertThat(closed).containsExactlyInAnyOrder("fatal", "healthy");
    assertThat(d.offer(record("late"), false)).isFalse();
    CloseReport report = d.close(Duration.ofSeconds(10));
    assertThat(report.unwritten()).containsEntry("fatal", 1L).containsEntry("healthy", 0L);
    assertAccountedFor(d.stats());
  }

  /**
   * Issue 19 item 7: an OutOfMemoryError on the dispatcher's worker (here while it builds a pooled record,
   * the worker's largest allocation) costs the record it held, counted, and tracing goes on.
   */
  @Test
  void anOutOfMemoryErrorOnTheWorkerCostsItsRecordsNotTracing() throws Exception {
    CapturingSink memory = CapturingSink.create();
    DefaultDispatcher d =
        (DefaultDispatcher) Dispatcher.builder().sink(memory).shutdownHook(false).build();
    AtomicInteger builds = new AtomicInteger();
    PendingRecord hitsOom = new PendingRecord() {
      @Override
      public InferenceRecord toRecord() {
        builds.incrementAndGet();
        throw new OutOfMemoryError("Java heap space (injected once)");
      }

      @Override
      public void discard() {}
    };
    assertThat(d.offerPending(hitsOom, false)).isTrue();
    await().atMost(Duration.ofSeconds(20)).until(() -> d.workerErrors() == 1);
    for (int i = 0; i < 100; i++) {
      assertThat(d.offer(record("after-" + i), false)).as("offer %d after the error", i).isTrue();
    }
    d.flush().get(30, SECONDS);
    assertThat(memory.count()).isEqualTo(100);
    SinkStats s = d.stats().sinks().get(memory.name());
    assertThat(s.lostFailed()).isEqualTo(1);
    assertThat(s.failures()).isEqualTo(1);
    assertThat(s.lastError()).contains("OutOfMemoryError");
    assertThat(d.stats().accepted()).isEqualTo(101);
    assertAccountedFor(d.stats());
    assertThat(builds).hasValue(1);
    CloseReport report = d.close(Duration.ofSeconds(10));
    assertThat(report.unwritten()).containsEntry(memory.name(), 1L);
    assertAccountedFor(d.stats());
  }
}
