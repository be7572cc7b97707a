package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.sink.CapturingSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.slf4j.MDC;

/**
 * 10,000 requests on 10,000 virtual threads, each traced under its own request ID: every record's
 * request_id is its own thread's, with zero cross-talk, under whichever context storage is active.
 */
class TracerOnVirtualThreadsTest {

  @Test
  @EnabledForJreRange(min = JRE.JAVA_21)
  void everyRecordCarriesTheIdOfTheVirtualThreadThatTracedIt() throws Exception {
    int n = 10_000;
    CapturingSink sink = CapturingSink.create();
    List<String> mdcMismatches = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService vts = RequestContext.newVirtualThreadPerTaskExecutor();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).queueCapacity(n).build()) {
      List<Future<?>> futures = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        String id = "req-vt-" + i;
        futures.add(vts.submit(() -> RequestContext.with(id).run(() -> {
          try (InferenceTrace t = tracer.start("m")) {
            t.attribute("thread_request", id);
            try (var s = t.stage(Stage.DECODE)) {
              LockSupport.parkNanos(100_000); // unmount and remount, maybe on another carrier
              Thread.yield();
              t.token();
            }
            if (!id.equals(MDC.get("request_id"))) {
              mdcMismatches.add(id + " saw " + MDC.get("request_id"));
            }
          }
        })));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
      tracer.flush().get(30, TimeUnit.SECONDS);
      assertThat(sink.awaitCount(n, Duration.ofSeconds(30))).isTrue();
    } finally {
      vts.shutdown();
      vts.awaitTermination(30, TimeUnit.SECONDS);
    }
    assertThat(mdcMismatches).isEmpty();
    List<InferenceRecord> records = sink.records();
    assertThat(records).hasSize(n);
    assertThat(records).allSatisfy(r -> assertThat(r.requestId()).isEqualTo(r.attributes().get("thread_request")));
    assertThat(records).extracting(InferenceRecord::requestId).doesNotHaveDuplicates();
  }
}
