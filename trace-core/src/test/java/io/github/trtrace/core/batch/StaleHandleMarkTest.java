package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Garbage-free mode: waitingForSlot() and preempted() of a handle check its generation under the trace's
 * monitor, then read the clock and mark the trace's batching state outside it. The state object stays with the
 * pooled trace: should the request end and the trace serve the next one meanwhile, the mark lands on that one.
 */
class StaleHandleMarkTest {

  private Map<String, InferenceRecord> lateMark(Consumer<InferenceTrace> mark) throws Exception {
    List<InferenceRecord> records = new CopyOnWriteArrayList<>();
    AtomicLong nanos = new AtomicLong(1_000_000_000L);
    CountDownLatch inClock = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    InferenceTracer tracer = new TracerFactory()
        .sink(RecordSink.named("memory", records::addAll))
        .clocks(Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC), () -> {
          if (Thread.currentThread().getName().equals("late-task")) {
            inClock.countDown(); // past the checks: the mark's time is read
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return nanos.get();
        })
        .garbageFree(true)
        .shutdownHook(false)
        .build();
    // Fixed, the mark is made under the trace's monitor: req-1's end then waits for the late task, which
    // this watcher lets go as soon as the caller is blocked on it (unfixed, req-2's body lets it go)
    Thread caller = Thread.currentThread();
    Thread watcher = new Thread(() -> {
      while (release.getCount() > 0) {
        java.lang.management.ThreadInfo info =
            java.lang.management.ManagementFactory.getThreadMXBean().getThreadInfo(caller.getId());
        if (info != null && info.getThreadState() == Thread.State.BLOCKED && "late-task".equals(info.getLockOwnerName())) {
          release.countDown();
        }
        Thread.onSpinWait();
      }
    }, "watcher");
    watcher.setDaemon(true);
    watcher.start();
    try {
      Thread[] late = new Thread[1];
      tracer.run("m", "req-1", t -> {
        late[0] = new Thread(() -> mark.accept(t), "late-task"); // a task of req-1, still scheduling it
        late[0].start();
        inClock.await(10, TimeUnit.SECONDS);
      });
      // req-1 ended; its pooled trace (and batching state) serves req-2, which is never preempted nor waits
      tracer.run("m", "req-2", t -> {
        release.countDown();
        late[0].join(10_000);
        nanos.addAndGet(5_000_000);
      });
      tracer.flush().join();
      return records.stream().collect(Collectors.toMap(InferenceRecord::requestId, r -> r));
    } finally {
      release.countDown();
      tracer.close();
    }
  }

  @Test
  void aLatePreemptionOfTheLastRequestIsNotTheNextOnes() throws Exception {
    Map<String, InferenceRecord> r = lateMark(t -> t.preempted("evicted"));
    assertThat(r.get("req-2").batching()).as("req-2's batching figures").isNull();
  }

  @Test
  void aLateSlotWaitOfTheLastRequestIsNotTheNextOnes() throws Exception {
    Map<String, InferenceRecord> r = lateMark(InferenceTrace::waitingForSlot);
    assertThat(r.get("req-2").batching()).as("req-2's batching figures").isNull();
  }
}
