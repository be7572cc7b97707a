package io.github.trtrace.core.fault;

import static io.github.trtrace.core.fault.Accounting.assertAccountedFor;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.internal.dispatch.CloseReport;
import io.github.trtrace.core.internal.dispatch.Dispatcher;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 11 fault 3: producers far faster than the sink (the sink spends 20 µs a record; four
 * producers offer as fast as they can). BLOCK waits at most its bound, DROP counts exactly, error
 * records get through while the reserve lasts, and the heap stays bounded by the queue.
 */
class OverloadFaultTest {
  private static final int PRODUCERS = 4;
  private static final int PER_PRODUCER = 25_000;
  private static final Duration BLOCK_TIMEOUT = Duration.ofMillis(2);

  @ParameterizedTest
  @EnumSource(QueueFullPolicy.class)
  void overloadIsBoundedAndEveryRecordIsAccountedFor(QueueFullPolicy policy) throws Exception {
    LongAdder received = new LongAdder(); // counts only, so the heap measures the dispatcher alone
    RecordSink slow =
        RecordSink.named(
            "slow",
            batch -> {
              LockSupport.parkNanos(20_000L * batch.size());
              received.add(batch.size());
            });
    Dispatcher d =
        Dispatcher.builder()
            .sink(slow)
            .queueCapacity(2048)
            .reservedCapacity(256)
            .policy(policy)
            .blockTimeout(BLOCK_TIMEOUT)
            .shutdownHook(false)
            .build();
    long heapBefore = usedHeapAfterGc();
    AtomicLong longestOffer = new AtomicLong();
    LongAdder errorsOffered = new LongAdder();
    LongAdder errorsAccepted = new LongAdder();
    LongAdder successesOffered = new LongAdder();
    LongAdder successesAccepted = new LongAdder();
    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      int producer = p;
      Thread t =
          new Thread(
              () -> {
                for (int i = 0; i < PER_PRODUCER; i++) {
                  boolean error = i % 10 == 0;
                  InferenceRecord r =
                      InferenceRecord.builder("req-" + producer + "-" + i, "m")
                          .status(error ? Status.ERROR : Status.SUCCESS)
                          .latencyMs(1)
                          .build();
                  long start = System.nanoTime();
                  boolean accepted = d.offer(r, error);
                  longestOffer.accumulateAndGet(System.nanoTime() - start, Math::max);
                  (error ? errorsOffered : successesOffered).increment();
                  if (accepted) {
                    (error ? errorsAccepted : successesAccepted).increment();
                  }
                }
              });
      producers.add(t);
      t.start();
    }
    for (Thread t : producers) {
      t.join();
    }
    long heapLoaded = usedHeapAfterGc();
    CloseReport report = d.close(Duration.ofSeconds(60));
    DispatcherStats s = d.stats();

    assertThat(report.clean()).as("%s", report).isTrue();
    assertThat(s.offered()).isEqualTo(PRODUCERS * PER_PRODUCER);
    assertThat(s.dropped()).as("overloaded: %s", s).isPositive();
    assertThat(s.sinks().get("slow").written()).isEqualTo(s.accepted()).isEqualTo(received.sum());
    assertAccountedFor(s);
    if (policy == QueueFullPolicy.DROP) {
      assertThat(s.droppedQueueFull()).isEqualTo(s.dropped());
    } else {
      assertThat(s.droppedBlockTimeout()).isEqualTo(s.dropped());
    }
    double errorRate = errorsAccepted.doubleValue() / errorsOffered.doubleValue();
    double successRate = successesAccepted.doubleValue() / successesOffered.doubleValue();
    assertThat(errorRate).as("error records use the reserve").isGreaterThan(successRate);
    // Bounded heap: the queues hold at most 2048 + 256 records of a few hundred bytes.
    assertThat(heapLoaded - heapBefore).as("heap growth under overload").isLessThan(64L << 20);
    // Not a timing claim, a bound: no caller waited anywhere near a second (block timeout 2 ms; on a
    // loaded 2-core machine descheduling and GC add to it, which the figure printed below shows).
    assertThat(longestOffer.get()).isLessThan(Duration.ofSeconds(1).toNanos());
    System.out.printf(
        "overload %s: offered=%d accepted=%d written=%d dropped=%d (queue full %d, block timeout %d);"
            + " errors accepted %.1f%%, successes %.1f%%; longest offer %.2f ms; heap growth %d KiB%n",
        policy, s.offered(), s.accepted(), s.sinks().get("slow").written(), s.dropped(), s.droppedQueueFull(),
        s.droppedBlockTimeout(), 100 * errorRate, 100 * successRate, longestOffer.get() / 1e6,
        (heapLoaded - heapBefore) >> 10);
  }

  private static long usedHeapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
