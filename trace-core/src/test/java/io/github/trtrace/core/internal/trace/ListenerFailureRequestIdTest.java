package io.github.trtrace.core.internal.trace;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.reflect.Field;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A listener's handle that throws is reported with the request ID of its trace. In garbage-free mode the
 * trace object serves the next request as soon as the last one ended; a callback that runs after the
 * trace's monitor was released (here an {@code onEvent} sent from a task of req-1) and throws once req-1
 * ended and the trace serves req-2 must still be reported for req-1: it was read from the pooled trace.
 */
class ListenerFailureRequestIdTest {

  /** Lets the next warning of the tracer's rate-limited logger through (another test may have used it). */
  private static void resetRateLimit() throws ReflectiveOperationException {
    Field log = TraceServices.class.getDeclaredField("LOG");
    log.setAccessible(true);
    Field next = RateLimitedLogger.class.getDeclaredField("nextAllowed");
    next.setAccessible(true);
    ((AtomicLong) next.get(log.get(null))).set(Long.MIN_VALUE);
  }

  @Test
  void aListenerFailingAfterTheTraceWasReusedIsReportedForItsOwnRequest() throws Exception {
    CountDownLatch inOnEvent = new CountDownLatch(1);
    CountDownLatch fail = new CountDownLatch(1);
    InferenceTracer tracer = new TracerFactory()
        .sink(RecordSink.named("memory", (List<InferenceRecord> rs) -> {}))
        .clocks(Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC), new AtomicLong(1)::get)
        .garbageFree(true)
        .shutdownHook(false)
        .listener((InferenceTrace trace, long start) -> new TraceListener.Handle() {
          @Override
          public void onEvent(InferenceRecord.Event event, Object stageState) {
            if (event.message().equals("boom")) {
              inOnEvent.countDown();
              try {
                fail.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              throw new IllegalStateException("listener broke");
            }
          }
        })
        .build();
    Logger logger = (Logger) LoggerFactory.getLogger("io.github.trtrace.tracer");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    Thread[] task = new Thread[1];
    Object[] traces = new Object[2];
    try {
      tracer.run("m", "req-1", h1 -> {
        traces[0] = ((TraceHandle) h1).trace();
        task[0] = new Thread(() -> h1.event("k", "INFO", "boom"), "task-of-req-1");
        task[0].start();
        inOnEvent.await(10, TimeUnit.SECONDS); // req-1's onEvent is running, outside the trace's monitor
      }); // req-1 ends; its trace object goes back to the pool
      tracer.run("m", "req-2", h2 -> {
        traces[1] = ((TraceHandle) h2).trace();
        resetRateLimit();
        fail.countDown(); // req-1's listener throws now, while its trace object serves req-2
        task[0].join(10_000);
      });
      assertThat(traces[1]).as("req-2 reuses req-1's trace object").isSameAs(traces[0]);
      List<String> failures = appender.list.stream()
          .map(ILoggingEvent::getFormattedMessage)
          .filter(m -> m.contains("listener broke"))
          .collect(Collectors.toList());
      assertThat(failures).hasSize(1);
      assertThat(failures.get(0)).contains("on trace req-1 ").doesNotContain("req-2");
    } finally {
      fail.countDown();
      logger.detachAppender(appender);
      tracer.close();
    }
  }
}
