package io.github.trtrace.core.fault;

import io.github.trtrace.core.internal.trace.TracerFactory;
import static io.github.trtrace.core.fault.Accounting.assertAccountedFor;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.internal.dispatch.CloseReport;
import io.github.trtrace.core.internal.dispatch.Dispatcher;
import io.github.trtrace.core.sink.CapturingSink;
import io.github.trtrace.core.sink.RecordSink;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 11 fault 4: a throwing, a forever-blocking and a slow sink beside a good one, behind a real
 * tracer. The good sink receives every record, the caller is unaffected, close returns within its
 * timeout and reports what each sink missed.
 */
class BadSinksFaultTest {

  @Test
  void theGoodSinkGetsEverythingAndCloseReportsWhatTheBadOnesMissed() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    RecordSink throwing =
        RecordSink.named(
            "throwing",
            batch -> {
              throw new IOException("connection refused");
            });
    RecordSink blocking =
        RecordSink.named(
            "blocking",
            batch -> {
              try {
                never.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    RecordSink slow =
        RecordSink.named(
            "slow",
            batch -> {
              try {
                Thread.sleep(2);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    CapturingSink good = CapturingSink.create();
    Dispatcher.Builder dispatcher =
        Dispatcher.builder()
            .sink(throwing)
            .sink(blocking)
            .sink(slow)
            .sink(good)
            .exportTimeout(Duration.ofMillis(200))
            .queueCapacity(16_384)
            .shutdownHook(false);
    InferenceTracer tracer = new TracerFactory().dispatcher(dispatcher.build()).build();
    try {
      int requests = 5_000;
      for (int i = 0; i < requests; i++) {
        try (InferenceTrace t = tracer.start("m", "req-bad-" + i)) {
          t.status(Status.SUCCESS);
        }
      }
      assertThat(good.awaitCount(requests, Duration.ofSeconds(60))).isTrue();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(tracer::close);
      closing.get(30, TimeUnit.SECONDS); // close timeout 5 s (default)
      TracerStats s = tracer.stats();
      assertThat(s.dispatcher().accepted()).isEqualTo(requests);
      assertThat(s.sinks().get(good.name()).written()).isEqualTo(requests);
      assertThat(s.sinks().get("slow").written()).isEqualTo(requests);
      assertThat(s.sinks().get("throwing").lostFailed()).isEqualTo(requests);
      assertThat(s.sinks().get("blocking").lost()).isEqualTo(requests);
      assertAccountedFor(s.dispatcher());
      System.out.printf("bad sinks: %s%n", s.sinks());
    } finally {
      never.countDown();
    }
  }

  @Test
  void closeReturnsAtItsTimeoutWithABlockedSinkAndNamesIt() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    RecordSink blocking =
        RecordSink.named(
            "blocking",
            batch -> {
              try {
                never.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    CapturingSink good = CapturingSink.create();
    Dispatcher d = Dispatcher.builder().sink(blocking).sink(good).shutdownHook(false).build();
    try {
      for (int i = 0; i < 100; i++) {
        d.offer(io.github.trtrace.core.InferenceRecord.builder("req-" + i, "m").latencyMs(1).build(), false);
      }
      CloseReport report =
          CompletableFuture.supplyAsync(() -> d.close(Duration.ofMillis(500))).get(30, TimeUnit.SECONDS);
      assertThat(report.timedOut()).isTrue();
      assertThat(report.unwritten()).containsEntry("blocking", 100L).containsEntry(good.name(), 0L);
      assertAccountedFor(d.stats());
    } finally {
      never.countDown();
    }
  }
}
