package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.sink.CapturingSink;
import io.github.trtrace.core.sink.RecordSink;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DispatcherTest {
  private static final Duration LONG = Duration.ofSeconds(30);

  private final List<Dispatcher> dispatchers = new ArrayList<>();
  private final List<GatedSink> gates = new ArrayList<>();

  @AfterEach
  void closeEverything() {
    gates.forEach(GatedSink::open);
    dispatchers.forEach(d -> d.close(Duration.ofSeconds(10)));
  }

  private Dispatcher start(Dispatcher.Builder builder) {
    Dispatcher d = builder.build();
    dispatchers.add(d);
    return d;
  }

  private GatedSink gate() {
    GatedSink g = new GatedSink();
    gates.add(g);
    return g;
  }

  static InferenceRecord record(String id) {
    return record(id, Status.SUCCESS);
  }

  static InferenceRecord record(String id, Status status) {
    return InferenceRecord.builder(id, "m").status(status).latencyMs(1).build();
  }

  /** Records the only sink has written. */
  static long written(DispatcherStats stats) {
    assertThat(stats.sinks()).hasSize(1);
    return stats.sinks().values().iterator().next().written();
  }

  /**
   * Makes the worker wait for the sink: "held" is inside the gated sink and "held-next" waits in the
   * sink's slot behind it, so the queues fill exactly as offered until the gate opens.
   */
  static void holdWorker(Dispatcher d, GatedSink gated) {
    assertThat(d.offer(record("held"), false)).isTrue();
    gated.awaitEntered();
    assertThat(d.offer(record("held-next"), false)).isTrue();
    await().atMost(Duration.ofSeconds(20)).until(() -> ((DefaultDispatcher) d).holdsNextBatch(0));
  }

  private static List<String> ids(CapturingSink sink) {
    return sink.records().stream().map(InferenceRecord::requestId).collect(Collectors.toList());
  }

  // ------------------------------------------------------------------ queue-full policies

  @Test
  void noEventLossWhenQueueFullAndPolicyIsBlock() throws Exception {
    CapturingSink store = CapturingSink.create();
    RecordSink slow = store.slowed("slow", 1);
    // A block timeout far above any scheduling hiccup: this test is about BLOCK waiting, not timing.
    Dispatcher d =
        start(
            Dispatcher.builder()
                .sink(slow)
                .queueCapacity(1024)
                .policy(QueueFullPolicy.BLOCK)
                .blockTimeout(Duration.ofSeconds(10)));
    int producers = 8;
    int perProducer = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(producers);
    try {
      List<Future<Integer>> rejected = new ArrayList<>();
      for (int p = 0; p < producers; p++) {
        int producer = p;
        rejected.add(
            pool.submit(
                () -> {
                  int refused = 0;
                  for (int i = 0; i < perProducer; i++) {
                    if (!d.offer(record("req-" + producer + "-" + i), false)) {
                      refused++;
                    }
                  }
                  return refused;
                }));
      }
      for (Future<Integer> f : rejected) {
        assertThat(f.get(120, SECONDS)).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
    d.flush().get(60, SECONDS);

    DispatcherStats stats = d.stats();
    assertThat(stats.dropped()).isZero();
    assertThat(stats.offered()).isEqualTo(producers * perProducer);
    assertThat(written(stats)).isEqualTo(producers * perProducer);
    assertThat(store.count()).isEqualTo(producers * perProducer);
    assertThat(new HashSet<>(ids(store))).hasSize(producers * perProducer);
  }

  /**
   * A producer waiting for space under BLOCK parks once and is unparked when the worker takes records
   * out; it does not poll. Counted with the JVM's own wait count of the thread (every park is one),
   * so the test is about events, not timing.
   */
  @Test
  void aBlockedProducerParksUntilTheWorkerFreesSpaceInsteadOfPolling() throws Exception {
    GatedSink gated = gate();
    Dispatcher d =
        start(
            Dispatcher.builder()
                .sink(gated)
                .queueCapacity(4)
                .reservedCapacity(0)
                .batchSize(4)
                .policy(QueueFullPolicy.BLOCK)
                .blockTimeout(Duration.ofSeconds(10)));
    holdWorker(d, gated); // the worker waits for the sink, the queue is empty
    for (int i = 0; i < 4; i++) {
      assertThat(d.offer(record("queued-" + i), false)).isTrue();
    }
    CompletableFuture<Boolean> blocked = new CompletableFuture<>();
    Thread producer = new Thread(() -> blocked.complete(d.offer(record("waiter"), false)), "blocked-producer");
    producer.start();
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    await().atMost(Duration.ofSeconds(10)).until(() -> isParkedInBlockingOffer(producer));
    long parksBefore = mx.getThreadInfo(producer.getId()).getWaitedCount();
    await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> true);
    long parksWhileFull = mx.getThreadInfo(producer.getId()).getWaitedCount() - parksBefore;
    assertThat(blocked).isNotDone();
    // nothing freed space meanwhile: a polling wait would have woken thousands of times
    assertThat(parksWhileFull).isLessThanOrEqualTo(2);

    gated.open(); // the worker gets "held" back, takes the queued records out and unparks the waiter
    assertThat(blocked.get(10, SECONDS)).isTrue();
    producer.join(10_000);
    d.flush().get(10, SECONDS);
    assertThat(d.stats().dropped()).isZero();
    assertThat(gated.store.records().stream().map(InferenceRecord::requestId))
        .containsExactly("held", "held-next", "queued-0", "queued-1", "queued-2", "queued-3", "waiter");
  }

  /**
   * The worker frees queue space when it takes records out, before it builds them (building a pending
   * record runs the redactor and the input scans, which for a whole batch can take a while): a
   * producer waiting for space is released then, as the class says, not only once every record of
   * the batch is built. Here the build of the first record waits (up to half the producer's block
   * timeout) for the blocked producer's offer to return; a producer released only after the build
   * sleeps on although the queue has room, and new offers overtake it meanwhile.
   */
  @Test
  void aBlockedProducerIsReleasedWhenRecordsLeaveTheQueueNotOnceTheyAreBuilt() throws Exception {
    GatedSink gated = gate();
    Dispatcher d =
        start(
            Dispatcher.builder()
                .sink(gated)
                .queueCapacity(2)
                .reservedCapacity(0)
                .batchSize(4)
                .exportTimeout(Duration.ofMinutes(1))
                .policy(QueueFullPolicy.BLOCK)
                .blockTimeout(Duration.ofSeconds(10)));
    holdWorker(d, gated); // the worker waits for the sink, the queue is empty
    CountDownLatch producerReturned = new CountDownLatch(1);
    CompletableFuture<Boolean> returnedWhileBuilding = new CompletableFuture<>();
    io.github.trtrace.core.internal.dispatch.PendingRecord slowToBuild = new io.github.trtrace.core.internal.dispatch.PendingRecord() {
      @Override
      public InferenceRecord toRecord() {
        try {
          returnedWhileBuilding.complete(producerReturned.await(5, SECONDS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          returnedWhileBuilding.complete(false);
        }
        return record("slow-to-build");
      }

      @Override
      public void discard() {}
    };
    assertThat(((io.github.trtrace.core.internal.dispatch.PendingOffer) d).offerPending(slowToBuild, false)).isTrue();
    assertThat(d.offer(record("fills-the-queue"), false)).isTrue();
    CompletableFuture<Boolean> blocked = new CompletableFuture<>();
    Thread producer = new Thread(() -> {
      blocked.complete(d.offer(record("waiter"), false));
      producerReturned.countDown();
    }, "blocked-producer");
    producer.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> isParkedInBlockingOffer(producer));

    gated.open(); // the worker takes both queued records out, then builds "slow-to-build"
    assertThat(returnedWhileBuilding.get(30, SECONDS)).as("the producer got the freed space while the batch was built").isTrue();
    assertThat(blocked.get(30, SECONDS)).isTrue();
    producer.join(10_000);
    d.flush().get(30, SECONDS);
    assertThat(d.stats().dropped()).isZero();
    assertThat(ids(gated.store))
        .containsExactly("held", "held-next", "slow-to-build", "fills-the-queue", "waiter");
  }

  private static boolean isParkedInBlockingOffer(Thread t) {
    if (t.getState() != Thread.State.TIMED_WAITING) {
      return false;
    }
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getMethodName().equals("blockingOffer")) {
        return true;
      }
    }
    return false;
  }

  @Test
  void theWorkerTakesTheNextBatchOutOfTheQueueWhileTheSinkIsStillWriting() throws Exception {
    GatedSink gated = gate();
    // no flush by time and no export timeout within the test: only the hand-off is at work
    Dispatcher d =
        start(
            Dispatcher.builder()
                .sink(gated)
                .queueCapacity(8)
                .batchSize(4)
                .flushInterval(Duration.ofHours(1))
                .exportTimeout(Duration.ofMinutes(10)));
    assertThat(d.offer(record("first"), false)).isTrue();
    gated.awaitEntered();
    for (int i = 0; i < 4; i++) {
      assertThat(d.offer(record("next-" + i), false)).isTrue();
    }
    // the sink is still inside "first": a following batch left the queue (room for callers) and
    // waits in the sink's slot (all four, or the first ones if the worker woke before the last offer)
    await().atMost(Duration.ofSeconds(20)).until(() -> ((DefaultDispatcher) d).holdsNextBatch(0));
    assertThat(d.stats().queued()).isLessThan(4);
    assertThat(gated.store.count()).isZero();

    gated.open(); // the sink's thread starts the held batch itself when "first" returns
    d.flush().get(30, SECONDS);
    assertThat(ids(gated.store)).containsExactly("first", "next-0", "next-1", "next-2", "next-3");
    DispatcherStats stats = d.stats();
    assertThat(written(stats)).isEqualTo(5);
    assertThat(stats.sinks().get("gated").inFlight()).isZero();
  }

  @Test
  void aLoneRecordIsWrittenWithinTheMaxWriteDelayWithoutAFlush() {
    CapturingSink store = CapturingSink.create();
    // flush interval and block timeout far away: only the worker's own timer can write the records
    Dispatcher d =
        start(
            Dispatcher.builder()
                .sink(store)
                .batchSize(512)
                .flushInterval(Duration.ofHours(1))
                .maxWriteDelay(Duration.ofMillis(30)));
    // far below half a batch: no caller wakes the worker, its own timer must
    d.offer(record("req-lone"), false);
    await().atMost(Duration.ofSeconds(2)).until(() -> store.count() == 1);
    // and again once the worker has gone back to sleep, for a priority record
    d.offer(record("req-lone-error", Status.ERROR), true);
    await().atMost(Duration.ofSeconds(2)).until(() -> store.count() == 2);
    assertThat(ids(store)).containsExactly("req-lone", "req-lone-error");
  }

  @Test
  void underSteadyTrafficTheWorkerWakesBeforeCallersMustWakeIt() {
    CapturingSink store = CapturingSink.create();
    // callers wake the worker at 32 queued records (half a batch of 64); its own timer is 10 s away. One record
    // every 2 ms reaches 32 every 64 ms: a worker that only waits for its timer or a caller is woken by callers
    // about once per 32 records (18 times here); one that paces itself to the rate needs them once, for the
    // first interval, before it has seen the rate. A caller's wake-up is a system call inside a traced call.
    DefaultDispatcher d = (DefaultDispatcher)
        start(Dispatcher.builder().sink(store).batchSize(64).maxWriteDelay(Duration.ofSeconds(10)));
    int n = 600;
    long next = System.nanoTime();
    for (int i = 0; i < n; i++) {
      next += 2_000_000L;
      for (long left; (left = next - System.nanoTime()) > 0; ) {
        java.util.concurrent.locks.LockSupport.parkNanos(left);
      }
      d.offer(record("steady-" + i), false);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> store.count() == n);
    // a loaded machine may keep the worker from its paced wake-up now and then (each such delay past ~32 ms
    // costs one caller wake-up); the unpaced worker needs 18
    assertThat(d.callerWakes()).isLessThanOrEqualTo(5);
  }

  @Test
  void callersWakeTheWorkerOnceHalfABatchIsWaiting() {
    CapturingSink store = CapturingSink.create();
    // the worker's own timer is 10 s away: records written sooner were woken for by a caller
    Dispatcher d =
        start(Dispatcher.builder().sink(store).batchSize(8).maxWriteDelay(Duration.ofSeconds(10)));
    await().pollDelay(Duration.ofMillis(50)).until(() -> true); // let the worker park
    for (int i = 0; i < 4; i++) {
      d.offer(record("half-" + i), false);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> store.count() == 4);
  }

  @Test
  void maxWriteDelayMustBePositiveAndBounded() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Dispatcher.builder().maxWriteDelay(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxWriteDelay");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Dispatcher.builder().maxWriteDelay(Duration.ofMinutes(1)))
        .hasMessageContaining("maxWriteDelay");
  }

  @Test
  void dropCountsAreExactWhenQueueFullAndPolicyIsDrop() throws Exception {
    GatedSink gated = gate();
    Dispatcher d =
        start(
            Dispatcher.builder()
                .sink(gated)
                .policy(QueueFullPolicy.DROP)
                .queueCapacity(100)
                .reservedCapacity(10)
                .batchSize(1000));
    holdWorker(d, gated); // the sink is inside "held" and holds "held-next": the queues are empty

    int accepted = 2;
    for (int i = 0; i < 100; i++) {
      assertThat(d.offer(record("ok-" + i), false)).isTrue();
      accepted++;
    }
    for (int i = 0; i < 7; i++) {
      assertThat(d.offer(record("over-" + i), false)).isFalse();
    }
    for (int i = 0; i < 10; i++) {
      assertThat(d.offer(record("err-" + i, Status.ERROR), true)).isTrue();
      accepted++;
    }
    for (int i = 0; i < 5; i++) {
      assertThat(d.offer(record("err-over-" + i, Status.ERROR), true)).isFalse();
    }
    assertThat(d.stats().queued()).isEqualTo(110);

    gated.open();
    d.flush().get(30, SECONDS);

    DispatcherStats stats = d.stats();
    assertThat(stats.offered()).isEqualTo(2 + 100 + 7 + 10 + 5);
    assertThat(stats.droppedQueueFull()).isEqualTo(12);
    assertThat(stats.dropped()).isEqualTo(12);
    assertThat(stats.droppedBlockTimeout()).isZero();
    assertThat(written(stats)).isEqualTo(accepted);
    assertThat(stats.queued()).isZero();
    assertThat(gated.store.count()).isEqualTo(accepted);
    assertThat(ids(gated.store)).noneMatch(id -> id.contains("over"));
  }

  @Test
  void priorityRecordsUseTheReservedCapacityWhenTheMainQueueIsFullOfSuccesses() throws Exception {
    GatedSink gated = gate();
    Dispatcher d =
        start(
            Dispatcher.builder()
                .sink(gated)
                .policy(QueueFullPolicy.BLOCK)
                .blockTimeout(Duration.ofMillis(1))
                .queueCapacity(50)
                .reservedCapacity(5)
                .batchSize(1000));
    holdWorker(d, gated);
    for (int i = 0; i < 50; i++) {
      assertThat(d.offer(record("s-" + i), false)).isTrue();
    }

    assertThat(d.offer(record("s-late"), false)).as("a success does not use the reserve").isFalse();
    for (int i = 0; i < 5; i++) {
      assertThat(d.offer(record("e-" + i, Status.ERROR), true)).isTrue();
    }
    assertThat(d.offer(record("e-late", Status.TIMEOUT), true)).isFalse();
    assertThat(d.stats().droppedBlockTimeout()).isEqualTo(2);

    gated.open();
    d.flush().get(30, SECONDS);
    List<String> written = ids(gated.store);
    assertThat(written).contains("e-0", "e-1", "e-2", "e-3", "e-4").doesNotContain("s-late", "e-late");
    assertThat(written.indexOf("e-4")).as("reserve drained first").isLessThan(written.indexOf("s-0"));
    assertThat(written(d.stats())).isEqualTo(57);
  }

  @Test
  void blockWaitsForSpaceInsteadOfDropping() throws Exception {
    GatedSink gated = gate();
    Dispatcher d =
        start(
            Dispatcher.builder()
                .sink(gated)
                .queueCapacity(1)
                .reservedCapacity(0)
                .blockTimeout(Duration.ofSeconds(10)));
    holdWorker(d, gated);
    d.offer(record("fills-the-queue"), false);
    CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> d.offer(record("waits"), false));
    gated.open();
    assertThat(waiting.get(30, SECONDS)).isTrue();
    d.flush().get(30, SECONDS);
    assertThat(ids(gated.store)).containsExactly("held", "held-next", "fills-the-queue", "waits");
    assertThat(d.stats().dropped()).isZero();
  }

  // ------------------------------------------------------------------ close

  @Test
  void closeWritesEverythingOfferedBeforeIt() {
    CapturingSink store = CapturingSink.create();
    Dispatcher d = start(Dispatcher.builder().sink(store).queueCapacity(20_000));
    for (int i = 0; i < 10_000; i++) {
      assertThat(d.offer(record("r-" + i), i % 10 == 0)).isTrue();
    }
    CloseReport report = d.close(LONG);
    assertThat(report.clean()).isTrue();
    assertThat(report.maxUnwritten()).isZero();
    assertThat(store.count()).isEqualTo(10_000);
    assertThat(written(d.stats())).isEqualTo(10_000);
  }

  @Test
  void closeIsIdempotentAndClosesEachSinkOnce() {
    AtomicInteger closes = new AtomicInteger();
    RecordSink sink =
        new RecordSink() {
          @Override
          public String name() {
            return "counting";
          }

          @Override
          public void write(List<InferenceRecord> batch) {}

          @Override
          public void close() {
            closes.incrementAndGet();
          }
        };
    Dispatcher d = start(Dispatcher.builder().sink(sink));
    d.offer(record("a"), false);
    CloseReport first = d.close(LONG);
    CloseReport second = d.close(LONG);
    d.close();
    assertThat(second).isEqualTo(first);
    assertThat(first.clean()).isTrue();
    assertThat(closes).hasValue(1);
  }

  @Test
  void offersAfterCloseAreDroppedAndCounted() throws Exception {
    CapturingSink store = CapturingSink.create();
    Dispatcher d = start(Dispatcher.builder().sink(store));
    d.close(LONG);
    assertThat(d.offer(record("late"), false)).isFalse();
    assertThat(d.offer(record("late-error", Status.ERROR), true)).isFalse();
    assertThat(d.stats().droppedClosed()).isEqualTo(2);
    assertThat(d.stats().dropped()).isEqualTo(2);
    d.flush().get(30, SECONDS);
    assertThat(store.count()).isZero();
  }

  @Test
  void closeWithAStuckSinkReturnsAtItsTimeoutAndReportsWhatWasNotWritten() {
    GatedSink stuck = gate();
    Dispatcher d = start(Dispatcher.builder().sink(stuck));
    d.offer(record("held"), false);
    stuck.awaitEntered();
    for (int i = 0; i < 20; i++) {
      d.offer(record("q-" + i), false);
    }
    CompletableFuture<CloseReport> closing =
        CompletableFuture.supplyAsync(() -> d.close(Duration.ofMillis(100)));
    await().atMost(Duration.ofSeconds(20)).until(closing::isDone);

    CloseReport report = closing.join();
    assertThat(report.timedOut()).isTrue();
    assertThat(report.unwritten()).containsEntry("gated", 21L); // 20 queued + the batch the sink holds
    assertThat(report.clean()).isFalse();
    assertThat(d.offer(record("after"), false)).isFalse();
  }

  @Test
  void recordsLeftAtTheCloseDeadlineAreDiscardedAndReported() {
    GatedSink slowToStart = gate();
    Dispatcher d = start(Dispatcher.builder().sink(slowToStart).batchSize(1));
    d.offer(record("held"), false);
    slowToStart.awaitEntered();
    for (int i = 0; i < 5; i++) {
      d.offer(record("q-" + i), false);
    }
    CloseReport timedOut = d.close(Duration.ZERO);
    assertThat(timedOut.timedOut()).isTrue();
    slowToStart.open();
    // The worker, released after the deadline, writes nothing more and closes the sink.
    await().atMost(Duration.ofSeconds(20)).until(() -> slowToStart.closed);
    assertThat(ids(slowToStart.store)).containsExactly("held");
    assertThat(d.stats().queued()).isZero();
  }

  @Test
  void aTimedOutCloseReportsEveryRecordItDidNotWriteEvenWhileTheWorkerIsDiscarding() throws Exception {
    // The worker discards what is left at the same deadline at which close() stops waiting, so
    // close() reads its report while the discarding is under way: the count must not depend on it.
    CountDownLatch sinkClosed = new CountDownLatch(1);
    AtomicInteger written = new AtomicInteger();
    RecordSink slow =
        new RecordSink() {
          @Override
          public String name() {
            return "slow";
          }

          @Override
          public void write(List<InferenceRecord> batch) {
            long end = System.nanoTime() + 20_000;
            while (System.nanoTime() < end) {
              Thread.onSpinWait();
            }
            written.addAndGet(batch.size());
          }

          @Override
          public void close() {
            sinkClosed.countDown();
          }
        };
    Dispatcher d = start(Dispatcher.builder().sink(slow).queueCapacity(200_000).batchSize(1));
    int offered = 100_000;
    for (int i = 0; i < offered; i++) {
      assertThat(d.offer(record("r-" + i), false)).isTrue();
    }
    CloseReport report = d.close(Duration.ofMillis(50));
    assertThat(sinkClosed.await(30, SECONDS)).isTrue();

    // the deadline cut the close short: the worker either was still at it when close() returned or
    // finished right at the deadline by discarding what was left
    assertThat(report.timedOut() || report.discarded() > 0).as("%s", report).isTrue();
    long neverWritten = offered - written.get();
    assertThat(neverWritten).isPositive();
    // at most the one-record batch the sink was writing when close() returned and the one the worker
    // handed it at the deadline may have been written after the report was taken
    assertThat(report.unwritten().get("slow")).isBetween(neverWritten, neverWritten + 2);
    // the sink's counters froze when close gave up on it, at most one one-record batch before it
    // returned
    assertThat(d.stats().sinks().get("slow").written()).isBetween(written.get() - 2L, (long) written.get());
  }

  // ------------------------------------------------------------------ sink failures

  @Test
  void aSinkFailingEveryBatchDoesNotKeepRecordsFromTheOthers() throws Exception {
    CapturingSink good = CapturingSink.create();
    RecordSink failing =
        RecordSink.named(
            "failing",
            batch -> {
              throw new IOException("disk full");
            });
    Dispatcher d = start(Dispatcher.builder().sink(failing).sink(good));
    for (int i = 0; i < 1000; i++) {
      d.offer(record("r-" + i), false);
    }
    d.flush().get(30, SECONDS);

    assertThat(good.count()).isEqualTo(1000);
    DispatcherStats stats = d.stats();
    assertThat(stats.sinks()).containsOnlyKeys("failing", "memory");
    assertThat(stats.sinks().keySet()).containsExactly("failing", "memory");
    TracerStats.SinkStats f = stats.sinks().get("failing");
    assertThat(f.failures()).isPositive();
    assertThat(f.lostFailed()).isEqualTo(1000);
    assertThat(f.written()).isZero();
    assertThat(f.lastError()).isEqualTo("java.io.IOException: disk full");
    assertThat(stats.sinks().get("memory").written()).isEqualTo(1000);
    assertThat(stats.sinks().get("memory").failures()).isZero();
    assertThat(stats.sinks().get("memory").lost()).isZero();
  }

  @Test
  void aSinkThrowingErrorsIsIsolatedAndTheWorkerKeepsGoing() throws Exception {
    CapturingSink good = CapturingSink.create();
    AtomicInteger calls = new AtomicInteger();
    RecordSink broken =
        RecordSink.named(
            "broken",
            batch -> {
              if (calls.incrementAndGet() % 2 == 1) {
                throw new StackOverflowError("deep");
              }
              throw new OutOfMemoryError("huge buffer");
            });
    Dispatcher d = start(Dispatcher.builder().sink(broken).sink(good));
    d.offer(record("one"), false);
    d.flush().get(30, SECONDS);
    d.offer(record("two"), false);
    d.flush().get(30, SECONDS);

    assertThat(ids(good)).containsExactly("one", "two");
    TracerStats.SinkStats b = d.stats().sinks().get("broken");
    assertThat(b.failures()).isEqualTo(2);
    assertThat(b.lastError()).isEqualTo("java.lang.OutOfMemoryError: huge buffer");
  }

  @Test
  void aFatalJvmErrorInASinkStopsTheWorkerAndEverythingAfterIsCountedNotLost() throws Exception {
    RecordSink broken =
        RecordSink.named(
            "broken",
            batch -> {
              throw new InternalError("the JVM is broken");
            });
    Dispatcher d = start(Dispatcher.builder().sink(broken));
    d.offer(record("in-the-fatal-batch"), false);
    d.flush().get(30, SECONDS); // completed by the dying worker

    assertThat(d.offer(record("late"), false)).isFalse();
    assertThat(d.stats().droppedClosed()).isEqualTo(1);
    // a flush after the worker died still completes normally, as documented
    assertThat(d.flush().get(30, SECONDS)).isNull();
    CloseReport report = d.close(LONG);
    assertThat(report.timedOut()).isFalse();
    assertThat(report.unwritten()).as("the batch the sink died on").containsEntry("broken", 1L);
    assertThat(report.clean()).isFalse();
    DispatcherStats stats = d.stats();
    assertThat(stats.sinks().get("broken").written()).isZero();
    assertThat(stats.sinks().get("broken").lostFailed()).isEqualTo(1);
    assertThat(stats.sinks().get("broken").inFlight()).isZero();
    assertThat(stats.sinks().get("broken").lastError()).isEqualTo("java.lang.InternalError: the JVM is broken");
  }

  @Test
  void aSinkThatRecoversReceivesLaterBatches() throws Exception {
    CapturingSink store = CapturingSink.create();
    AtomicInteger calls = new AtomicInteger();
    RecordSink flaky =
        RecordSink.named(
            "flaky",
            batch -> {
              if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("connection reset");
              }
              store.write(batch);
            });
    Dispatcher d = start(Dispatcher.builder().sink(flaky));
    d.offer(record("lost"), false);
    d.flush().get(30, SECONDS);
    d.offer(record("kept"), false);
    d.flush().get(30, SECONDS);

    assertThat(ids(store)).containsExactly("kept");
    DispatcherStats stats = d.stats();
    assertThat(stats.sinks().get("flaky").failures()).isEqualTo(1);
    assertThat(stats.sinks().get("flaky").written()).isEqualTo(1);
    assertThat(stats.sinks().get("flaky").lostFailed()).isEqualTo(1);
  }

  @Test
  void flushAndCloseFailuresAreCountedAndReported() {
    RecordSink sink =
        new RecordSink() {
          @Override
          public String name() {
            return "unflushable";
          }

          @Override
          public void write(List<InferenceRecord> batch) {}

          @Override
          public void flush() throws IOException {
            throw new IOException("flush failed");
          }

          @Override
          public void close() throws IOException {
            throw new IOException("close failed");
          }
        };
    Dispatcher d = start(Dispatcher.builder().sink(sink));
    d.offer(record("a"), false);
    CloseReport report = d.close(LONG);
    assertThat(report.clean()).isFalse();
    assertThat(report.timedOut()).isFalse();
    assertThat(report.maxUnwritten()).isZero();
    assertThat(report.sinkFailures()).containsEntry("unflushable", "flush: java.io.IOException: flush failed");
    assertThat(d.stats().sinks().get("unflushable").failures()).isEqualTo(2);
    assertThat(d.stats().sinks().get("unflushable").lastError()).isEqualTo("java.io.IOException: close failed");
  }

  // ------------------------------------------------------------------ flush

  @Test
  void flushCompletesAfterTheRecordsReachedAndFlushedTheSink() throws Exception {
    FlushCountingSink sink = new FlushCountingSink();
    Dispatcher d = start(Dispatcher.builder().sink(sink).flushInterval(Duration.ofHours(1)));
    for (int i = 0; i < 300; i++) {
      d.offer(record("r-" + i), i % 7 == 0);
    }
    d.flush().get(30, SECONDS);
    assertThat(sink.store.count()).isEqualTo(300);
    assertThat(sink.flushesAfterLastWrite()).isPositive();
  }

  @Test
  void flushIntervalFlushesTheSinksAfterWrites() {
    FlushCountingSink sink = new FlushCountingSink();
    Dispatcher d = start(Dispatcher.builder().sink(sink).flushInterval(Duration.ofMillis(20)));
    d.offer(record("r"), false);
    await().atMost(Duration.ofSeconds(20)).until(() -> sink.flushesAfterLastWrite() > 0);
    assertThat(sink.store.count()).isEqualTo(1);
  }

  // ------------------------------------------------------------------ threading

  @Test
  void reentrantOffersFromASinkNeverWaitAndAreCountedWhenTheQueueIsFull() throws Exception {
    CapturingSink store = CapturingSink.create();
    List<Boolean> reentrantResults = new CopyOnWriteArrayList<>();
    Dispatcher[] self = new Dispatcher[1];
    RecordSink recording =
        RecordSink.named(
            "recording",
            batch -> {
              if (reentrantResults.isEmpty()) {
                // the worker has taken "outer-next" into this sink's slot: the queue holds only these
                await().atMost(Duration.ofSeconds(20)).until(() -> ((DefaultDispatcher) self[0]).holdsNextBatch(0));
                for (int i = 0; i < 5; i++) {
                  reentrantResults.add(self[0].offer(record("inner-" + i), false));
                }
              }
              store.write(batch);
            });
    self[0] =
        start(
            Dispatcher.builder()
                .sink(recording)
                .queueCapacity(2)
                .reservedCapacity(0)
                .batchSize(1)
                .policy(QueueFullPolicy.BLOCK)
                .blockTimeout(Duration.ofSeconds(10)));
    self[0].offer(record("outer"), false);
    self[0].offer(record("outer-next"), false);
    await().atMost(Duration.ofSeconds(20)).until(() -> store.count() == 4);

    assertThat(reentrantResults).containsExactly(true, true, false, false, false);
    assertThat(self[0].stats().droppedQueueFull()).isEqualTo(3);
    assertThat(self[0].stats().droppedBlockTimeout()).isZero();
    assertThat(ids(store)).containsExactly("outer", "outer-next", "inner-0", "inner-1");
  }

  @Test
  void oneDaemonThreadOfItsOwnWritesEveryBatchOfASink() throws Exception {
    Set<Thread> writers = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Dispatcher d =
        start(Dispatcher.builder().batchSize(3).sink(RecordSink.named("t", b -> writers.add(Thread.currentThread()))));
    for (int i = 0; i < 50; i++) {
      d.offer(record("r-" + i), false);
    }
    d.flush().get(30, SECONDS);
    assertThat(writers).hasSize(1);
    Thread worker = writers.iterator().next();
    assertThat(worker.getName()).isEqualTo("trtrace-dispatcher-sink-0");
    assertThat(worker.isDaemon()).isTrue();
  }

  @Test
  void offerOfNullIsRefusedWithoutThrowing() {
    Dispatcher d = start(Dispatcher.builder().sink(CapturingSink.create()));
    boolean accepted = d.offer(nullRecord(), false);
    assertThat(accepted).isFalse();
  }

  /** A null smuggled past the null-marked signature, as unchecked callers can. */
  private static InferenceRecord nullRecord() {
    return null;
  }

  @Test
  void shutdownHookIsRemovedByAnExplicitClose() {
    CapturingSink store = CapturingSink.create();
    Dispatcher d = start(Dispatcher.builder().sink(store).shutdownHook(true));
    d.offer(record("r"), false);
    assertThat(d.close(LONG).clean()).isTrue();
    assertThat(store.count()).isEqualTo(1);
  }

  // ------------------------------------------------------------------ configuration

  @Test
  void everyOptionIsValidatedWithAClearMessage() {
    Dispatcher.Builder b = Dispatcher.builder();
    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("at least one sink");
    assertThatThrownBy(() -> b.queueCapacity(0)).hasMessageContaining("queueCapacity must be between 1");
    assertThatThrownBy(() -> b.reservedCapacity(-1)).hasMessageContaining("reservedCapacity must be between 0");
    assertThatThrownBy(() -> b.batchSize(0)).hasMessageContaining("batchSize must be between 1");
    assertThatThrownBy(() -> b.blockTimeout(Duration.ofMillis(-1))).hasMessageContaining("blockTimeout must be zero or positive");
    assertThatThrownBy(() -> b.blockTimeout(Duration.ofMinutes(1))).hasMessageContaining("blockTimeout must be at most");
    assertThatThrownBy(() -> b.flushInterval(Duration.ZERO)).hasMessageContaining("flushInterval must be positive");
    assertThatThrownBy(() -> b.closeTimeout(Duration.ofDays(1))).hasMessageContaining("closeTimeout must be at most");
    assertThatThrownBy(() -> b.policy(null)).isInstanceOf(NullPointerException.class).hasMessage("policy");
    assertThatThrownBy(() -> b.sink(null)).isInstanceOf(NullPointerException.class).hasMessage("sink");
    assertThatThrownBy(() -> b.sink(RecordSink.named(" ", batch -> {}))).hasMessageContaining("sink name must not be blank");
    b.sink(RecordSink.named("a", batch -> {}));
    assertThatThrownBy(() -> b.sink(RecordSink.named("a", batch -> {})))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate sink name 'a'");
  }

  // ------------------------------------------------------------------ test sinks

  /** Blocks every write until opened; then keeps what it was given. */
  static final class GatedSink implements RecordSink {
    final CapturingSink store = CapturingSink.create();
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch gate = new CountDownLatch(1);
    volatile boolean closed;

    @Override
    public String name() {
      return "gated";
    }

    @Override
    public void write(List<InferenceRecord> batch) throws IOException {
      entered.countDown();
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted at the gate");
      }
      store.write(batch);
    }

    @Override
    public void close() {
      closed = true;
    }

    void awaitEntered() {
      await().atMost(Duration.ofSeconds(20)).until(() -> entered.getCount() == 0);
    }

    void open() {
      gate.countDown();
    }
  }

  /** Counts flushes that follow the latest write. */
  static final class FlushCountingSink implements RecordSink {
    final CapturingSink store = CapturingSink.create();
    private final AtomicInteger flushesAfterWrite = new AtomicInteger();

    @Override
    public String name() {
      return "flush-counting";
    }

    @Override
    public void write(List<InferenceRecord> batch) {
      store.write(batch);
      flushesAfterWrite.set(0);
    }

    @Override
    public void flush() {
      flushesAfterWrite.incrementAndGet();
    }

    int flushesAfterLastWrite() {
      return flushesAfterWrite.get();
    }
  }
}
