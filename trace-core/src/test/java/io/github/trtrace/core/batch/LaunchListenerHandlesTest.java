package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@code onLaunch} gets each listener's handle of every member of the launch. The launch releases its members
 * before the listeners run, so a member may end meanwhile and, garbage-free, its trace object serve the next
 * request: the handles must be the ones of the request that was in the launch, for every listener alike, not
 * read from the (maybe reused) trace when each listener's turn comes.
 */
class LaunchListenerHandlesTest {

  /** A listener that keeps its handle per request and the handles each onLaunch got. */
  private static class Recording implements TraceListener {
    final Map<String, Handle> byRequest = new ConcurrentHashMap<>();
    final List<List<@Nullable Handle>> launches = new ArrayList<>();

    @Override
    public Handle onStart(InferenceTrace trace, long startEpochNanos) {
      Handle h = new Handle() {};
      byRequest.put(trace.requestId(), h);
      return h;
    }

    @Override
    public void onLaunch(SharedLaunch.Ended launch, List<@Nullable Handle> members) {
      launches.add(new ArrayList<>(members));
    }
  }

  @Test
  void everyListenerGetsTheHandleOfAMemberThatEndedAfterTheLaunchReleasedIt() throws Exception {
    CountDownLatch inFirstOnLaunch = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    Recording first = new Recording() {
      @Override
      public void onLaunch(SharedLaunch.Ended launch, List<@Nullable Handle> members) {
        super.onLaunch(launch, members);
        inFirstOnLaunch.countDown();
        try {
          goOn.await(10, TimeUnit.SECONDS); // req-1 ends and its trace object starts req-2 meanwhile
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    Recording second = new Recording();
    InferenceTracer tracer = new TracerFactory()
        .sink(RecordSink.named("memory", (List<InferenceRecord> rs) -> {}))
        .clocks(Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC), new AtomicLong(1)::get)
        .garbageFree(true)
        .shutdownHook(false)
        .listener(first)
        .listener(second)
        .build();
    Thread[] scheduler = new Thread[1];
    try {
      tracer.run("m", "req-1", h1 -> {
        scheduler[0] = new Thread(() -> {
          try (SharedLaunch l = tracer.launch("e")) {
            l.decode(h1).gpuMs(1);
          }
        }, "scheduler");
        scheduler[0].start();
        inFirstOnLaunch.await(10, TimeUnit.SECONDS); // the launch released req-1: its end does not wait
      });
      tracer.run("m", "req-2", h2 -> {
        goOn.countDown();
        scheduler[0].join(10_000);
      });
      assertThat(first.launches).containsExactly(List.of(first.byRequest.get("req-1")));
      assertThat(second.launches).as("the second listener's members")
          .containsExactly(List.of(second.byRequest.get("req-1")));
    } finally {
      goOn.countDown();
      tracer.close();
    }
  }
}
