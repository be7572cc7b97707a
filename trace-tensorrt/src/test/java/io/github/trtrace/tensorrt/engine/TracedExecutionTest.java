package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.core.internal.trace.TracerFactory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.internal.shim.LayerSampleConsumer;
import io.github.trtrace.testing.InMemorySink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The traced engine's request orchestration, through the slot seam (no CUDA in CI). */
class TracedExecutionTest {

  /** A slot standing in for an execution context: what TensorRT would report is scripted. */
  static class ScriptedSlot implements ExecutionSlot<String> {
    final String name;
    final List<RecordedError> pendingErrors = new ArrayList<>();
    boolean launchResult = true;
    int launches;
    int profiledLaunches;
    boolean closed;

    ScriptedSlot(String name) {
      this.name = name;
    }

    @Override public String context(boolean profiled) { return profiled ? name + "+profiler" : name; }

    /** What the slot saw, in order: begin, enqueue, sync, end (the launch's events and waits). */
    final List<String> calls = new ArrayList<>();
    boolean timed;

    @Override
    public void begin() {
      calls.add("begin");
      launches++;
    }

    @Override
    public boolean enqueue(boolean profiled) {
      calls.add("enqueue");
      if (profiled) {
        profiledLaunches++;
      }
      return launchResult;
    }

    @Override
    public void end(boolean ok) {
      calls.add("end");
      timed = ok;
    }

    @Override public void synchronize() { calls.add("sync"); }
    @Override public double gpuMs() { return timed ? 2.5 : Double.NaN; }

    @Override
    public void drainLayers(LayerSampleConsumer consumer) {
      consumer.accept("attn_qkv + softmax", 1.0f);
      consumer.accept("mlp", 0.5f);
      consumer.accept("attn_qkv + softmax", 0.25f);
    }

    @Override
    public List<RecordedError> drainErrors() {
      List<RecordedError> out = List.copyOf(pendingErrors);
      pendingErrors.clear();
      return out;
    }

    @Override public void close() { closed = true; }
  }

  private final InMemorySink sink = InMemorySink.create();
  private InferenceTracer tracer;

  @BeforeEach
  void setUp() {
    tracer = new TracerFactory().sink(sink).build();
  }

  @AfterEach
  void tearDown() {
    tracer.close();
  }

  private InferenceRecord record(String id) {
    tracer.flush().join();
    return sink.findByRequestId(id).orElseThrow();
  }

  @Test
  void aSuccessfulLaunchAddsGpuTimeTheFingerprintAndReturnsTheContext() throws Exception {
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    TracedExecution<String> exec =
        new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), "fp-1", Duration.ofSeconds(1));
    List<String> bound = new ArrayList<>();
    try (InferenceTrace t = tracer.start("m", "req-ok")) {
      assertThat(exec.infer(t, bound::add)).isTrue();
    }
    InferenceRecord r = record("req-ok");
    assertThat(bound).containsExactly("ctx0");
    assertThat(r.status()).isEqualTo(Status.SUCCESS);
    assertThat(r.gpuMs()).isEqualTo(2.5);
    assertThat(r.inferMs()).isNotNaN();
    assertThat(r.engineFingerprint()).isEqualTo("fp-1");
    assertThat(r.layers()).isEmpty();
    assertThat(exec.stats().inUse()).isZero();
  }

  @Test
  void errorsRecordedOnTheContextBecomeTheRequestsErrorTypeAndEvents() throws Exception {
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    TracedExecution<String> exec =
        new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), null, Duration.ofSeconds(1));
    slot.launchResult = false;
    slot.pendingErrors.add(new RecordedError(3,
        "IExecutionContext::enqueueV3: Error Code 3: API Usage Error (Parameter check failed, condition: nullPtrAllowed.)"));
    try (InferenceTrace t = tracer.start("m", "req-bad")) {
      assertThat(exec.infer(t, c -> {})).isFalse();
    }
    try (InferenceTrace t = tracer.start("m", "req-next")) {
      slot.launchResult = true;
      assertThat(exec.infer(t, c -> {})).isTrue();
    }
    InferenceRecord bad = record("req-bad");
    assertThat(bad.status()).isEqualTo(Status.ERROR);
    assertThat(bad.errorType()).isEqualTo("tensorrt.kINVALID_ARGUMENT");
    assertThat(bad.events()).singleElement().satisfies(e -> {
      assertThat(e.kind()).startsWith("tensorrt.");
      assertThat(e.severity()).isEqualTo("error");
      assertThat(e.message()).contains("Error Code 3");
    });
    // the next request on the same context is not blamed for the earlier error
    assertThat(record("req-next").status()).isEqualTo(Status.SUCCESS);
  }

  @Test
  void aRefusedLaunchWithoutRecordedErrorIsStillAnError() throws Exception {
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    slot.launchResult = false;
    TracedExecution<String> exec =
        new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), null, Duration.ofSeconds(1));
    try (InferenceTrace t = tracer.start("m", "req-refused")) {
      exec.infer(t, c -> {});
    }
    assertThat(record("req-refused").errorType()).isEqualTo("tensorrt.enqueue_failed");
    assertThat(record("req-refused").gpuMs()).isNaN();
  }

  @Test
  void profiledRequestsRunOnTheProfiledContextAndCarryTheLayerTable() throws Exception {
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    TracedExecution<String> exec = new TracedExecution<>(
        List.of(slot), ProfilingPolicy.builder().sampleRate(1.0).build(), null, Duration.ofSeconds(1));
    List<String> bound = new ArrayList<>();
    try (InferenceTrace t = tracer.start("m", "req-prof")) {
      exec.infer(t, bound::add);
    }
    InferenceRecord r = record("req-prof");
    assertThat(r.layers()).extracting(InferenceRecord.LayerTime::name)
        .containsExactly("attn_qkv + softmax", "mlp");
    assertThat(r.layers().get(0).ms()).isEqualTo(1.25);
    assertThat(r.layers().get(0).invocations()).isEqualTo(2);
    assertThat(slot.profiledLaunches).isEqualTo(1);
    assertThat(bound).containsExactly("ctx0+profiler");
  }

  @Test
  void aGenerationsLaunchesStayOnOneSlotWhileItIsFree() throws Exception {
    List<ScriptedSlot> slots = List.of(new ScriptedSlot("ctx0"), new ScriptedSlot("ctx1"), new ScriptedSlot("ctx2"));
    TracedExecution<String> exec = new TracedExecution<>(slots, ProfilingPolicy.never(), null, Duration.ofSeconds(1));
    List<String> bound = new ArrayList<>();
    try (InferenceTrace t = tracer.start("m", "req-sticky"); TracedExecution<String>.Request r = exec.open(t)) {
      for (int i = 0; i < 6; i++) {   // prefill + 5 decode steps
        assertThat(r.launch(bound::add)).isTrue();
      }
    }
    // one context for the whole generation (before: the pool's FIFO rotated it over all three)
    assertThat(bound).hasSize(6).containsOnly(bound.get(0));
    assertThat(slots.stream().mapToInt(s -> s.launches).max().orElse(0)).isEqualTo(6);
  }

  @Test
  void theRequestKeepsARunningDeviceTimeOfItsTimedLaunchesForPhaseSplits() throws Exception {
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), null,
        Duration.ofSeconds(1));
    try (InferenceTrace t = tracer.start("m", "req-split");
        TracedExecution<String>.Request r = exec.open(t)) {
      assertThat(r.gpuMs()).isZero();
      assertThat(r.launch(c -> {})).isTrue();          // prefill
      double prefill = r.gpuMs();
      slot.launchResult = false;                        // a refused launch is not timed
      assertThat(r.launch(c -> {})).isFalse();
      slot.launchResult = true;
      assertThat(r.launch(c -> {})).isTrue();
      assertThat(r.launch(c -> {})).isTrue();
      assertThat(prefill).isEqualTo(2.5);
      assertThat(r.gpuMs() - prefill).isEqualTo(5.0);
    }
    assertThat(record("req-split").gpuMs()).isEqualTo(7.5);
  }

  @Test
  void aGenerationIsOneProfilingDecisionWithItsLayersSummedOverItsLaunches() throws Exception {
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    int[] decisions = new int[1];
    List<Double> completed = new ArrayList<>();
    ProfilingPolicy spy = new ProfilingPolicy() {
      @Override public boolean shouldProfile() { decisions[0]++; return true; }
      @Override public void onCompleted(double latencyMs) { completed.add(latencyMs); }
    };
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), spy, null, Duration.ofSeconds(1));
    try (InferenceTrace t = tracer.start("m", "req-gen")) {
      try (TracedExecution<String>.Request r = exec.open(t)) {
        t.runStage(Stage.DECODE, () -> {
          for (int i = 0; i < 5; i++) {   // prefill + 4 decode steps
            assertThat(r.launch(c -> {})).isTrue();
            t.token();
          }
        });
      }
    }
    InferenceRecord r = record("req-gen");
    assertThat(decisions[0]).isEqualTo(1);
    assertThat(completed).hasSize(1);
    assertThat(slot.profiledLaunches).isEqualTo(5);
    assertThat(r.layers()).extracting(InferenceRecord.LayerTime::invocations).containsExactly(10, 5);
    assertThat(r.layers().get(0).ms()).isEqualTo(6.25);
    assertThat(r.gpuMs()).isEqualTo(12.5);
    assertThat(r.outputTokens()).isEqualTo(5);
    // the launches nest inside DECODE: their host time is infer_ms, not decode_ms
    assertThat(r.inferMs()).isGreaterThanOrEqualTo(0);
    assertThat(r.inferMs() + r.decodeMs()).isLessThanOrEqualTo(r.latencyMs());
  }

  @Test
  void theLayerTableIsCappedPerRecordAndTheDropIsCounted() throws Exception {
    ScriptedSlot slot = new ScriptedSlot("ctx0") {
      @Override
      public void drainLayers(LayerSampleConsumer consumer) {
        for (int i = 0; i < 10; i++) {
          consumer.accept("layer" + i, i);
        }
      }
    };
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot),
        ProfilingPolicy.builder().sampleRate(1.0).build(), null, Duration.ofSeconds(1), 3, null);
    try (InferenceTrace t = tracer.start("m", "req-cap")) {
      exec.infer(t, c -> {});
    }
    InferenceRecord r = record("req-cap");
    assertThat(r.layers()).extracting(InferenceRecord.LayerTime::name).containsExactly("layer7", "layer8", "layer9");
    assertThat(r.attributes()).containsEntry(TracedExecution.LAYERS_DROPPED_ATTRIBUTE, "7");
  }

  @Test
  void aLongGenerationDoesNotReArmAfterSlowProfilingOnEveryLaunch() throws Exception {
    long[] now = {0};
    InferenceTracer clocked = new TracerFactory().sink(sink)
        .clocks(java.time.Clock.systemUTC(), () -> now[0]).build();
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    ProfilingPolicy policy = ProfilingPolicy.builder().slowThreshold(Duration.ofMillis(100)).build();
    TracedExecution<String> exec = new TracedExecution<>(List.of(slot), policy, null, Duration.ofSeconds(1));
    try (InferenceTrace t = clocked.start("m", "req-long")) {
      try (TracedExecution<String>.Request r = exec.open(t)) {
        for (int i = 0; i < 20; i++) {
          now[0] += 50_000_000L;   // 50 ms per launch: past the 100 ms threshold after the second
          r.launch(c -> {});
        }
      }
    }
    // the request's own launches were not profiled (the decision is the request's, taken at open),
    // and the one slow request arms one profiled request, not a profiled launch per later launch
    assertThat(slot.profiledLaunches).isZero();
    assertThat(policy.shouldProfile()).isTrue();
    assertThat(policy.shouldProfile()).isFalse();
    clocked.close();
  }

  /**
   * Two requests with the same client request ID running at once: each one's TensorRT messages land
   * on its own record. Failed while running requests were keyed by request ID (the second overwrote
   * the first, and both messages went to one trace).
   */
  @Test
  void twoRequestsWithTheSameIdGetTheirOwnMessages() throws Exception {
    TrtLogPipeline pipeline = TrtLogPipeline.builder().build();
    List<ScriptedSlot> slots = List.of(new ScriptedSlot("a"), new ScriptedSlot("b"));
    TracedExecution<String> exec =
        new TracedExecution<>(slots, ProfilingPolicy.never(), null, Duration.ofSeconds(10));
    pipeline.onEvent(exec.eventListener());
    java.util.concurrent.CyclicBarrier bothRunning = new java.util.concurrent.CyclicBarrier(2);
    java.util.concurrent.CyclicBarrier bothLogged = new java.util.concurrent.CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<?>> fs = new ArrayList<>();
    for (String who : List.of("first", "second")) {
      fs.add(pool.submit(() -> RequestContext.with("dup-id").call(() -> {
        try (InferenceTrace t = tracer.start("m")) {
          t.attribute("who", who);
          exec.infer(t, c -> {
            bothRunning.await(10, TimeUnit.SECONDS);
            pipeline.log(2, "[MemUsageChange] launch of " + who);
            bothLogged.await(10, TimeUnit.SECONDS);
          });
        }
        return null;
      })));
    }
    for (Future<?> f : fs) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();
    tracer.flush().join();
    assertThat(sink.records()).hasSize(2).allSatisfy(r -> {
      assertThat(r.requestId()).isEqualTo("dup-id");
      assertThat(r.events()).singleElement()
          .satisfies(e -> assertThat(e.message()).endsWith("launch of " + r.attributes().get("who")));
    });
  }

  @Test
  void aBinderFailureIsRecordedRethrownAndTheContextReturned() {
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    TracedExecution<String> exec =
        new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), null, Duration.ofSeconds(1));
    InferenceTrace t = tracer.start("m", "req-bind");
    assertThatThrownBy(() -> exec.infer(t, c -> { throw new IllegalArgumentException("shape"); }))
        .isInstanceOf(IllegalArgumentException.class);
    t.close();
    assertThat(record("req-bind").errorType()).isEqualTo("java.lang.IllegalArgumentException");
    assertThat(slot.launches).isZero();
    assertThat(exec.stats().inUse()).isZero();
  }

  @Test
  void aFailingErrorDrainStillReturnsTheContextAndForgetsTheRequest() throws Exception {
    TrtLogPipeline pipeline = TrtLogPipeline.builder().build();
    ScriptedSlot slot = new ScriptedSlot("ctx0") {
      @Override
      public List<RecordedError> drainErrors() {
        throw new IllegalStateException("native drain failed");
      }
    };
    TracedExecution<String> exec = new TracedExecution<>(
        List.of(slot), ProfilingPolicy.builder().sampleRate(1.0).build(), "fp-2", Duration.ofSeconds(1));
    pipeline.onEvent(exec.eventListener());
    RequestContext.with("req-drain").run(() -> {
      try (InferenceTrace t = tracer.start("m")) {
        assertThatThrownBy(() -> exec.infer(t, c -> {})).hasMessageContaining("native drain failed");
      }
    });
    // the request is no longer "running": a later line with its ID is not attached to its trace
    RequestContext.with("req-drain").run(() -> pipeline.log(2, "[MemUsageChange] after the request"));
    InferenceRecord r = record("req-drain");
    assertThat(r.events()).isEmpty();
    assertThat(r.engineFingerprint()).isEqualTo("fp-2");
    assertThat(exec.stats().inUse()).isZero();
  }

  @Test
  void awaitIdleWaitsForTheLaunchInFlight() throws Exception {
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    TracedExecution<String> exec =
        new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), null, Duration.ofSeconds(1));
    java.util.concurrent.CountDownLatch bound = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<?> running = pool.submit(() -> {
      try (InferenceTrace t = tracer.start("m", "req-inflight")) {
        return exec.infer(t, c -> {
          bound.countDown();
          release.await();
        });
      }
    });
    assertThat(bound.await(10, TimeUnit.SECONDS)).isTrue();
    exec.close();
    assertThat(exec.awaitIdle(Duration.ofMillis(50))).isFalse();
    release.countDown();
    assertThat(exec.awaitIdle(Duration.ofSeconds(10))).isTrue();
    assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo(true);
    assertThatThrownBy(() -> exec.infer(tracer.start("m", "req-late"), c -> {}))
        .isInstanceOf(IllegalStateException.class);
    pool.shutdown();
  }

  @Test
  void runtimeLogEventsReachTheTraceOfTheRequestRunningOnThatThread() throws Exception {
    TrtLogPipeline pipeline = TrtLogPipeline.builder().build();
    ScriptedSlot slot = new ScriptedSlot("ctx0");
    TracedExecution<String> exec =
        new TracedExecution<>(List.of(slot), ProfilingPolicy.never(), null, Duration.ofSeconds(1));
    pipeline.onEvent(exec.eventListener());
    RequestContext.with("req-logged").run(() -> {
      try (InferenceTrace t = tracer.start("m")) {
        exec.infer(t, c -> pipeline.log(2, "[MemUsageChange] TensorRT-managed allocation in IExecutionContext"));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    // a message outside any running request is not attached anywhere
    pipeline.log(2, "[MemUsageChange] unrelated");
    InferenceRecord r = record("req-logged");
    assertThat(r.events()).singleElement().satisfies(e -> assertThat(e.message()).contains("IExecutionContext"));
  }

  @Test
  void concurrentRequestsNeverShareAContextAndEachGetsItsOwnRecord() throws Exception {
    List<ScriptedSlot> slots = List.of(new ScriptedSlot("a"), new ScriptedSlot("b"));
    TracedExecution<String> exec =
        new TracedExecution<>(slots, ProfilingPolicy.never(), null, Duration.ofSeconds(10));
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<?>> fs = new ArrayList<>();
    java.util.Set<String> inUse = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.atomic.AtomicBoolean shared = new java.util.concurrent.atomic.AtomicBoolean();
    for (int i = 0; i < 200; i++) {
      String id = "req-c-" + i;
      fs.add(pool.submit(() -> {
        try (InferenceTrace t = tracer.start("m", id)) {
          exec.infer(t, c -> {
            if (!inUse.add(c)) {
              shared.set(true);
            }
            Thread.yield();
            inUse.remove(c);
          });
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();
    tracer.flush().join();
    assertThat(shared).isFalse();
    assertThat(sink.records()).hasSize(200);
    assertThat(exec.stats().borrows()).isEqualTo(200);
  }
}
