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
}
