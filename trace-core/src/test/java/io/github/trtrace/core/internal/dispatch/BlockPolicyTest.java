package io.github.trtrace.core.internal.dispatch;

import static io.github.trtrace.core.internal.dispatch.DispatcherTest.record;
import static io.github.trtrace.core.internal.dispatch.DispatcherTest.written;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.internal.dispatch.DispatcherTest.GatedSink;
import io.github.trtrace.core.sink.CapturingSink;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The BLOCK policy's defaults (issue 22): a sink that is slow but keeps writing loses nothing, and a
 * sink stuck past the export timeout does not hold callers for the block timeout on every record.
 */
class BlockPolicyTest {
  private final List<Dispatcher> dispatchers = new ArrayList<>();
  private final List<GatedSink> gates = new ArrayList<>();

  @AfterEach
  void closeEverything() {
    gates.forEach(GatedSink::open);
    dispatchers.forEach(d -> d.close(Duration.ofSeconds(10)));
  }

  /**
   * Each batch takes the sink 20 ms, as a sink thread gets on a loaded two-core machine (measured: a
   * producer's wait for space there reached 147-274 ms at load 5-7, `BENCHMARKS.md` §1b); the old
   * default block timeout of 5 ms dropped records although the sink never stopped writing.
   */
  @Test
  void theDefaultBlockPolicyLosesNothingWhileASlowSinkKeepsWriting() throws Exception {
    CapturingSink store = CapturingSink.create();
    RecordSink slow = store.slowed("slow", 20);
    Dispatcher d = Dispatcher.builder().sink(slow).queueCapacity(16).batchSize(16).shutdownHook(false).build();
    dispatchers.add(d);
    int producers = 2;
    int perProducer = 200;
    ExecutorService pool = Executors.newFixedThreadPool(producers);
    try {
      List<Future<Integer>> refused = new ArrayList<>();
      for (int p = 0; p < producers; p++) {
        int producer = p;
        refused.add(pool.submit(() -> {
          int n = 0;
          for (int i = 0; i < perProducer; i++) {
            if (!d.offer(record("req-" + producer + "-" + i), false)) {
              n++;
            }
          }
          return n;
        }));
      }
      for (Future<Integer> f : refused) {
        assertThat(f.get(120, SECONDS)).as("records refused by the default BLOCK policy").isZero();
      }
    } finally {
      pool.shutdownNow();
    }
    d.flush().get(60, SECONDS);
    DispatcherStats stats = d.stats();
    assertThat(stats.droppedBlockTimeout()).isZero();
    assertThat(written(stats)).isEqualTo((long) producers * perProducer);
  }

  /**
   * A hung destination (its write never returns) reaches the callers only until the worker has given
   * it the export timeout: then a full queue refuses at once, instead of holding every traced call
   * for the whole block timeout; when the sink returns, records are accepted again.
   */
  @Test
  void blockRefusesAtOnceWhileEverySinkIsStuckPastTheExportTimeout() throws Exception {
    GatedSink gated = new GatedSink();
    gates.add(gated);
    Dispatcher d =
        Dispatcher.builder()
            .sink(gated)
            .policy(QueueFullPolicy.BLOCK)
            .blockTimeout(Duration.ofSeconds(10))
            .exportTimeout(Duration.ofSeconds(3))
            .queueCapacity(4)
            .reservedCapacity(0)
            .batchSize(1)
            .shutdownHook(false)
            .build();
    dispatchers.add(d);
    // "held" is inside the sink, whose write does not return until the gate opens, and "held-next"
    // waits behind it: from now on the worker takes nothing out of the queue
    DispatcherTest.holdWorker(d, gated);

    long start = System.nanoTime();
    int refused = 0;
    for (int i = 0; i < 8; i++) {
      if (!d.offer(record("r-" + i), false)) {
        refused++;
      }
    }
    assertThat((System.nanoTime() - start) / 1_000_000)
        .as("eight offers, four of them queued, in less than one 10 s block timeout")
        .isLessThan(8_000);
    assertThat(refused).isEqualTo(4);

    start = System.nanoTime();
    assertThat(d.offer(record("refused-at-once"), false)).isFalse();
    assertThat((System.nanoTime() - start) / 1_000_000).as("no wait while the sink is stuck").isLessThan(5_000);
    assertThat(d.stats().droppedBlockTimeout()).isEqualTo(refused + 1);

    gated.open();
    await().atMost(Duration.ofSeconds(30)).until(() -> d.offer(record("after"), false));
    d.flush().get(30, SECONDS);
    assertThat(gated.store.records().stream().map(InferenceRecord::requestId))
        .contains("held", "held-next", "r-0", "r-3", "after")
        .doesNotContain("refused-at-once");
  }

  /** A sink whose every batch waits for a permit of the test, and which notes each batch's size. */
  static final class SteppedSink implements RecordSink {
    final java.util.concurrent.CopyOnWriteArrayList<Integer> sizes = new java.util.concurrent.CopyOnWriteArrayList<>();
    final java.util.concurrent.Semaphore permits = new java.util.concurrent.Semaphore(0);

    @Override
    public String name() {
      return "stepped";
    }

    @Override
    public void write(List<InferenceRecord> batch) throws java.io.IOException {
      sizes.add(batch.size());
      try {
        permits.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted");
      }
    }
  }

  /**
   * While a producer waits for space, the worker takes a quarter batch, so that space is freed sooner
   * (issue 22, the far tail at saturation); once nobody waits, it takes full batches again. The sink
   * writes a batch only when the test allows it, so what the worker takes is known at each step.
   */
  @Test
  void theWorkerTakesSmallerBatchesOnlyWhileProducersWaitForSpace() throws Exception {
    SteppedSink sink = new SteppedSink();
    Dispatcher d = Dispatcher.builder().sink(sink).policy(QueueFullPolicy.BLOCK).blockTimeout(Duration.ofSeconds(10))
        .exportTimeout(Duration.ofSeconds(10)).queueCapacity(64).reservedCapacity(0).batchSize(16).shutdownHook(false)
        .build();
    dispatchers.add(d);
    assertThat(d.offer(record("held"), false)).isTrue();
    await().atMost(Duration.ofSeconds(20)).until(() -> sink.sizes.size() == 1); // inside the sink
    assertThat(d.offer(record("held-next"), false)).isTrue();
    await().atMost(Duration.ofSeconds(20)).until(() -> ((DefaultDispatcher) d).holdsNextBatch(0));
    for (int i = 0; i < 64; i++) {
      assertThat(d.offer(record("q-" + i), false)).as("queued without waiting").isTrue();
    }
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Boolean> waiting = pool.submit(() -> d.offer(record("waiter"), false));
      // parked in its wait for space (registered as a waiter before it parks)
      await().atMost(Duration.ofSeconds(20)).until(() -> ((DefaultDispatcher) d).hasBlockedProducers());
      // "held" and "held-next" written: the sink starts the next batch, which the worker took while
      // the producer waited; it may also have taken the one after before the producer left its wait
      sink.permits.release(2);
      assertThat(waiting.get(30, SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(20)).until(() -> sink.sizes.size() >= 3);
      assertThat(sink.sizes.get(2)).as("the batch taken while a producer waited").isEqualTo(4);
      sink.permits.release(100); // nobody waits any more
      d.flush().get(30, SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(sink.sizes.get(3)).isIn(4, 16);
    assertThat(sink.sizes.subList(4, sink.sizes.size())).as("batches taken once nobody waited").startsWith(16, 16);
    assertThat(written(d.stats())).isEqualTo(67);
  }
}
