package io.github.trtrace.tensorrt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class ContextPoolTest {

  @Test
  void leaseBindsTheRequestToTheSlotUntilReturned() {
    ContextPool<String> pool = ContextPool.create(List.of("ctx-0", "ctx-1"));
    ContextPool.Lease<String> a = pool.borrow(Duration.ofSeconds(1), "req-a");
    ContextPool.Lease<String> b = pool.borrow(Duration.ofSeconds(1), "req-b");
    assertThat(List.of(a.context(), b.context())).containsExactlyInAnyOrder("ctx-0", "ctx-1");
    assertThat(pool.requestIdFor(a.slotId())).isEqualTo("req-a");
    assertThat(pool.requestIdFor(b.slotId())).isEqualTo("req-b");
    assertThat(a.requestId()).isEqualTo("req-a");
    a.close();
    a.close();
    assertThat(pool.requestIdFor(a.slotId())).isNull();
    assertThat(pool.requestIdFor(99)).isNull();
    assertThat(pool.stats()).isEqualTo(new ContextPoolStats(2, 0, 0, 1, 2));
    assertThatThrownBy(a::context).isInstanceOf(IllegalStateException.class).hasMessageContaining("already returned");
    b.close();
  }

  @Test
  void aPreferredSlotIsTakenWhenFreeAndAnyOtherWhenNot() {
    ContextPool<String> pool = ContextPool.create(List.of("ctx-0", "ctx-1", "ctx-2"));
    ContextPool.Lease<String> first = pool.borrow(Duration.ofSeconds(1), "req-a", 2);
    assertThat(first.slotId()).isEqualTo(2);
    ContextPool.Lease<String> busy = pool.borrow(Duration.ofSeconds(1), "req-b", 2);
    assertThat(busy.slotId()).isNotEqualTo(2);
    first.close();
    // returned to the tail of the queue, still taken first when preferred
    assertThat(pool.borrow(Duration.ofSeconds(1), "req-a", 2).slotId()).isEqualTo(2);
    assertThat(pool.borrow(Duration.ofSeconds(1), "req-c", 99).context()).isNotNull(); // out of range: none
  }

  @Test
  void borrowWithoutRequestContextHasNoRequestId() {
    ContextPool<String> pool = ContextPool.create(List.of("ctx"));
    try (ContextPool.Lease<String> lease = pool.borrow(Duration.ofMillis(10))) {
      assertThat(lease.requestId()).isNull();
    }
  }

  @Test
  void exhaustedPoolTimesOutWithAClearMessageAndCountsIt() {
    ContextPool<String> pool = ContextPool.create(List.of("only"));
    try (ContextPool.Lease<String> held = pool.borrow(Duration.ZERO, "req-1")) {
      assertThatThrownBy(() -> pool.borrow(Duration.ofMillis(1), "req-2"))
          .isInstanceOf(ContextPoolTimeoutException.class)
          .hasMessageContaining("no free execution context within 1 ms")
          .hasMessageContaining("all 1 slots are in use")
          .hasMessageContaining("req-2");
    }
    ContextPoolStats s = pool.stats();
    assertThat(s.waits()).isEqualTo(1);
    assertThat(s.timeouts()).isEqualTo(1);
    assertThat(s.inUse()).isZero();
  }

  @Test
  void aWaitingBorrowerGetsTheSlotWhenItIsReturned() throws Exception {
    ContextPool<String> pool = ContextPool.create(List.of("only"));
    ContextPool.Lease<String> held = pool.borrow(Duration.ZERO, "first");
    ExecutorService ex = Executors.newSingleThreadExecutor();
    try {
      Future<String> waiter = ex.submit(() -> {
        try (ContextPool.Lease<String> l = pool.borrow(Duration.ofSeconds(30), "second")) {
          return pool.requestIdFor(l.slotId());
        }
      });
      while (pool.stats().waits() == 0) {
        Thread.onSpinWait();
      }
      held.close();
      assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("second");
    } finally {
      ex.shutdownNow();
    }
  }

  /**
   * The closer (TracedEngine.close: close, then awaitIdle, then destroy the contexts) runs in the
   * window after a borrower took a slot: once awaitIdle has said "idle" the borrower must not get a
   * lease, or it would enqueue on a destroyed context. Failed before the borrower was counted first.
   */
  @Test
  void aBorrowerRacingCloseNeverGetsALeaseAfterTheCloserSawThePoolIdle() {
    ContextPool<String> pool = ContextPool.create(List.of("ctx-0"));
    boolean[] closerSawIdle = new boolean[1];
    pool.beforeCountHook(() -> {
      pool.close();
      closerSawIdle[0] = pool.awaitIdle(Duration.ZERO);
    });
    assertThatThrownBy(() -> pool.borrow(Duration.ofSeconds(1), "req-late"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(closerSawIdle[0]).isTrue();
    assertThat(pool.stats().inUse()).isZero();
    assertThat(pool.stats().borrows()).isZero();
  }

  /** The other order: the borrower is counted before the closer looks, so the closer waits for it. */
  @Test
  void aCloserRacingACountedBorrowerWaitsForItsLease() {
    ContextPool<String> pool = ContextPool.create(List.of("ctx-0"));
    ContextPool.Lease<String> lease = pool.borrow(Duration.ofSeconds(1), "req-a");
    pool.close();
    assertThat(pool.awaitIdle(Duration.ZERO)).isFalse();
    lease.close();
    assertThat(pool.awaitIdle(Duration.ZERO)).isTrue();
  }

  @Test
  void closedPoolRefusesBorrows() {
    ContextPool<String> pool = ContextPool.create(List.of("x"));
    pool.close();
    assertThatThrownBy(() -> pool.borrow(Duration.ZERO, null)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> ContextPool.create(List.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Property(tries = 15)
  void concurrentBorrowersNeverShareASlotAndAttributionStaysCorrect(
      @ForAll @IntRange(min = 1, max = 4) int slots, @ForAll @IntRange(min = 1, max = 6) int threads) throws Exception {
    List<Integer> contexts = new ArrayList<>();
    for (int i = 0; i < slots; i++) {
      contexts.add(i);
    }
    ContextPool<Integer> pool = ContextPool.create(contexts);
    AtomicIntegerArray holders = new AtomicIntegerArray(slots);
    AtomicInteger violations = new AtomicInteger();
    int perThread = 200;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService ex = Executors.newFixedThreadPool(threads);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      done.add(ex.submit(() -> {
        start.await();
        for (int i = 0; i < perThread; i++) {
          String req = "req-" + id + "-" + i;
          try (ContextPool.Lease<Integer> l = pool.borrow(Duration.ofSeconds(30), req)) {
            if (!holders.compareAndSet(l.context(), 0, 1)) {
              violations.incrementAndGet();
            }
            if (!req.equals(pool.requestIdFor(l.slotId())) || l.context() != l.slotId()) {
              violations.incrementAndGet();
            }
            holders.set(l.context(), 0);
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    ex.shutdown();
    assertThat(violations).hasValue(0);
    ContextPoolStats s = pool.stats();
    assertThat(s.borrows()).isEqualTo((long) threads * perThread);
    assertThat(s.inUse()).isZero();
    assertThat(s.maxInUse()).isBetween(1, Math.min(slots, threads));
    assertThat(s.timeouts()).isZero();
  }
}
