package io.github.trtrace.core;

import io.github.trtrace.core.internal.trace.TracerFactory;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.core.sink.CapturingSink;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.MDC;

/**
 * Issue 10's reuse: pooled record entries (every tracer) and reused call/run traces ({@code
 * garbageFree(true)}). Misuse of a trace after its end is ignored and counted, never written into a
 * record; counting stays exact.
 */
class GarbageFreeModeTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Clock wall = Clock.fixed(Instant.parse("2026-11-30T08:00:00.123456Z"), ZoneOffset.UTC);
  private final CapturingSink sink = CapturingSink.create();

  @AfterEach
  void nothingLeftCurrent() {
    assertThat(RequestContext.current().isEmpty()).isTrue();
    assertThat(MDC.get("request_id")).isNull();
  }

  private InferenceTracer tracer(boolean garbageFree) {
    return new TracerFactory().sink(sink).clocks(wall, nanos::get).garbageFree(garbageFree).build();
  }

  private InferenceRecord record(String requestId) {
    return sink.records().stream().filter(r -> r.requestId().equals(requestId)).findFirst().orElseThrow();
  }

  @ParameterizedTest(name = "garbageFree={0}")
  @ValueSource(booleans = {false, true})
  void callsAfterCloseInsideTheBodyAreCountedAndNotRecorded(boolean garbageFree) {
    try (InferenceTracer tracer = tracer(garbageFree)) {
      tracer.run("m", "req-a", t -> {
        t.outputTokens(5).attribute("before", "1");
        t.close();
        t.attribute("after", "2").outputTokens(9).finishReason("late");
        t.stage(Stage.DECODE).close();
      });
      tracer.run("m", "req-b", t -> t.outputTokens(7));
      tracer.flush().join();
      // 3 calls after close, stage() after close, and run's own close (ended twice)
      assertThat(tracer.stats().misuse()).isEqualTo(5);
      assertThat(record("req-a").attributes()).containsExactly(java.util.Map.entry("before", "1"));
      assertThat(record("req-a").outputTokens()).isEqualTo(5);
      assertThat(record("req-a").finishReason()).isNull();
      InferenceRecord b = record("req-b");
      assertThat(b.outputTokens()).isEqualTo(7);
      assertThat(b.attributes()).isEmpty();
      assertThat(b.finishReason()).isNull();
      assertThat(b.decodeMs()).isNaN();
    }
  }

  @ParameterizedTest(name = "garbageFree={0}")
  @ValueSource(booleans = {false, true})
  void aTraceKeptPastTheBodyIsIgnoredUntilTheNextCall(boolean garbageFree) {
    AtomicReference<InferenceTrace> leaked = new AtomicReference<>();
    try (InferenceTracer tracer = tracer(garbageFree)) {
      tracer.run("m", "req-a", t -> {
        leaked.set(t);
        t.inputTokens(3);
      });
      leaked.get().attribute("stale", "x").inputTokens(99);
      InferenceTrace.StageTimer stale = leaked.get().stage(Stage.INFER);
      stale.close();
      tracer.run("m", "req-b", t -> t.inputTokens(4));
      tracer.flush().join();
      assertThat(tracer.stats().misuse()).isEqualTo(3);
      assertThat(record("req-a").inputTokens()).isEqualTo(3);
      assertThat(record("req-a").attributes()).isEmpty();
      assertThat(record("req-b").inputTokens()).isEqualTo(4);
      assertThat(record("req-b").attributes()).isEmpty();
      assertThat(record("req-b").inferMs()).isNaN();
    }
  }

  @Test
  void withoutGarbageFreeModeALeakedTraceNeverReachesALaterRequest() {
    AtomicReference<InferenceTrace> leaked = new AtomicReference<>();
    try (InferenceTracer tracer = tracer(false)) {
      tracer.run("m", "req-a", leaked::set);
      tracer.run("m", "req-b", t -> leaked.get().attribute("stale", "x").outputTokens(99));
      tracer.flush().join();
      assertThat(tracer.stats().misuse()).isEqualTo(2);
      assertThat(record("req-b").attributes()).isEmpty();
      assertThat(record("req-b").outputTokens()).isEqualTo(-1);
    }
  }

  /**
   * The pooled trace behind a garbage-free body is reused once ended (the 0-byte figure of {@code
   * GarbageFreeTest} depends on it), but what the body holds is a handle of one request (issue 19 §2):
   * every request's body, nested or on another thread, sees its own handle.
   */
  @Test
  void garbageFreeModeGivesEachRequestItsOwnHandle() throws Exception {
    List<InferenceTrace> seen = new CopyOnWriteArrayList<>();
    try (InferenceTracer tracer = tracer(true)) {
      tracer.run("m", "req-1", seen::add);
      tracer.run("m", "req-2", t -> {
        seen.add(t);
        tracer.run("m", "req-nested", seen::add); // nested: a second object, the outer one is in use
      });
      Thread other = new Thread(() -> tracer.run("m", "req-other", seen::add));
      other.start();
      other.join();
      tracer.flush().join();
      assertThat(seen).doesNotHaveDuplicates();
      assertThat(seen).extracting(InferenceTrace::requestId)
          .containsExactly("req-1", "req-2", "req-nested", "req-other");
      assertThat(seen.get(0).isEnded()).isTrue();
      assertThat(sink.records()).extracting(InferenceRecord::requestId)
          .containsExactlyInAnyOrder("req-1", "req-nested", "req-2", "req-other");
      assertThat(tracer.stats().misuse()).isZero();
    }
    try (InferenceTracer off = tracer(false)) {
      List<InferenceTrace> fresh = new CopyOnWriteArrayList<>();
      off.run("m", "req-3", fresh::add);
      off.run("m", "req-4", fresh::add);
      assertThat(fresh.get(1)).isNotSameAs(fresh.get(0));
    }
  }

  /**
   * A body that lets another thread end its trace and returns while that close is still under way
   * (against the reuse rule, yet easy to write: a task completes the body's future, then closes the
   * trace). The trace must not go back to the pool before its close has finished: the next call/run
   * would otherwise fill the entry that this close is about to hand off (one record with two
   * requests' data, the other record lost, the entry queued twice and pooled twice).
   */
  @Test
  void aTraceIsReusedOnlyOnceItsCloseHasFinished() throws Exception {
    CountDownLatch insideClose = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    Sampler always = Sampler.always();
    Sampler pausingOnce = new Sampler() {
      @Override
      public String decide(String modelName, Status status, double latencyMs) {
        if (first.compareAndSet(true, false)) {
          insideClose.countDown();
          try {
            resume.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return always.decide(modelName, status, latencyMs);
      }

      @Override
      public io.github.trtrace.core.sampling.Sampler.Stats stats() {
        return always.stats();
      }
    };
    Thread[] closer = new Thread[1];
    try (InferenceTracer tracer = new TracerFactory().sink(sink).clocks(wall, nanos::get)
        .sampler(pausingOnce).garbageFree(true).build()) {
      tracer.run("m", "req-a", t -> {
        t.inputTokens(1);
        closer[0] = new Thread(t::close, "closer");
        closer[0].start();
        insideClose.await(20, TimeUnit.SECONDS); // the other thread is inside close(), past the end
      });
      tracer.run("m", "req-b", t -> t.inputTokens(2));
      resume.countDown();
      closer[0].join(20_000);
      tracer.flush().join();
      assertThat(sink.records()).extracting(InferenceRecord::requestId).containsExactlyInAnyOrder("req-a", "req-b");
      assertThat(record("req-a").inputTokens()).isEqualTo(1);
      assertThat(record("req-b").inputTokens()).isEqualTo(2);
      assertThat(tracer.stats().misuse()).as("run's own close: ended twice").isEqualTo(1);
    }
  }

  @Test
  void aReusedTraceStartsEachRequestFromScratch() {
    try (InferenceTracer tracer = tracer(true)) {
      tracer.run("m", "req-full", t -> {
        t.runStage(Stage.QUEUE, () -> nanos.addAndGet(2_000_000));
        t.inputTokens(1).maxTokens(2).temperature(0.5).topP(0.5).finishReason("stop").engineFingerprint("fp");
        t.token();
        t.token();
        t.addGpuMs(1).attribute("k", "v").traceContext("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
        t.event("kind", "info", "message");
        t.error("Boom");
      });
      tracer.run("m", "req-empty", t -> {});
      tracer.flush().join();
      InferenceRecord full = record("req-full");
      assertThat(full.status()).isEqualTo(Status.ERROR);
      assertThat(full.queueMs()).isEqualTo(2.0);
      assertThat(full.events()).hasSize(1);
      InferenceRecord empty = record("req-empty");
      InferenceRecord expected = InferenceRecord.builder("req-empty", "m")
          .timestamp(wall.instant()).latencyMs(0).sampledReason(Sampler.SAMPLED).build();
      assertThat(io.github.trtrace.core.RecordConvention.toJson(empty))
          .isEqualTo(io.github.trtrace.core.RecordConvention.toJson(expected));
    }
  }

  @ParameterizedTest(name = "garbageFree={0}")
  @ValueSource(booleans = {false, true})
  void theBodySeesItsRequestInTheContextAndTheMdc(boolean garbageFree) {
    try (InferenceTracer tracer = tracer(garbageFree)) {
      for (String id : List.of("req-x", "req-y")) {
        tracer.run("llama", id, t -> {
          assertThat(RequestContext.current().requestId()).isEqualTo(id);
          assertThat(RequestContext.current().modelName()).isEqualTo("llama");
          assertThat(MDC.get("request_id")).isEqualTo(id);
          assertThat(MDC.get("model_name")).isEqualTo("llama");
        });
      }
      try (RequestContext.Scope outer = RequestContext.with("req-outer").model("llama").open()) {
        tracer.run("other-model", t -> {
          assertThat(t.requestId()).isEqualTo("req-outer");
          assertThat(RequestContext.current().modelName()).isEqualTo("other-model");
        });
        assertThat(MDC.get("request_id")).isEqualTo("req-outer");
        assertThat(MDC.get("model_name")).isEqualTo("llama");
      }
    }
  }

  /**
   * The worker builds the record straight from the entry; with a listener it is built on the caller
   * through {@code InferenceRecord.Builder}. Both must write the same line.
   */
  @Test
  void theWorkersRecordIsTheBuildersRecord() {
    CapturingSink viaBuilder = CapturingSink.create();
    TraceListener noop = (t, s) -> TraceListener.Handle.NOOP;
    try (InferenceTracer direct = tracer(true);
        InferenceTracer built = new TracerFactory().sink(viaBuilder).clocks(wall, nanos::get).listener(noop).build()) {
      for (InferenceTracer tracer : List.of(direct, built)) {
        tracer.run("llama", "req-same", t -> {
          t.runStage(Stage.QUEUE, () -> nanos.addAndGet(1_000_000));
          t.input("hi\u202e").output("\ufffd").inputTokens(5).maxTokens(9).temperature(0.2).topP(0.3);
          t.runStage(Stage.INFER, () -> nanos.addAndGet(2_000_000));
          t.token();
          nanos.addAndGet(1_000_000);
          t.token();
          t.addGpuMs(1.5).finishReason("length").engineFingerprint("fp").attribute("b", "2").attribute("a", "1");
          t.attribute("b", "3").traceContext("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
          t.event("tensorrt.warning", "warning", "slow kernel");
          t.layers(List.of(new InferenceRecord.LayerTime("conv1", 0.5, 2)));
          t.status(Status.TIMEOUT);
        });
        tracer.flush().join();
      }
      String fromEntry = io.github.trtrace.core.RecordConvention.toJson(sink.records().get(0));
      assertThat(fromEntry).isEqualTo(io.github.trtrace.core.RecordConvention.toJson(viaBuilder.records().get(0)));
      assertThat(fromEntry).contains("\"attributes\":{\"b\":\"3\",\"a\":\"1\"}", "\"layers\"", "\"events\"",
          "\"input_flags\"", "\"output_flags\"", "\"status\":\"timeout\"");
    }
  }

  /**
   * Issue 10's counting wart: a sampled-out request with a listener whose record fails to build
   * (here gpu_ms overflows to infinity) was counted in both sampledOut and recordErrors.
   */
  @Test
  void aSampledOutRecordThatFailsToBuildForAListenerCountsOnce() {
    List<InferenceRecord> ended = new CopyOnWriteArrayList<>();
    TraceListener listener = (t, s) -> new TraceListener.Handle() {
      @Override
      public void onEnd(InferenceRecord record, long endEpochNanos) {
        ended.add(record);
      }
    };
    Sampler none = Sampler.builder().rate(0).build();
    try (InferenceTracer tracer =
        new TracerFactory().sink(sink).clocks(wall, nanos::get).sampler(none).listener(listener).build()) {
      tracer.run("m", "req-overflow", t -> t.addGpuMs(Double.MAX_VALUE).addGpuMs(Double.MAX_VALUE));
      tracer.flush().join();
      TracerStats s = tracer.stats();
      assertThat(s.ended()).isEqualTo(1);
      assertThat(s.sampledOut()).isEqualTo(1);
      assertThat(s.recordErrors()).isZero();
      assertThat(s.ended()).isEqualTo(s.sampledOut() + s.dispatcher().offered() + s.recordErrors());
      assertThat(ended).singleElement().satisfies(r -> assertThat(r.errorType()).isEqualTo("trtrace.record_error"));
    }
  }

  @Test
  void aKeptRecordThatFailsToBuildIsARecordErrorAndItsEntryIsReused() {
    try (InferenceTracer tracer = tracer(true)) {
      tracer.run("m", "req-overflow", t -> t.addGpuMs(Double.MAX_VALUE).addGpuMs(Double.MAX_VALUE));
      tracer.run("m", "req-fine", t -> t.addGpuMs(1));
      tracer.flush().join();
      TracerStats s = tracer.stats();
      assertThat(s.recordErrors()).isEqualTo(1);
      assertThat(s.ended()).isEqualTo(s.sampledOut() + s.dispatcher().offered() + s.recordErrors());
      assertThat(sink.records()).singleElement().satisfies(r -> {
        assertThat(r.requestId()).isEqualTo("req-fine");
        assertThat(r.gpuMs()).isEqualTo(1.0);
      });
    }
  }
}
