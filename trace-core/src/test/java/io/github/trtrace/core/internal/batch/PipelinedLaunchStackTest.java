package io.github.trtrace.core.internal.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.sink.RecordSink;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * A pipelined scheduler: it opens launch n+1 before launch n's completion (another thread) closes n. Each
 * push finds the newest launch still open on top, so the launches closed elsewhere below it are never dropped
 * ({@link Launches.OpenStack#top()} only drops from the top): the opener's stack grows by one entry per launch
 * for as long as the pipeline never drains.
 */
class PipelinedLaunchStackTest {

  private static int depth() throws Exception {
    java.lang.reflect.Field current = Launches.class.getDeclaredField("CURRENT");
    current.setAccessible(true);
    Object stack = ((ThreadLocal<?>) current.get(null)).get();
    java.lang.reflect.Field depth = stack.getClass().getDeclaredField("depth");
    depth.setAccessible(true);
    return depth.getInt(stack);
  }

  @Test
  void launchesClosedElsewhereBelowAnOpenOneDoNotPileUpOnTheOpenersStack() throws Exception {
    ExecutorService completion = Executors.newSingleThreadExecutor();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(RecordSink.named("none", b -> {}))
        .shutdownHook(false).build()) {
      InferenceTrace member = tracer.start("m", "req-1");
      SharedLaunch previous = tracer.launch(null);
      previous.decode(member);
      for (int i = 0; i < 10_000; i++) {
        SharedLaunch next = tracer.launch(null); // enqueued before the previous one completed
        next.decode(tracer.start("m", "req-x" + i)); // not joined by req-1: it is in `previous`
        SharedLaunch done = previous;
        completion.submit(done::close).get(); // the completion callback of the previous launch
        previous = next;
      }
      int open = depth();
      assertThat(SharedLaunch.current()).isSameAs(previous);
      completion.submit(previous::close).get();
      System.out.printf("PipelinedLaunchStackTest: opener's stack depth %d with one launch open%n", open);
      assertThat(open).as("entries on the opener's stack with one launch open").isLessThanOrEqualTo(4);
    } finally {
      completion.shutdownNow();
    }
  }
}
