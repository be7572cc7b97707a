package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.internal.batch.BatchMember;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * MemberState.join takes the holder first and checks the member's state after: a stale garbage-free handle
 * thus holds the NEXT request's state for a moment (in production the second check waits on the trace's
 * monitor). The member here is req-1's handle, seen through a proxy that only stops the launch thread at its
 * two batchState() calls: (1) after its first look, while req-1 is live; (2) at the re-check, after the take.
 */
class StaleJoinHoldTest {

  /** The pooled trace behind a garbage-free handle (TraceHandle.trace, package-private). */
  private static Object traceOf(InferenceTrace handle) throws ReflectiveOperationException {
    java.lang.reflect.Field f = handle.getClass().getDeclaredField("trace");
    f.setAccessible(true);
    return f.get(handle);
  }

  @Test
  void aStaleHandlesRefusedJoinDoesNotMakeTheNextRequestsSlotWaitMisuse() throws Exception {
    List<InferenceRecord> records = new CopyOnWriteArrayList<>();
    AtomicLong nanos = new AtomicLong(1_000_000_000L);
    InferenceTracer tracer = new TracerFactory()
        .sink(RecordSink.named("memory", records::addAll))
        .clocks(Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC), nanos::get)
        .garbageFree(true)
        .shutdownHook(false)
        .build();
    CountDownLatch looked = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    CountDownLatch inRecheck = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    Thread[] scheduler = new Thread[1];
    long before = tracer.stats().misuse();
    try {
      tracer.run("m", "req-1", h1 -> {
        Object member = Proxy.newProxyInstance(StaleJoinHoldTest.class.getClassLoader(),
            new Class<?>[] {InferenceTrace.class, BatchMember.class}, (p, m, args) -> {
              if (m.getName().equals("batchState")) {
                int n = calls.incrementAndGet();
                if (n == 2) {
                  inRecheck.countDown();
                  if (!Thread.holdsLock(traceOf(h1))) { // checked under the trace's monitor: req-2 cannot come in between
                    finish.await(10, TimeUnit.SECONDS);
                  }
                }
                Object st = ((BatchMember) h1).batchState();
                if (n == 1) {
                  looked.countDown();
                  goOn.await(10, TimeUnit.SECONDS);
                }
                return st;
              }
              try {
                return m.invoke(h1, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
        scheduler[0] = new Thread(() -> {
          try (SharedLaunch l = tracer.launch(null)) {
            l.decode((InferenceTrace) member); // req-1's handle: stale by the time it joins
          }
        }, "scheduler");
        scheduler[0].start();
        looked.await(10, TimeUnit.SECONDS);
      });
      // req-1 ended; its pooled trace serves req-2, admitted and waiting for a slot
      tracer.run("m", "req-2", t -> {
        goOn.countDown();
        inRecheck.await(10, TimeUnit.SECONDS); // the launch holds req-2's state, about to find req-1 stale
        t.waitingForSlot();
        finish.countDown();
        scheduler[0].join(10_000);
        // counted from before req-1 and read once the launch thread is done: the launch thread counts its refusal
        // of the stale handle as it leaves the join, before or after req-2's mark (a count read around the mark
        // alone raced with it)
        long misuse = tracer.stats().misuse() - before;
        nanos.addAndGet(5_000_000);
        assertThat(misuse).as("misuse: the stale handle's refused join only, none for req-2's own waitingForSlot()")
            .isEqualTo(1);
      });
      tracer.flush().join();
      InferenceRecord r2 = records.stream().filter(r -> r.requestId().equals("req-2")).findFirst().orElseThrow();
      assertThat(r2.batching()).as("req-2's batching figures (its 5 ms slot wait)").isNotNull();
    } finally {
      goOn.countDown();
      finish.countDown();
      tracer.close();
    }
  }
}
