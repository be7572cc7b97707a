package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.sink.RecordSink;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Stress: a scheduler thread uses the handle of whatever request a garbage-free caller serves (often a
 * handle whose request just ended). TraceHandle.batchState() checks isLive and then returns the pooled
 * trace's MemberState, which is the same object for the next request once init reset it; waitingForSlot and
 * preempted check the generation and then mark the state outside the monitor. Any of these landing on the
 * next request shows as batching figures on a record the scheduler never touched.
 */
class StaleHandleBatchStateRaceTest {
  private static final int MAX = Integer.getInteger("race.max", 2_000_000);

  @Test
  void aStaleHandleNeverPutsBatchingFiguresOnTheNextRequest() throws Exception {
    long seconds = Long.getLong("race.seconds", 3);
    int[] opsToRun = System.getProperty("race.ops", "012").chars().map(c -> c - '0').toArray();
    ConcurrentLinkedQueue<Object[]> batched = new ConcurrentLinkedQueue<>();
    int[] joins = new int[MAX];
    int[] slotWaits = new int[MAX];
    int[] preempts = new int[MAX];
    AtomicReference<InferenceTrace> published = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    long[] served = new long[1];
    long[] ops = new long[1];
    try (InferenceTracer tracer = InferenceTracer.builder()
        .sink(RecordSink.named("check", (List<InferenceRecord> records) -> {
          for (InferenceRecord r : records) {
            SharedLaunch.Summary b = r.batching();
            if (b != null) {
              batched.add(new Object[] {r.requestId(), b.launchCount(), b.slotWaitMs(), b.preemptions()});
            }
          }
        }))
        .garbageFree(true).build()) {
      Thread caller = new Thread(() -> {
        int i = 0;
        while (!stop.get() && i < MAX) {
          tracer.run("m", "r" + i, published::set);
          i++;
        }
        served[0] = i;
      }, "caller");
      Thread scheduler = new Thread(() -> {
        long n = 0;
        while (!stop.get()) {
          InferenceTrace h = published.get();
          if (h == null) {
            continue;
          }
          String before = h.requestId();
          int op = opsToRun[(int) (n++ % opsToRun.length)];
          if (op == 0) {
            try (SharedLaunch l = tracer.launch(null)) {
              l.decode(h);
            }
          } else if (op == 1) {
            h.waitingForSlot();
          } else {
            h.preempted("p");
          }
          String after = h.requestId();
          for (String id : before.equals(after) ? List.of(before) : List.of(before, after)) {
            int k = Integer.parseInt(id.substring(1));
            int[] a = op == 0 ? joins : op == 1 ? slotWaits : preempts;
            a[k]++;
          }
        }
        ops[0] = n;
      }, "scheduler");
      Thread noise = new Thread(() -> {
        long x = 0;
        while (!stop.get()) {
          x += System.nanoTime() & 1; // keeps a third thread runnable: the OS time-slices the two above
        }
        if (x == 42) {
          System.out.print("");
        }
      }, "noise");
      caller.start();
      scheduler.start();
      noise.start();
      Thread.sleep(seconds * 1000);
      stop.set(true);
      caller.join();
      scheduler.join();
      noise.join();
      tracer.flush().join();
    }
    StringBuilder wrong = new StringBuilder();
    int count = 0;
    int launchCount = 0;
    for (Object[] r : batched) {
      String id = (String) r[0];
      int k = Integer.parseInt(id.substring(1));
      int launches = (Integer) r[1];
      double slotWaitMs = (Double) r[2];
      int preemptions = (Integer) r[3];
      boolean badLaunch = launches > joins[k];
      boolean badMark = (slotWaitMs > 0 && slotWaits[k] == 0) || preemptions > preempts[k];
      if (badLaunch) {
        launchCount++;
      }
      if (badLaunch || badMark) {
        count++;
        if (count <= 10) {
          wrong.append(String.format("%n  %s: %d launches (%d joins tried), slotWait %.4f ms (%d marks), "
              + "%d preemptions (%d marks)", id, launches, joins[k], slotWaitMs, slotWaits[k], preemptions, preempts[k]));
        }
      }
    }
    System.out.printf("StaleHandleBatchStateRaceTest: %d requests, %d scheduler ops, %d records with batching, %d wrong"
        + " (%d with a launch joined through a stale handle)%s%n", served[0], ops[0], batched.size(), count, launchCount, wrong);
    assertThat(count).as("records carrying batching figures of a stale handle's call:%s", wrong).isZero();
  }
}
