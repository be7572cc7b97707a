package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.slf4j.MDC;

class RequestContextConcurrencyTest {
  private static final int TASKS = 10_000;

  @Test
  @EnabledForJreRange(min = JRE.JAVA_21)
  void tenThousandVirtualThreadsEachSeeOnlyTheirOwnRequestAcrossParking() throws Exception {
    ConcurrentLinkedQueue<String> crossTalk = new ConcurrentLinkedQueue<>();
    CountDownLatch allInside = new CountDownLatch(TASKS);
    List<Thread> threads = new ArrayList<>(TASKS);
    for (int i = 0; i < TASKS; i++) {
      String id = "req-vt-" + i;
      threads.add(RequestContext.startVirtualThread(() -> RequestContext.with(id).run(() -> {
        check(id, "start", crossTalk);
        allInside.countDown();
        try {
          // every thread parks here until all 10,000 are inside their own context
          allInside.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          crossTalk.add(id + ": interrupted");
        }
        check(id, "after latch", crossTalk);
        Thread.yield();
        LockSupport.parkNanos(1_000);
        check(id, "after park", crossTalk);
        try (RequestContext.Scope nested = RequestContext.with(id + "-n").open()) {
          Thread.yield();
          check(id + "-n", "nested", crossTalk);
        }
        check(id, "after nested", crossTalk);
      })));
    }
    for (Thread t : threads) {
      t.join(TimeUnit.MINUTES.toMillis(2));
      assertThat(t.isAlive()).isFalse();
    }
    assertThat(crossTalk).isEmpty();
  }

  @Test
  void platformThreadPoolTasksEachSeeOnlyTheirOwnRequest() throws Exception {
    ConcurrentLinkedQueue<String> crossTalk = new ConcurrentLinkedQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      for (int i = 0; i < TASKS; i++) {
        String id = "req-pt-" + i;
        pool.execute(() -> {
          try (RequestContext.Scope scope = RequestContext.with(id).open()) {
            check(id, "start", crossTalk);
            Thread.yield();
            LockSupport.parkNanos(1_000);
            check(id, "after park", crossTalk);
            RequestContext.with(id + "-r").run(() -> {
              Thread.yield();
              check(id + "-r", "in run", crossTalk);
            });
            check(id, "after run", crossTalk);
          }
          if (!RequestContext.current().isEmpty() || MDC.get("request_id") != null) {
            crossTalk.add(id + ": context left on the pool thread");
          }
        });
      }
    } finally {
      pool.shutdown();
      assertThat(pool.awaitTermination(2, TimeUnit.MINUTES)).isTrue();
    }
    assertThat(crossTalk).isEmpty();
  }

  private static void check(String expected, String where, ConcurrentLinkedQueue<String> crossTalk) {
    String current = RequestContext.current().requestId();
    String mdc = MDC.get("request_id");
    if (!Objects.equals(expected, current) || !Objects.equals(expected, mdc)) {
      crossTalk.add(expected + " " + where + ": current=" + current + " mdc=" + mdc);
    }
  }
}
