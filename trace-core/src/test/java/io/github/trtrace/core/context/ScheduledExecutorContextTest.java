package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * A service's timers (a watchdog for a slow generation, a periodic progress log) on a scheduled executor wrapped
 * with {@link RequestContext#wrap(ScheduledExecutorService)}: each task, and each run of a periodic one, sees the
 * request it was scheduled for, in the context and in the MDC, and leaves nothing on the pool's thread.
 */
class ScheduledExecutorContextTest {

  @Test
  void scheduledAndPeriodicTasksRunUnderTheContextTheyWereScheduledIn() throws Exception {
    ScheduledExecutorService timers = RequestContext.wrap(Executors.newSingleThreadScheduledExecutor());
    try {
      List<String> seen = new CopyOnWriteArrayList<>();
      CountDownLatch periodic = new CountDownLatch(3);
      ScheduledFuture<String> called;
      ScheduledFuture<?> repeating;
      try (RequestContext.Scope s = RequestContext.with("req-timer-1").build().open()) {
        timers.schedule(() -> seen.add("run " + RequestContext.current().requestId() + " " + MDC.get("request_id")),
            1, TimeUnit.MILLISECONDS);
        called = timers.schedule(() -> RequestContext.current().requestId(), 1, TimeUnit.MILLISECONDS);
        repeating = timers.scheduleAtFixedRate(() -> {
          seen.add("tick " + RequestContext.current().requestId());
          periodic.countDown();
        }, 0, 1, TimeUnit.MILLISECONDS);
      }
      assertThat(called.get(10, TimeUnit.SECONDS)).isEqualTo("req-timer-1");
      assertThat(periodic.await(10, TimeUnit.SECONDS)).isTrue();
      repeating.cancel(false);
      // a task submitted with no request current runs with none, on the same pool thread after the others
      String after = timers.submit(() -> RequestContext.current().requestId() + " " + MDC.get("request_id"))
          .get(10, TimeUnit.SECONDS);
      assertThat(seen).contains("run req-timer-1 req-timer-1").contains("tick req-timer-1");
      assertThat(seen).allMatch(s -> s.endsWith("req-timer-1"));
      assertThat(after).isEqualTo("null null");
      assertThat(RequestContext.wrap(timers)).isSameAs(timers);
    } finally {
      timers.shutdownNow();
    }
  }
}
