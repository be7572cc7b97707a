package io.github.trtrace.core;

import io.github.trtrace.core.internal.trace.TracerFactory;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.sink.CapturingSink;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Stages nest with exclusive time: their sum never exceeds the latency. */
class StageNestingTest {
  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private final Clock wall = Clock.fixed(Instant.parse("2026-11-30T08:00:00Z"), ZoneOffset.UTC);

  private void advanceMs(long ms) {
    nanos.addAndGet(ms * 1_000_000);
  }

  private static double stageSum(InferenceRecord r) {
    double sum = 0;
    for (Stage s : Stage.values()) {
      double ms = r.stageMs(s);
      if (!Double.isNaN(ms)) {
        sum += ms;
      }
    }
    return sum;
  }

  /** What {@code TracedExecution.infer} does for each launch: its own INFER stage, from a handle. */
  private void launch(InferenceTrace t, long hostMs) {
    InferenceTrace.StageTimer infer = t.stage(Stage.INFER);
    try {
      advanceMs(hostMs);
    } finally {
      infer.close();
    }
  }

  @Test
  void theDemosPatternPutsEveryMillisecondInExactlyOneStage() {
    CapturingSink sink = CapturingSink.create();
    try (InferenceTracer tracer = new TracerFactory().sink(sink).clocks(wall, nanos::get).build()) {
      String text = tracer.call("m", t -> {
        t.runStage(Stage.QUEUE, () -> advanceMs(4));
        t.runStage(Stage.PREPROCESS, () -> advanceMs(2));
        launch(t, 10); // prefill
        String decoded = t.callStage(Stage.DECODE, () -> {
          StringBuilder out = new StringBuilder();
          for (int i = 0; i < 5; i++) {
            launch(t, 3); // one engine launch per token, inside DECODE
            advanceMs(1); // sampling and detokenising
            t.token();
            out.append('x');
          }
          return out.toString();
        });
        return t.callStage(Stage.POSTPROCESS, () -> {
          advanceMs(2);
          return decoded;
        });
      });
      assertThat(text).isEqualTo("xxxxx");
      tracer.flush().join();
      InferenceRecord r = sink.records().get(0);
      assertThat(r.queueMs()).isEqualTo(4.0);
      assertThat(r.preprocessMs()).isEqualTo(2.0);
      assertThat(r.inferMs()).as("prefill + 5 launches").isEqualTo(25.0);
      assertThat(r.decodeMs()).as("DECODE kept running between launches").isEqualTo(5.0);
      assertThat(r.postprocessMs()).isEqualTo(2.0);
      assertThat(r.latencyMs()).isEqualTo(38.0);
      assertThat(stageSum(r)).as("no wall time outside every stage").isEqualTo(r.latencyMs());
      assertThat(tracer.stats().misuse()).as("nesting is not misuse").isZero();
    }
  }

  @Test
  void listenersSeeNestedStagesOpenAndCloseAsAStackWithTheirOwnStateHandedBack() {
    List<String> seen = new ArrayList<>();
    TraceListener listener = (trace, start) -> new TraceListener.Handle() {
      @Override
      public Object onStageStart(Stage stage, Object parent, long epochNanos) {
        seen.add("+" + stage + "@" + (epochNanos - start) / 1_000_000 + " in " + parent);
        return "state of " + stage;
      }

      @Override
      public void onStageEnd(Stage stage, Object state, long epochNanos) {
        seen.add("-" + stage + "@" + (epochNanos - start) / 1_000_000 + " with " + state);
      }

      @Override
      public void onEvent(InferenceRecord.Event event, Object stage) {
        seen.add(event.kind() + " in " + stage);
      }
    };
    try (InferenceTracer tracer =
        new TracerFactory().sink(CapturingSink.create()).listener(listener).clocks(wall, nanos::get).build()) {
      tracer.run("m", t -> {
        t.event("before", "INFO", "outside every stage");
        t.runStage(Stage.DECODE, () -> {
          advanceMs(1);
          launch(t, 2);
          t.event("between", "INFO", "in decode");
          advanceMs(1);
          t.stage(Stage.POSTPROCESS); // left open: ended with the trace, innermost first
          advanceMs(1);
        });
      });
    }
    assertThat(seen).containsExactly(
        "before in null",
        "+DECODE@0 in null",
        "+INFER@1 in state of DECODE",
        "-INFER@3 with state of INFER",
        "between in state of DECODE",
        "+POSTPROCESS@4 in state of DECODE",
        "-POSTPROCESS@5 with state of POSTPROCESS",
        "-DECODE@5 with state of DECODE");
  }

  /**
   * Whatever order a program closes its stage handles in (an outer one first ends the inner ones), a
   * listener gets each state it returned back exactly once at the end, and a new stage's parent is the
   * state of the innermost stage still open: the listener needs no stack of its own.
   */
  @Property(tries = 300)
  void aListenersStagesNestAsTheTracesStackWhateverTheCloseOrder(@ForAll("programs") List<Step> program) {
    List<Object> open = new ArrayList<>(); // the listener's view, only to check the core's
    List<String> wrong = new ArrayList<>();
    int[] made = {0};
    TraceListener listener = (trace, start) -> new TraceListener.Handle() {
      @Override
      public Object onStageStart(Stage stage, Object parent, long epochNanos) {
        Object expected = open.isEmpty() ? null : open.get(open.size() - 1);
        if (parent != expected) {
          wrong.add("parent " + parent + " instead of " + expected);
        }
        Object state = stage + "#" + made[0]++;
        open.add(state);
        return state;
      }

      @Override
      public void onStageEnd(Stage stage, Object state, long epochNanos) {
        if (open.isEmpty() || open.get(open.size() - 1) != state) {
          wrong.add("end of " + state + " while " + open + " open");
        } else {
          open.remove(open.size() - 1);
        }
      }
    };
    try (InferenceTracer tracer =
        new TracerFactory().sink(CapturingSink.create()).listener(listener).clocks(wall, nanos::get).build()) {
      try (InferenceTrace t = tracer.start("m", "req-prop")) {
        List<InferenceTrace.StageTimer> handles = new ArrayList<>();
        for (Step s : program) {
          switch (s.kind()) {
            case 0 -> handles.add(t.stage(Stage.values()[s.stage()]));
            case 1 -> {
              if (!handles.isEmpty()) {
                handles.get(s.handle() % handles.size()).close();
              }
            }
            default -> advanceMs(s.ms());
          }
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(open).as("every stage ended, at the latest with the trace").isEmpty();
  }

  /** One step of a random stage program: open a stage, close a handle (maybe not the innermost), or wait. */
  record Step(int kind, int stage, int handle, int ms) {}

  @Provide
  Arbitrary<List<Step>> programs() {
    Arbitrary<Step> step =
        net.jqwik.api.Combinators.combine(
                Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, Stage.values().length - 1),
                Arbitraries.integers().between(0, 7),
                Arbitraries.integers().between(0, 9))
            .as(Step::new);
    return step.list().ofMaxSize(40);
  }

  @Property(tries = 300)
  void stageTimesNeverAddUpToMoreThanTheLatency(@ForAll("programs") List<Step> program) {
    CapturingSink sink = CapturingSink.create();
    try (InferenceTracer tracer = new TracerFactory().sink(sink).clocks(wall, nanos::get).build()) {
      try (InferenceTrace t = tracer.start("m", "req-prop")) {
        List<InferenceTrace.StageTimer> handles = new ArrayList<>();
        for (Step s : program) {
          switch (s.kind()) {
            case 0 -> handles.add(t.stage(Stage.values()[s.stage()]));
            case 1 -> {
              if (!handles.isEmpty()) {
                handles.get(s.handle() % handles.size()).close();
              }
            }
            default -> advanceMs(s.ms());
          }
        }
      }
      tracer.flush().join();
      InferenceRecord r = sink.records().get(0);
      assertThat(stageSum(r)).isLessThanOrEqualTo(r.latencyMs() + 1e-9);
    }
  }
}
