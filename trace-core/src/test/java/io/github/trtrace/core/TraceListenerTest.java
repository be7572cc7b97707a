package io.github.trtrace.core;

import io.github.trtrace.core.internal.trace.TracerFactory;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.core.sink.CapturingSink;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TraceListenerTest {
  private static final Instant START = Instant.parse("2026-11-30T08:00:00.123456Z");
  private static final long START_EPOCH_NANOS = START.getEpochSecond() * 1_000_000_000L + START.getNano();
  private final AtomicLong nanos = new AtomicLong(7_000_000_000L);
  private final Clock wall = Clock.fixed(START, ZoneOffset.UTC);
  private final List<String> calls = new CopyOnWriteArrayList<>();

  /** Records every callback as "name:callback[:detail]". */
  private TraceListener recording(String name) {
    return (trace, startEpochNanos) -> {
      calls.add(name + ":start:" + trace.requestId() + ":" + (startEpochNanos - START_EPOCH_NANOS));
      return new TraceListener.Handle() {
        @Override
        public TraceScope makeCurrent() {
          calls.add(name + ":current");
          return () -> calls.add(name + ":restore");
        }

        @Override
        public Object onStageStart(Stage stage, Object parent, long epochNanos) {
          calls.add(name + ":+" + stage);
          return null;
        }

        @Override
        public void onStageEnd(Stage stage, Object state, long epochNanos) {
          calls.add(name + ":-" + stage);
        }

        @Override
        public void onEvent(InferenceRecord.Event event, Object stage) {
          calls.add(name + ":event:" + event.kind());
        }

        @Override
        public void onEnd(InferenceRecord record, long endEpochNanos) {
          calls.add(name + ":end:" + record.sampledReason() + ":" + (endEpochNanos - START_EPOCH_NANOS) / 1_000_000);
        }
      };
    };
  }

  private TracerFactory builder() {
    return new TracerFactory().sink(CapturingSink.create()).clocks(wall, nanos::get);
  }

  @Test
  void listenersStartInOrderEndInReverseAndSeeStagesEventsAndScopes() {
    try (InferenceTracer tracer = builder().listener(recording("a")).listener(recording("b")).build()) {
      tracer.run("m", t -> {
        t.callStage(Stage.PREPROCESS, () -> nanos.addAndGet(2_000_000));
        t.event("tensorrt.warning", "warning", "slow kernel");
        nanos.addAndGet(3_000_000);
      });
    }
    String id = calls.get(0).split(":")[2];
    assertThat(calls).containsExactly(
        "a:start:" + id + ":0", "b:start:" + id + ":0",
        "a:current", "b:current",
        "a:+PREPROCESS", "b:+PREPROCESS", "a:-PREPROCESS", "b:-PREPROCESS",
        "a:event:tensorrt.warning", "b:event:tensorrt.warning",
        "b:restore", "a:restore",
        "b:end:sampled:5", "a:end:sampled:5");
  }

  @Test
  void aSampledOutRecordReachesListenersWithoutASampledReasonAndNoSink() {
    CapturingSink sink = CapturingSink.create();
    List<InferenceRecord> ended = new ArrayList<>();
    TraceListener l = (t, s) -> new TraceListener.Handle() {
      @Override
      public void onEnd(InferenceRecord record, long endEpochNanos) {
        ended.add(record);
      }
    };
    try (InferenceTracer tracer = new TracerFactory()
        .sink(sink).listener(l).sampler(Sampler.builder().rate(0.0).build()).clocks(wall, nanos::get).build()) {
      tracer.run("m", t -> t.outputTokens(3));
      tracer.flush().join();
      assertThat(sink.records()).isEmpty();
      assertThat(tracer.stats().sampledOut()).isEqualTo(1);
    }
    assertThat(ended).singleElement().satisfies(r -> {
      assertThat(r.sampledReason()).isNull();
      assertThat(r.outputTokens()).isEqualTo(3);
      assertThat(r.timestamp()).isEqualTo(START);
    });
  }

  @Test
  void aThrowingListenerIsCountedSkippedForThatTraceAndNeverBreaksTheRequest() {
    CapturingSink sink = CapturingSink.create();
    TraceListener failsOnStage = (t, s) -> new TraceListener.Handle() {
      @Override
      public Object onStageStart(Stage stage, Object parent, long epochNanos) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void onEnd(InferenceRecord record, long endEpochNanos) {
        calls.add("broken:end");
      }
    };
    TraceListener failsOnStart = (t, s) -> {
      throw new IllegalStateException("cannot start");
    };
    TraceListener returnsNull = (t, s) -> null;
    try (InferenceTracer tracer = new TracerFactory()
        .sink(sink).listener(failsOnStage).listener(failsOnStart).listener(returnsNull)
        .listener(recording("ok")).clocks(wall, nanos::get).build()) {
      String answer = tracer.call("m", t -> {
        t.runStage(Stage.DECODE, () -> {});
        t.runStage(Stage.DECODE, () -> {});
        return "fine";
      });
      assertThat(answer).isEqualTo("fine");
      tracer.flush().join();
      assertThat(sink.records()).singleElement().satisfies(r -> assertThat(r.status()).isEqualTo(Status.SUCCESS));
      assertThat(tracer.stats().misuse()).as("one failure each, then skipped").isEqualTo(3);
    }
    assertThat(calls).doesNotContain("broken:end");
    assertThat(calls).filteredOn(c -> c.startsWith("ok:")).hasSize(8);
  }

  @Test
  void withoutListenersNothingChanges() {
    CapturingSink sink = CapturingSink.create();
    try (InferenceTracer tracer = new TracerFactory().sink(sink).clocks(wall, nanos::get).build()) {
      try (InferenceTrace t = tracer.start("m", "req-plain")) {
        TraceScope scope = t.makeCurrent();
        assertThat(org.slf4j.MDC.get("request_id")).isEqualTo("req-plain");
        scope.close();
        assertThat(org.slf4j.MDC.get("request_id")).isNull();
      }
      tracer.flush().join();
      assertThat(sink.records()).hasSize(1);
    }
  }

  @Test
  void aListenersLinkWinsOverALaterLinkToTheCallersSpan() throws Exception {
    CapturingSink sink = CapturingSink.create();
    TraceListener linking = (trace, start) -> {
      trace.traceContext("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"); // the listener's own span
      return TraceListener.Handle.NOOP;
    };
    try (InferenceTracer tracer = new TracerFactory().sink(sink).listener(linking).build()) {
      tracer.run("m", "req-link-1", t ->
          t.traceContext("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")); // e.g. an HTTP filter, later
      tracer.flush().get();
      assertThat(tracer.stats().misuse()).isZero();
    }
    InferenceRecord r = sink.findByRequestId("req-link-1").orElseThrow();
    assertThat(r.traceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(r.spanId()).isEqualTo("b7ad6b7169203331");
  }

  @Test
  void whenTheRecordCannotBeBuiltEveryListenerStillEndsWithAMinimalRecord() {
    CapturingSink sink = CapturingSink.create();
    List<InferenceRecord> endedA = new CopyOnWriteArrayList<>();
    List<InferenceRecord> endedB = new CopyOnWriteArrayList<>();
    Sampler failing = new Sampler() {
      @Override
      public String decide(String modelName, Status status, double latencyMs) {
        throw new IllegalStateException("sampler bug");
      }

      @Override
      public io.github.trtrace.core.sampling.Sampler.Stats stats() {
        return Sampler.always().stats();
      }
    };
    TraceListener a = (t, s) -> new TraceListener.Handle() {
      @Override
      public void onEnd(InferenceRecord record, long endEpochNanos) {
        endedA.add(record);
      }
    };
    TraceListener b = (t, s) -> new TraceListener.Handle() {
      @Override
      public void onEnd(InferenceRecord record, long endEpochNanos) {
        endedB.add(record);
      }
    };
    try (InferenceTracer tracer = new TracerFactory().sink(sink).clocks(wall, nanos::get).sampler(failing).listener(a).listener(b).build()) {
      tracer.run("m", "req-broken", t -> {
        t.outputTokens(3);
        nanos.addAndGet(4_000_000);
        t.error("Timeout");
      });
      tracer.flush().join();
      assertThat(sink.records()).isEmpty();
      assertThat(tracer.stats().recordErrors()).isEqualTo(1);
      assertThat(tracer.stats().misuse()).isZero();
    }
    for (List<InferenceRecord> ended : List.of(endedA, endedB)) {
      assertThat(ended).singleElement().satisfies(r -> {
        assertThat(r.requestId()).isEqualTo("req-broken");
        assertThat(r.modelName()).isEqualTo("m");
        assertThat(r.status()).isEqualTo(Status.ERROR);
        assertThat(r.errorType()).isEqualTo("trtrace.record_error");
        assertThat(r.latencyMs()).isEqualTo(4.0);
        assertThat(r.timestamp()).isEqualTo(START);
        assertThat(r.sampledReason()).isNull();
      });
    }
  }

  /** Issue 16 §3: one record path: a kept record is built on the dispatcher's worker, listeners or not. */
  @Test
  void onEndOfAKeptRecordRunsOffTheRequestThreadWithTheTrueEndTimeAndBeforeTheSinks() {
    CapturingSink sink = CapturingSink.create();
    List<String> seen = new CopyOnWriteArrayList<>();
    TraceListener l = (t, s) -> new TraceListener.Handle() {
      @Override
      public void onEnd(InferenceRecord record, long endEpochNanos) {
        seen.add(Thread.currentThread().getName() + "|" + (endEpochNanos - START_EPOCH_NANOS) / 1_000_000
            + "|sinkHad=" + sink.records().size());
      }
    };
    String caller = Thread.currentThread().getName();
    try (InferenceTracer tracer = builderWith(sink).listener(l).build()) {
      tracer.run("m", t -> nanos.addAndGet(4_000_000));
      nanos.addAndGet(50_000_000); // the worker's call comes later: the end time stays the trace's
      tracer.flush().join();
      assertThat(sink.records()).hasSize(1);
    }
    assertThat(seen).singleElement().satisfies(s -> {
      assertThat(s).doesNotStartWith(caller + "|");
      assertThat(s).endsWith("|4|sinkHad=0");
    });
  }

  @Test
  void aSampledOutRecordEndsOnTheEndingThread() {
    List<String> threads = new CopyOnWriteArrayList<>();
    TraceListener l = (t, s) -> new TraceListener.Handle() {
      @Override
      public void onEnd(InferenceRecord record, long endEpochNanos) {
        threads.add(Thread.currentThread().getName());
      }
    };
    try (InferenceTracer tracer = builderWith(CapturingSink.create())
        .listener(l).sampler(Sampler.builder().rate(0.0).build()).build()) {
      tracer.run("m", t -> {});
    }
    assertThat(threads).containsExactly(Thread.currentThread().getName());
  }

  private TracerFactory builderWith(CapturingSink sink) {
    return new TracerFactory().sink(sink).clocks(wall, nanos::get);
  }
}
