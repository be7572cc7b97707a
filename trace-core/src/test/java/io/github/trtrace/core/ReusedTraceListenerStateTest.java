package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.sink.CapturingSink;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Garbage-free mode: a stale handle's stage() or event() that passed its generation check runs the
 * listeners' callbacks without the trace's monitor. Should the request end and the pooled trace serve the
 * next one meanwhile, what those callbacks return or read must stay with the request that called them.
 */
class ReusedTraceListenerStateTest {
  private final CapturingSink sink = CapturingSink.create();

  private static void await(CountDownLatch l) {
    try {
      if (!l.await(20, TimeUnit.SECONDS)) {
        throw new AssertionError("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aLateStageStartOfTheLastRequestLeavesItsListenerStateOutOfTheNextRequest() throws Exception {
    CountDownLatch inStart = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> stageEnds = new CopyOnWriteArrayList<>();
    TraceListener listener = (trace, startEpochNanos) -> {
      String id = trace.requestId();
      return new TraceListener.Handle() {
        @Override
        public @Nullable Object onStageStart(Stage stage, @Nullable Object parent, long epochNanos) {
          if (id.equals("req-1")) { // a task of req-1 opens a stage; the listener takes its time
            inStart.countDown();
            await(release);
          }
          return "state-of-" + id;
        }

        @Override
        public void onStageEnd(Stage stage, @Nullable Object state, long epochNanos) {
          stageEnds.add(id + " ended " + stage + " with " + state);
        }
      };
    };
    Thread[] late = new Thread[1];
    try (InferenceTracer tracer =
        InferenceTracer.builder().sink(sink).garbageFree(true).listener(listener).build()) {
      tracer.run("m", "req-1", t -> {
        late[0] = new Thread(() -> t.stage(Stage.DECODE), "late-task");
        late[0].start();
        inStart.await(); // the task is inside the listener's onStageStart, past the generation check
      });
      // req-1 ended (its DECODE stage with it); its pooled trace now serves req-2 on this thread
      tracer.run("m", "req-2", t -> {
        try (InferenceTrace.StageTimer decode = t.stage(Stage.DECODE)) {
          release.countDown();
          late[0].join(20_000); // the late onStageStart returns: its state is kept on the stage stack
        }
      });
      tracer.flush().join();
    }
    assertThat(stageEnds).as("req-2's DECODE ends with req-2's own listener state")
        .contains("req-2 ended DECODE with state-of-req-2")
        .doesNotContain("req-2 ended DECODE with state-of-req-1");
  }

  @Test
  void aLateEventOfTheLastRequestGetsNoStageStateOfTheNextRequest() throws Exception {
    CountDownLatch inEvent = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> events = new CopyOnWriteArrayList<>();
    TraceListener first = (trace, startEpochNanos) -> {
      String id = trace.requestId();
      return new TraceListener.Handle() {
        @Override
        public void onEvent(InferenceRecord.Event event, @Nullable Object stage) {
          if (id.equals("req-1")) { // the first listener takes its time with req-1's late event
            inEvent.countDown();
            await(release);
          }
        }
      };
    };
    TraceListener second = (trace, startEpochNanos) -> {
      String id = trace.requestId();
      return new TraceListener.Handle() {
        @Override
        public @Nullable Object onStageStart(Stage stage, @Nullable Object parent, long epochNanos) {
          return "state-of-" + id;
        }

        @Override
        public void onEvent(InferenceRecord.Event event, @Nullable Object stage) {
          events.add(id + " got " + event.message() + " in " + stage);
        }
      };
    };
    Thread[] late = new Thread[1];
    try (InferenceTracer tracer =
        InferenceTracer.builder().sink(sink).garbageFree(true).listener(first).listener(second).build()) {
      tracer.run("m", "req-1", t -> {
        late[0] = new Thread(() -> t.event("k", "INFO", "late"), "late-task");
        late[0].start();
        inEvent.await();
      });
      tracer.run("m", "req-2", t -> {
        try (InferenceTrace.StageTimer decode = t.stage(Stage.DECODE)) {
          release.countDown();
          late[0].join(20_000);
        }
      });
      tracer.flush().join();
    }
    assertThat(events).as("req-1's event, outside any stage of req-1").containsExactly("req-1 got late in null");
  }
}
