package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.sink.CapturingSink;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * While the worker is held by a sink (inside one batch, holding the next), whether each offer is
 * accepted follows a simple model:
 * the main queue takes any record up to its capacity, the reserve takes priority records only
 * once the main queue is full; everything else is dropped and counted.
 */
class DispatcherQueueModelTest {

  @Property(tries = 40)
  void offersAreAcceptedExactlyAsTheCapacityModelSays(
      @ForAll @IntRange(min = 1, max = 40) int capacity,
      @ForAll @IntRange(min = 0, max = 10) int reserved,
      @ForAll @Size(max = 120) List<Boolean> priorities)
      throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    CapturingSink store = CapturingSink.create();
    RecordSink held =
        RecordSink.named(
            "held",
            batch -> {
              entered.countDown();
              try {
                gate.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              store.write(batch);
            });
    Dispatcher d =
        Dispatcher.builder()
            .sink(held)
            .policy(QueueFullPolicy.DROP)
            .queueCapacity(capacity)
            .reservedCapacity(reserved)
            .batchSize(1000)
            .build();
    try {
      d.offer(InferenceRecord.builder("held", "m").latencyMs(1.0).build(), false);
      await().atMost(Duration.ofSeconds(20)).until(() -> entered.getCount() == 0);
      // and the batch after it waits in the sink's slot: the worker takes nothing more
      d.offer(InferenceRecord.builder("held-next", "m").latencyMs(1.0).build(), false);
      await().atMost(Duration.ofSeconds(20)).until(() -> ((DefaultDispatcher) d).holdsNextBatch(0));

      List<Boolean> expected = new ArrayList<>();
      List<Boolean> actual = new ArrayList<>();
      int mainFree = capacity;
      int reserveFree = reserved;
      for (int i = 0; i < priorities.size(); i++) {
        boolean priority = priorities.get(i);
        boolean accept;
        if (mainFree > 0) {
          mainFree--;
          accept = true;
        } else if (priority && reserveFree > 0) {
          reserveFree--;
          accept = true;
        } else {
          accept = false;
        }
        expected.add(accept);
        Status status = priority ? Status.ERROR : Status.SUCCESS;
        actual.add(d.offer(InferenceRecord.builder("r-" + i, "m").latencyMs(1.0).status(status).build(), priority));
      }
      assertThat(actual).isEqualTo(expected);

      long accepted = expected.stream().filter(a -> a).count();
      gate.countDown();
      CloseReport report = d.close(Duration.ofSeconds(20));
      assertThat(report.clean()).isTrue();
      DispatcherStats stats = d.stats();
      assertThat(stats.droppedQueueFull()).isEqualTo(priorities.size() - accepted);
      assertThat(DispatcherTest.written(stats)).isEqualTo(accepted + 2);
      assertThat(store.count()).isEqualTo(accepted + 2);
    } finally {
      gate.countDown();
      d.close(Duration.ofSeconds(20));
    }
  }
}
