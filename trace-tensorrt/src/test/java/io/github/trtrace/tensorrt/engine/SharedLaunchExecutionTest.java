package io.github.trtrace.tensorrt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.testing.InMemorySink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A traced engine's shared launches (one launch, several requests' rows) through the slot seam: the
 * launch's measured device time split among its members, its errors and messages on every member and on no
 * one else, its layer table on the launch-log line, and the single-request form as the same path.
 */
class SharedLaunchExecutionTest {
  @TempDir Path dir;
  private final InMemorySink sink = InMemorySink.create();
  private InferenceTracer tracer;

  private InferenceTracer tracer() {
    tracer = new TracerFactory().sink(sink).launchLog(dir.resolve("launches.jsonl")).build();
    return tracer;
  }

  @AfterEach
  void tearDown() {
    if (tracer != null) {
      tracer.close();
    }
  }

  private Map<String, InferenceRecord> records() {
    tracer.flush().join();
    return sink.records().stream().collect(Collectors.toMap(InferenceRecord::requestId, r -> r));
  }

  private List<String> launchLines() throws Exception {
    tracer.flush().join();
    return Files.readAllLines(dir.resolve("launches.jsonl"));
  }

  /** Runs a launch of the step on the engine's fingerprint. */
  @FunctionalInterface
  interface LaunchCall {
    boolean run(SharedLaunch step) throws Exception;
  }

  /**
   * One step on {@code sha256:eng}: req-a and req-b decoding, req-c prefilling 3 tokens, launched by {@code launch}
   * (which must succeed); the traces end after it.
   */
  private void stepOfThree(LaunchCall launch) throws Exception {
    InferenceTracer tr = tracer();
    InferenceTrace a = tr.start("m", "req-a");
    InferenceTrace b = tr.start("m", "req-b");
    InferenceTrace c = tr.start("m", "req-c");
    try (SharedLaunch step = tr.launch("sha256:eng")) {
      step.decode(a).decode(b).prefill(c, 3);
      assertThat(launch.run(step)).isTrue();
    }
    a.close();
    b.close();
    c.close();
  }

  @Test
  void oneLaunchTimedOnceIsSplitAmongItsMembersWithTheEnginesFingerprint() throws Exception {
    TracedExecutionTest.ScriptedSlot slot = new TracedExecutionTest.ScriptedSlot("ctx0");
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), "sha256:eng",
        Duration.ofSeconds(1));
    List<String> bound = new ArrayList<>();
    stepOfThree(step -> exec.launch(step, bound::add));
    Map<String, InferenceRecord> r = records();
    assertThat(bound).containsExactly("ctx0");
    assertThat(slot.launches).isEqualTo(1);
    // ScriptedSlot measures 2.5 ms: by tokens, 1 + 1 + 3
    assertThat(r.get("req-a").gpuMs()).isCloseTo(0.5, within(1e-9));
    assertThat(r.get("req-b").gpuMs()).isCloseTo(0.5, within(1e-9));
    assertThat(r.get("req-c").gpuMs()).isCloseTo(1.5, within(1e-9));
    assertThat(r.values()).allSatisfy(x -> {
      assertThat(x.engineFingerprint()).isEqualTo("sha256:eng");
      assertThat(x.status()).isEqualTo(Status.SUCCESS);
      assertThat(x.batching().launchCount()).isEqualTo(1);
    });
    assertThat(launchLines()).singleElement().satisfies(l -> {
      assertThat(l).contains("\"gpu_ms\":2.5", "\"batch_size\":3", "\"engine_fingerprint\":\"sha256:eng\"");
      assertThat(l).doesNotContain("\"passes\"");
    });
    assertThat(exec.stats().inUse()).isZero();
  }

  @Test
  void aFailedLaunchMarksExactlyItsMembersUnderConcurrentLaunchesOnSeveralContexts() throws Exception {
    InferenceTracer tr = tracer();
    List<TracedExecutionTest.ScriptedSlot> slots = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      slots.add(new TracedExecutionTest.ScriptedSlot("ctx" + i));
    }
    TracedExecution<String> exec = new TracedExecution<>(slots, ProfilingPolicy.never(), null, Duration.ofSeconds(10));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<Long>> fs = new ArrayList<>();
    int steps = 50;
    for (int s = 0; s < steps; s++) {
      int step = s;
      fs.add(pool.submit(() -> {
        List<InferenceTrace> members = new ArrayList<>();
        for (int m = 0; m < 4; m++) {
          members.add(tr.start("m", "req-" + step + "-" + m));
        }
        long failedId = -1;
        try (SharedLaunch l = tr.launch(null)) {
          members.forEach(l::decode);
          boolean bad = step % 7 == 3;
          boolean ok = exec.launch(l, ctx -> {
            if (bad) {
              // what TensorRT's error recorder would hold after a refused shape on this context
              TracedExecutionTest.ScriptedSlot mine = slots.get(Integer.parseInt(ctx.substring(3)));
              mine.pendingErrors.add(new RecordedError(3,
                  "IExecutionContext::setInputShape: Error Code 3: API Usage Error (out of profile range)"));
            }
          });
          assertThat(ok).isEqualTo(!bad);
          if (bad) {
            failedId = l.id();
          }
        }
        members.forEach(InferenceTrace::close);
        return failedId;
      }));
    }
    java.util.Set<Long> failed = new java.util.HashSet<>();
    for (Future<Long> f : fs) {
      long id = f.get(30, TimeUnit.SECONDS);
      if (id >= 0) {
        failed.add(id);
      }
    }
    pool.shutdown();
    Map<String, InferenceRecord> r = records();
    assertThat(r).hasSize(steps * 4);
    for (int s = 0; s < steps; s++) {
      for (int m = 0; m < 4; m++) {
        InferenceRecord x = r.get("req-" + s + "-" + m);
        if (s % 7 == 3) {
          assertThat(x.status()).as(x.requestId()).isEqualTo(Status.ERROR);
          assertThat(x.errorType()).isEqualTo("tensorrt.kINVALID_ARGUMENT");
          assertThat(failed).contains(x.batching().failedLaunchId());
          assertThat(x.events()).anySatisfy(e -> assertThat(e.message()).contains("out of profile range"));
        } else {
          assertThat(x.status()).as(x.requestId()).isEqualTo(Status.SUCCESS);
          assertThat(x.errorType()).isNull();
          assertThat(x.events()).isEmpty();
        }
      }
    }
    assertThat(failed).hasSize((int) java.util.stream.IntStream.range(0, steps).filter(s -> s % 7 == 3).count());
  }

  @Test
  void messagesDuringASharedLaunchGoToItsMembersNotToTheRequestCurrentOnTheSchedulerThread() throws Exception {
    InferenceTracer tr = tracer();
    TrtLogPipeline pipeline = TrtLogPipeline.builder().build();
    TracedExecution<String> exec = new TracedExecution<>(List.of(new TracedExecutionTest.ScriptedSlot("ctx0")),
        ProfilingPolicy.never(), null, Duration.ofSeconds(1));
    pipeline.onEvent(exec.eventListener());
    InferenceTrace a = tr.start("m", "req-a");
    InferenceTrace b = tr.start("m", "req-b");
    try (InferenceTrace bystander = tr.start("m", "req-current");
         RequestContext.Scope ignored = RequestContext.with("req-current").open()) {
      try (SharedLaunch step = tr.launch(null)) {
        step.decode(a).decode(b);
        exec.launch(step, ctx -> pipeline.log(2, "[MemUsageChange] TensorRT-managed allocation in IExecutionContext"));
      }
    }
    a.close();
    b.close();
    Map<String, InferenceRecord> r = records();
    assertThat(r.get("req-a").events()).singleElement().satisfies(e -> assertThat(e.message()).contains("IExecutionContext"));
    assertThat(r.get("req-b").events()).singleElement().satisfies(e -> assertThat(e.message()).contains("IExecutionContext"));
    assertThat(r.get("req-current").events()).isEmpty();
  }

  @Test
  void aProfiledLaunchRunsOnTheProfiledContextAndItsLayerTableGoesToTheLaunchLog() throws Exception {
    InferenceTracer tr = tracer();
    TracedExecutionTest.ScriptedSlot slot = new TracedExecutionTest.ScriptedSlot("ctx0");
    List<Boolean> heard = new ArrayList<>();
    ProfilingPolicy always = new ProfilingPolicy() {
      @Override public boolean shouldProfile() { return true; }
      @Override public void onCompleted(double latencyMs) {}
      @Override public void onCompleted(double latencyMs, boolean profiled) { heard.add(profiled); }
    };
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), always, null, Duration.ofSeconds(1));
    InferenceTrace a = tr.start("m", "req-a");
    List<String> bound = new ArrayList<>();
    try (SharedLaunch step = tr.launch(null)) {
      step.decode(a);
      exec.launch(step, bound::add);
    }
    a.close();
    assertThat(bound).containsExactly("ctx0+profiler");
    assertThat(slot.profiledLaunches).isEqualTo(1);
    assertThat(heard).containsExactly(true);
    assertThat(launchLines()).singleElement().satisfies(l -> assertThat(l).contains("\"layers\"", "attn_qkv + softmax", "mlp"));
    // the member's record does not carry the launch's table: it is the launch's, not the request's
    assertThat(records().get("req-a").layers()).isEmpty();
  }

  @Test
  void theSingleRequestFormIsTheSameExecutionPathWithOneMemberTakingTheWholeOutcome() throws Exception {
    InferenceTracer tr = tracer();
    TracedExecutionTest.ScriptedSlot slot = new TracedExecutionTest.ScriptedSlot("ctx0");
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), "sha256:eng",
        Duration.ofSeconds(1));
    try (InferenceTrace t = tr.start("m", "req-alone")) {
      exec.infer(t, c -> {});
    }
    InferenceTrace shared = tr.start("m", "req-shared");
    try (SharedLaunch step = tr.launch("sha256:eng")) {
      step.decode(shared);
      exec.launch(step, c -> {});
    }
    shared.close();
    Map<String, InferenceRecord> r = records();
    assertThat(r.get("req-alone").gpuMs()).isEqualTo(r.get("req-shared").gpuMs()).isEqualTo(2.5);
    assertThat(r.get("req-alone").engineFingerprint()).isEqualTo(r.get("req-shared").engineFingerprint());
    assertThat(slot.launches).isEqualTo(2);
  }

  @Test
  void aLaunchInPassesEnqueuesEachBetweenOnePairOfEventsAndIsTimedOnceForAllItsMembers() throws Exception {
    TracedExecutionTest.ScriptedSlot slot = new TracedExecutionTest.ScriptedSlot("ctx0");
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), "sha256:eng",
        Duration.ofSeconds(1));
    stepOfThree(step -> exec.launch(step, List.of(ctx -> slot.calls.add("bind decode on " + ctx),
        ctx -> slot.calls.add("bind prefill on " + ctx))));
    assertThat(slot.calls).containsExactly("bind decode on ctx0", "begin", "enqueue", "bind prefill on ctx0", "enqueue",
        "end", "sync");
    Map<String, InferenceRecord> r = records();
    // one measurement (2.5 ms) for the whole step, split by tokens 1 + 1 + 3 as for one pass
    assertThat(r.get("req-a").gpuMs()).isCloseTo(0.5, within(1e-9));
    assertThat(r.get("req-c").gpuMs()).isCloseTo(1.5, within(1e-9));
    assertThat(launchLines()).singleElement().satisfies(l -> assertThat(l).contains("\"gpu_ms\":2.5", "\"batch_size\":3",
        "\"passes\":2"));
  }

  @Test
  void aPassThatThrowsAfterAnotherWasEnqueuedStillEndsAndWaitsAndFailsTheWholeLaunch() throws Exception {
    InferenceTracer tr = tracer();
    TracedExecutionTest.ScriptedSlot slot = new TracedExecutionTest.ScriptedSlot("ctx0");
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), null,
        Duration.ofSeconds(1));
    InferenceTrace a = tr.start("m", "req-a");
    InferenceTrace b = tr.start("m", "req-b");
    try (SharedLaunch step = tr.launch(null)) {
      step.decode(a).prefill(b, 4);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> exec.launch(step, List.of(ctx -> {}, ctx -> {
        throw new IllegalArgumentException("TensorRT refused shape [3, 300] for input_ids");
      }))).isInstanceOf(IllegalArgumentException.class);
    }
    a.close();
    b.close();
    // the first pass is on the stream: its events are closed and it is waited for before the context goes back
    assertThat(slot.calls).containsExactly("begin", "enqueue", "end", "sync");
    assertThat(slot.timed).isFalse();
    assertThat(exec.stats().inUse()).isZero();
    Map<String, InferenceRecord> r = records();
    assertThat(r.values()).allSatisfy(x -> {
      assertThat(x.status()).isEqualTo(Status.ERROR);
      assertThat(x.errorType()).isEqualTo("java.lang.IllegalArgumentException");
      assertThat(x.gpuMs()).isNaN();
    });
  }

  @Test
  void aRefusedPassStopsTheLaunchAndMarksItsMembers() throws Exception {
    InferenceTracer tr = tracer();
    TracedExecutionTest.ScriptedSlot slot = new TracedExecutionTest.ScriptedSlot("ctx0") {
      @Override
      public boolean enqueue(boolean profiled) {
        super.enqueue(profiled);
        return calls.stream().filter("enqueue"::equals).count() < 2;
      }
    };
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), null,
        Duration.ofSeconds(1));
    InferenceTrace a = tr.start("m", "req-a");
    List<String> bound = new ArrayList<>();
    try (SharedLaunch step = tr.launch(null)) {
      step.decode(a);
      assertThat(exec.launch(step, List.of(bound::add, bound::add, bound::add))).isFalse();
    }
    a.close();
    assertThat(bound).hasSize(2);
    assertThat(slot.calls).containsExactly("begin", "enqueue", "enqueue", "end", "sync");
    assertThat(records().get("req-a").status()).isEqualTo(Status.ERROR);
  }

  @Test
  void aProfiledLaunchInPassesWaitsForEachAndItsLayerTableSumsThem() throws Exception {
    InferenceTracer tr = tracer();
    TracedExecutionTest.ScriptedSlot slot = new TracedExecutionTest.ScriptedSlot("ctx0");
    ProfilingPolicy always = new ProfilingPolicy() {
      @Override public boolean shouldProfile() { return true; }
      @Override public void onCompleted(double latencyMs) {}
    };
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), always, null, Duration.ofSeconds(1));
    InferenceTrace a = tr.start("m", "req-a");
    try (SharedLaunch step = tr.launch(null)) {
      step.decode(a);
      exec.launch(step, List.of(ctx -> {}, ctx -> {}));
    }
    a.close();
    assertThat(slot.calls).containsExactly("begin", "enqueue", "sync", "enqueue", "end", "sync");
    // ScriptedSlot reports mlp 0.5 ms a drain: two passes, 1.0 ms over two invocations
    assertThat(launchLines()).singleElement().satisfies(l -> assertThat(l).contains("{\"name\":\"mlp\",\"ms\":1.0,\"invocations\":2}"));
  }

  @Test
  void aLaunchNeedsAPass() {
    TracedExecution<String> exec = new TracedExecution<>(List.of(new TracedExecutionTest.ScriptedSlot("ctx0")),
        ProfilingPolicy.never(), null, Duration.ofSeconds(1));
    try (SharedLaunch step = tracer().launch(null)) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> exec.launch(step, List.of()))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one pass");
    }
  }
}
