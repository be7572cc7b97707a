package io.github.trtrace.core;

import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.internal.trace.TracerSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.core.sink.CapturingSink;
import io.github.trtrace.core.sink.RecordSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InferenceTracerTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Clock wall = Clock.fixed(Instant.parse("2026-11-30T08:00:00.123456Z"), ZoneOffset.UTC);
  private CapturingSink sink;
  private InferenceTracer tracer;

  @BeforeEach
  void setUp() {
    sink = CapturingSink.create();
    tracer = new TracerFactory().sink(sink).clocks(wall, nanos::get).build();
  }

  @AfterEach
  void tearDown() {
    tracer.close();
  }

  private void advanceMs(double ms) {
    nanos.addAndGet((long) (ms * 1_000_000));
  }

  private InferenceRecord onlyRecord() {
    tracer.flush().join();
    assertThat(sink.records()).hasSize(1);
    return sink.records().get(0);
  }

  @Test
  void stagesTokensAndCountsBecomeOneRecordWithExactTimes() {
    try (InferenceTrace t = tracer.start("llama-8b", "req-fixed-1")) {
      try (var s = t.stage(Stage.QUEUE)) {
        advanceMs(5);
      }
      try (var s = t.stage(Stage.PREPROCESS)) {
        advanceMs(2);
      }
      t.inputTokens(12);
      try (var s = t.stage(Stage.INFER)) {
        advanceMs(10);
      }
      t.addGpuMs(8.5);
      try (var s = t.stage(Stage.DECODE)) {
        advanceMs(3);
        t.token(); // first token at 20 ms
        for (int i = 0; i < 4; i++) {
          advanceMs(4);
          t.token();
        }
      }
      try (var s = t.stage(Stage.POSTPROCESS)) {
        advanceMs(1);
      }
      t.engineFingerprint("sha256:abc");
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.requestId()).isEqualTo("req-fixed-1");
    assertThat(r.modelName()).isEqualTo("llama-8b");
    assertThat(r.status()).isEqualTo(Status.SUCCESS);
    assertThat(r.timestamp()).isEqualTo(Instant.parse("2026-11-30T08:00:00.123456Z"));
    assertThat(r.queueMs()).isEqualTo(5.0);
    assertThat(r.preprocessMs()).isEqualTo(2.0);
    assertThat(r.inferMs()).isEqualTo(10.0);
    assertThat(r.gpuMs()).isEqualTo(8.5);
    assertThat(r.decodeMs()).isEqualTo(19.0);
    assertThat(r.postprocessMs()).isEqualTo(1.0);
    assertThat(r.latencyMs()).isEqualTo(37.0);
    assertThat(r.ttftMs()).isEqualTo(20.0);
    assertThat(r.tpotMs()).isEqualTo(4.0);
    assertThat(r.inputTokens()).isEqualTo(12);
    assertThat(r.outputTokens()).isEqualTo(5);
    assertThat(r.engineFingerprint()).isEqualTo("sha256:abc");
    assertThat(r.sampledReason()).isNotNull();
  }

  @Test
  void requestParametersFinishReasonAndOutputFlagsReachTheRecordAndBadValuesAreMisuse() {
    try (InferenceTrace t = tracer.start("m", "req-params")) {
      t.maxTokens(256).temperature(0.7).topP(0.9).finishReason("length");
      t.output("caf\uFFFD " + "loop ".repeat(10));
      t.maxTokens(-1).temperature(Double.NaN).temperature(-0.1).topP(1.5).finishReason(null); // 5 ignored
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.maxTokens()).isEqualTo(256);
    assertThat(r.temperature()).isEqualTo(0.7);
    assertThat(r.topP()).isEqualTo(0.9);
    assertThat(r.finishReason()).isEqualTo("length");
    assertThat(r.outputFlags()).containsExactlyInAnyOrder(OutputFlag.REPLACEMENT_CHAR, OutputFlag.REPETITION);
    assertThat(tracer.stats().misuse()).isEqualTo(5);
  }

  @Test
  void requestIdAndAttributesComeFromTheCurrentContext() {
    RequestContext.with("api-from-header").attribute("tenant", "acme").run(() -> {
      try (InferenceTrace t = tracer.start("m")) {
        advanceMs(1);
      }
    });
    InferenceRecord r = onlyRecord();
    assertThat(r.requestId()).isEqualTo("api-from-header");
    assertThat(r.attributes()).containsEntry("tenant", "acme");
  }

  @Test
  void withoutAContextARequestIdIsGenerated() {
    try (InferenceTrace t = tracer.start("m")) {
      assertThat(RequestIds.isValid(t.requestId())).isTrue();
      assertThat(t.requestId()).startsWith(RequestIds.PREFIX_REQUEST);
    }
  }

  @Test
  void invalidExplicitIdIsReplacedAndKeptSanitized() {
    try (InferenceTrace t = tracer.start("m", "bad id\r\nX-Injected: 1")) {
      assertThat(t.requestId()).startsWith("req-");
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.attributes().get(RequestIds.REJECTED_ATTRIBUTE)).doesNotContain("\r", "\n", " ");
  }

  @Test
  void errorFromAnExceptionSetsStatusAndErrorType() {
    try (InferenceTrace t = tracer.start("m", "req-err")) {
      t.error(new IllegalStateException("boom"));
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.status()).isEqualTo(Status.ERROR);
    assertThat(r.errorType()).isEqualTo("java.lang.IllegalStateException");
    assertThat(r.sampledReason()).isEqualTo("error");
  }

  @Test
  void explicitTimeoutStatusSurvivesALaterError() {
    try (InferenceTrace t = tracer.start("m", "req-to")) {
      t.status(Status.TIMEOUT).error("deadline");
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.status()).isEqualTo(Status.TIMEOUT);
    assertThat(r.errorType()).isEqualTo("deadline");
  }

  @Test
  void endingTwiceWritesOneRecordAndCountsMisuse() {
    InferenceTrace t = tracer.start("m", "req-twice");
    t.close();
    t.close();
    t.token();
    assertThat(onlyRecord().requestId()).isEqualTo("req-twice");
    assertThat(tracer.stats().misuse()).isEqualTo(2);
    assertThat(tracer.stats().ended()).isEqualTo(1);
  }

  @Test
  void closingAnOuterStageFirstEndsTheInnerOnesAndNeverCorruptsTheRecord() {
    try (InferenceTrace t = tracer.start("m", "req-order")) {
      InferenceTrace.StageTimer decode = t.stage(Stage.DECODE);
      advanceMs(2);
      InferenceTrace.StageTimer pre = t.stage(Stage.PREPROCESS); // nested: DECODE pauses
      advanceMs(3);
      decode.close(); // not the innermost: misuse, PREPROCESS ends with it
      advanceMs(1); // outside every stage
      pre.close(); // already ended with DECODE: nothing
      decode.close(); // again: nothing
      t.stage(Stage.DECODE); // re-entered: accumulates; left open, ended with the trace
      advanceMs(4);
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.decodeMs()).isEqualTo(6.0);
    assertThat(r.preprocessMs()).isEqualTo(3.0);
    assertThat(r.inferMs()).isNaN();
    assertThat(r.latencyMs()).isEqualTo(10.0);
    assertThat(tracer.stats().misuse()).isEqualTo(1);
  }

  @Test
  void aTraceCanHopThreadsFromQueueToWorker() throws Exception {
    ExecutorService worker = Executors.newSingleThreadExecutor();
    try {
      InferenceTrace t = tracer.start("m", "req-hop");
      InferenceTrace.StageTimer queue = t.stage(Stage.QUEUE);
      advanceMs(7);
      worker.submit(() -> {
        queue.close();
        try (var s = t.stage(Stage.INFER)) {
          advanceMs(11);
          t.outputTokens(3);
        }
        advanceMs(1);
        t.close();
      }).get(10, TimeUnit.SECONDS);
    } finally {
      worker.shutdownNow();
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.outputTokens()).isEqualTo(3);
    assertThat(r.queueMs()).isEqualTo(7.0);
    assertThat(r.inferMs()).isEqualTo(11.0);
    assertThat(r.latencyMs()).isEqualTo(19.0);
    assertThat(tracer.stats().misuse()).isZero();
  }

  @Test
  void concurrentEndsFromSeveralThreadsWriteExactlyOneRecord() throws Exception {
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 50; round++) {
        InferenceTrace t = tracer.start("m", "req-race-" + round);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<?>> ends = new java.util.ArrayList<>();
        for (int i = 0; i < threads; i++) {
          ends.add(pool.submit(() -> {
            go.await();
            t.token();
            t.close();
            return null;
          }));
        }
        go.countDown();
        for (var f : ends) {
          f.get(10, TimeUnit.SECONDS);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    tracer.flush().join();
    assertThat(sink.records()).hasSize(50);
    assertThat(sink.records()).allSatisfy(r -> assertThat(r.outputTokens()).isBetween(1, threads));
    TracerStats s = tracer.stats();
    assertThat(s.ended()).isEqualTo(50);
    // every thread but the winner closed an ended trace; tokens after the end are misuse too
    assertThat(s.misuse()).isGreaterThanOrEqualTo(50L * (threads - 1));
  }

  @Test
  void nullArgumentsAndMalformedCallsAreCountedAndNeverThrown() {
    InferenceRecord.LayerTime layer = new InferenceRecord.LayerTime("attn", 1.5, 2);
    try (InferenceTrace t = tracer.start("m", "req-nulls")) {
      t.stage(null).close();                                   // 1: begin(null); the scope is a no-op
      t.runStage(null, () -> {});                               // 2: the body runs untimed
      t.output(null);                                          // 3
      t.input(null).status(null).engineFingerprint(null);      // 4, 5, 6
      t.attribute(null, "v").attribute("k", null);             // 7, 8
      t.event("kind", null, "message");                        // 9
      t.layers(java.util.Arrays.asList(layer, null));          // 10: the null element only
      t.layers(null);                                          // 11
      t.traceContext("not-hex", "0123456789abcdef");           // 12
      t.traceContext("00000000000000000000000000000000", "0123456789abcdef"); // 13: all-zero ID
      t.traceContext("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"); // valid
      advanceMs(2);
    }
    InferenceRecord r = onlyRecord();
    assertThat(tracer.stats().misuse()).isEqualTo(13);
    assertThat(r.status()).isEqualTo(Status.SUCCESS);
    assertThat(r.layers()).containsExactly(layer);
    assertThat(r.attributes()).isEmpty();
    assertThat(r.events()).isEmpty();
    assertThat(r.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(r.spanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(r.latencyMs()).isEqualTo(2.0);
  }

  @Test
  void successAfterAFailureIsIgnoredSoNoRecordSaysSuccessWithAnErrorType() {
    try (InferenceTrace t = tracer.start("m", "req-late-success")) {
      t.error("tensorrt.oom");
      t.status(Status.SUCCESS);
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.status()).isEqualTo(Status.ERROR);
    assertThat(r.errorType()).isEqualTo("tensorrt.oom");
    assertThat(r.sampledReason()).isEqualTo("error");
    assertThat(tracer.stats().misuse()).isEqualTo(1);
  }

  @Test
  void anErrorAfterAnExplicitSuccessMarksTheRequestFailed() {
    try (InferenceTrace t = tracer.start("m", "req-then-error")) {
      t.status(Status.SUCCESS).error(new IllegalStateException());
    }
    assertThat(onlyRecord().status()).isEqualTo(Status.ERROR);
  }

  @Test
  void tpotIsTheMeanIntervalBetweenTokenMarksWhenTheFirstTokenWasMarkedApart() {
    try (InferenceTrace t = tracer.start("m", "req-tpot")) {
      advanceMs(10);
      t.firstToken();           // e.g. the prefill returned the first token
      advanceMs(6);
      t.token();                // then the streamed tokens, 3 ms apart
      advanceMs(3);
      t.token();
      advanceMs(3);
      t.token();
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.ttftMs()).isEqualTo(10.0);
    assertThat(r.tpotMs()).isEqualTo(3.0);
    assertThat(r.outputTokens()).isEqualTo(3);
    assertThat(r.latencyMs()).isEqualTo(22.0);
  }

  @Test
  void inputDigestIsTakenFromTheInputAsItWasWhenGiven() {
    tracer.close();
    tracer = new TracerFactory().sink(sink).inputDigest(true).clocks(wall, nanos::get).build();
    StringBuilder reused = new StringBuilder("first prompt");
    try (InferenceTrace t = tracer.start("m", "req-snapshot")) {
      t.input(reused);
      reused.setLength(0);
      reused.append("another request's prompt");
      t.error("boom");
    }
    assertThat(onlyRecord().inputDigest()).isEqualTo("first prompt");
  }

  @Test
  void inputFlagsComeFromTheRawInputAndNoTextIsRecordedByDefault() {
    try (InferenceTrace t = tracer.start("m", "req-flags")) {
      t.input("please \u202Ereverse\u200B me");
      t.error("bad");
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.inputFlags()).containsExactlyInAnyOrder(InputFlag.BIDI_CONTROL, InputFlag.ZERO_WIDTH);
    assertThat(r.inputDigest()).isNull();
  }

  @Test
  void inputDigestIsRedactedAndOnlyOnFailedOrSlowRecords() {
    tracer.close();
    tracer = new TracerFactory().sink(sink).inputDigest(true).clocks(wall, nanos::get).build();
    try (InferenceTrace t = tracer.start("m", "req-ok")) {
      t.input("mail me at alice@example.com");
    }
    try (InferenceTrace t = tracer.start("m", "req-bad")) {
      t.input("mail me at alice@example.com");
      t.error("boom");
    }
    tracer.flush().join();
    assertThat(sink.findByRequestId("req-ok").orElseThrow().inputDigest()).isNull();
    String digest = sink.findByRequestId("req-bad").orElseThrow().inputDigest();
    assertThat(digest).isNotNull().doesNotContain("alice@example.com").hasSizeLessThanOrEqualTo(100);
  }

  @Test
  void theLastInputWinsWhetherItsFlagsAreComputedOnTheCallerOrOnTheWorker() {
    tracer.close();
    tracer = new TracerFactory().sink(sink).inputDigest(true).clocks(wall, nanos::get).build();
    try (InferenceTrace t = tracer.start("m", "req-string-last")) {
      t.input(new StringBuilder("bidi \u202E here")); // mutable: scanned on the caller
      t.input("zero\u200Bwidth");                     // a String: scanned where the record is built
      t.error("boom");
    }
    try (InferenceTrace t = tracer.start("m", "req-builder-last")) {
      t.input("zero\u200Bwidth");
      StringBuilder b = new StringBuilder("bidi \u202E here");
      t.input(b);
      b.setLength(0);
      b.append("clean");
      t.error("boom");
    }
    tracer.flush().join();
    InferenceRecord stringLast = sink.findByRequestId("req-string-last").orElseThrow();
    assertThat(stringLast.inputFlags()).containsExactly(InputFlag.ZERO_WIDTH);
    assertThat(stringLast.inputDigest()).isEqualTo("zero\u27e6U+200B\u27e7width");
    InferenceRecord builderLast = sink.findByRequestId("req-builder-last").orElseThrow();
    assertThat(builderLast.inputFlags()).containsExactly(InputFlag.BIDI_CONTROL);
    assertThat(builderLast.inputDigest()).isEqualTo("bidi \u27e6U+202E\u27e7 here");
  }

  @Test
  void theLastOutputWinsWhetherItsFlagsAreComputedOnTheCallerOrOnTheWorker() {
    try (InferenceTrace t = tracer.start("m", "req-out-string-last")) {
      t.output(new StringBuilder("garbled \uFFFD"));
      t.output("   ");
    }
    try (InferenceTrace t = tracer.start("m", "req-out-builder-last")) {
      t.output("   ");
      StringBuilder b = new StringBuilder("garbled \uFFFD");
      t.output(b);
      b.setLength(0); // reused by the caller: the flags were taken at output()
    }
    tracer.flush().join();
    assertThat(sink.findByRequestId("req-out-string-last").orElseThrow().outputFlags())
        .containsExactly(OutputFlag.EMPTY);
    assertThat(sink.findByRequestId("req-out-builder-last").orElseThrow().outputFlags())
        .containsExactly(OutputFlag.REPLACEMENT_CHAR);
  }

  @Test
  void aRedactorThatThrowsYieldsAMarkedDigestNeverTheRawInput() {
    tracer.close();
    io.github.trtrace.core.redact.Redactor failing = new io.github.trtrace.core.redact.Redactor() {
      @Override
      public String redact(CharSequence text) {
        throw new IllegalStateException("rule broke");
      }

      @Override
      public String digest(CharSequence rawInput) {
        throw new IllegalStateException("rule broke");
      }
    };
    tracer = new TracerFactory().sink(sink).inputDigest(true).redactor(failing).clocks(wall, nanos::get).build();
    try (InferenceTrace t = tracer.start("m", "req-redactor")) {
      t.input("mail me at alice@example.com");
      t.error("boom");
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.inputDigest()).isEqualTo("[REDACTION_FAILED]");
    assertThat(r.toString()).doesNotContain("alice");
    assertThat(tracer.stats().recordErrors()).isZero();
  }

  /**
   * A String input's digest is computed on the dispatcher's worker: an error from a user redactor
   * (here a StackOverflowError, a rule's deep regular-expression recursion, which the built-in
   * redactor guards its own rules against) must yield the marked digest, not stop the worker, after
   * which nothing more was written.
   */
  @Test
  void aRedactorThatOverflowsTheStackDoesNotStopRecording() {
    tracer.close();
    io.github.trtrace.core.redact.Redactor overflowing = new io.github.trtrace.core.redact.Redactor() {
      @Override
      public String redact(CharSequence text) {
        throw new StackOverflowError();
      }

      @Override
      public String digest(CharSequence rawInput) {
        throw new StackOverflowError();
      }
    };
    tracer = new TracerFactory().sink(sink).inputDigest(true).redactor(overflowing).clocks(wall, nanos::get).build();
    try (InferenceTrace t = tracer.start("m", "req-overflowing-redactor")) {
      t.input("mail me at alice@example.com");
      t.error("boom");
    }
    try (InferenceTrace t = tracer.start("m", "req-after")) {
      t.outputTokens(1);
    }
    tracer.flush().join();
    assertThat(sink.findByRequestId("req-overflowing-redactor"))
        .hasValueSatisfying(r -> assertThat(r.inputDigest()).isEqualTo("[REDACTION_FAILED]"));
    assertThat(sink.findByRequestId("req-after")).isPresent();
    assertThat(tracer.stats().dispatcher().dropped()).isZero();
  }

  /**
   * A String's flags are computed where the record is built, the worker, so the text stays referenced
   * while the record waits in the queue. For a long prompt or answer that must not be so: the queue's
   * bound, in records, would no longer bound its memory (8,192 queued requests with 100K-char prompts
   * and answers pin gigabytes, exactly when the sinks are slow). Here the worker is held (inside the
   * redactor of an earlier record) while a request with a long input and output waits in the queue;
   * its texts must be collectable meanwhile, and its flags still right.
   */
  @Test
  void stringTextsWaitingForTheWorkerStayWithinTheBudgetAndAreCollectablePastIt() throws Exception {
    tracer.close();
    CountDownLatch insideRedactor = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    io.github.trtrace.core.redact.Redactor defaults = io.github.trtrace.core.redact.Redactor.defaults();
    io.github.trtrace.core.redact.Redactor holding = new io.github.trtrace.core.redact.Redactor() {
      @Override
      public String redact(CharSequence text) {
        return defaults.redact(text);
      }

      @Override
      public String digest(CharSequence rawInput) {
        insideRedactor.countDown();
        try {
          resume.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return defaults.digest(rawInput);
      }
    };
    tracer = new TracerFactory().sink(sink).inputDigest(true).redactor(holding).clocks(wall, nanos::get).build();
    try (InferenceTrace t = tracer.start("m", "req-holds-the-worker")) {
      t.input("short");
      t.error("boom");
    }
    assertThat(insideRedactor.await(20, TimeUnit.SECONDS)).isTrue(); // the worker is building that record
    // a queued record whose input takes the whole budget of deferred text ...
    String filling = "x".repeat((int) TracerFactory.DEFERRED_CHARS_BUDGET - 10);
    try (InferenceTrace t = tracer.start("m", "req-fills-the-budget")) {
      t.input(filling);
    }
    assertThat(TracerFactory.deferredChars(tracer)).isEqualTo(filling.length());
    filling = null;
    // ... so the next request's long texts are inspected on the caller and not kept by the queue
    List<java.lang.ref.WeakReference<String>> texts = traceLongTexts("req-long");
    assertThat(TracerFactory.deferredChars(tracer)).isEqualTo(TracerFactory.DEFERRED_CHARS_BUDGET - 10);
    for (int i = 0; i < 50 && texts.stream().anyMatch(w -> w.get() != null); i++) {
      System.gc();
      Thread.sleep(20);
    }
    boolean collected = texts.stream().allMatch(w -> w.get() == null);
    resume.countDown();
    tracer.flush().join();
    assertThat(collected).as("the long input and output were collectable while their record was queued").isTrue();
    InferenceRecord r = sink.findByRequestId("req-long").orElseThrow();
    assertThat(r.inputFlags()).containsExactly(InputFlag.ZERO_WIDTH);
    assertThat(r.outputFlags()).containsExactly(OutputFlag.REPETITION);
    assertThat(sink.findByRequestId("req-fills-the-budget").orElseThrow().inputFlags())
        .containsExactly(InputFlag.VERY_LONG);
    assertThat(TracerFactory.deferredChars(tracer)).as("every share given back once the records are built").isZero();
    // with the budget free again, a String's inspection is deferred again (and given back again)
    traceLongTexts("req-long-2");
    tracer.flush().join();
    assertThat(sink.findByRequestId("req-long-2").orElseThrow().outputFlags()).containsExactly(OutputFlag.REPETITION);
    assertThat(TracerFactory.deferredChars(tracer)).isZero();
  }

  @Test
  void anInputOverTheBudgetIsInspectedAndDigestedOnTheCallerAndKeptByNoQueuedEntry() {
    tracer.close();
    tracer = new TracerFactory().sink(sink).inputDigest(true).clocks(wall, nanos::get).build();
    String huge = "mail alice@example.com " + "y".repeat((int) TracerFactory.DEFERRED_CHARS_BUDGET);
    try (InferenceTrace t = tracer.start("m", "req-over-the-budget")) {
      t.input(huge).error("boom");
    }
    assertThat(TracerFactory.deferredChars(tracer)).as("neither its flags nor its digest wait for the worker").isZero();
    tracer.flush().join();
    InferenceRecord r = sink.findByRequestId("req-over-the-budget").orElseThrow();
    assertThat(r.inputFlags()).contains(InputFlag.VERY_LONG);
    assertThat(r.inputDigest()).isNotNull().doesNotContain("alice@example.com").contains("[EMAIL]");
  }

  @Test
  void aSampledOutRequestGivesItsShareOfTheDeferredTextBudgetBack() {
    tracer.close();
    tracer = new TracerFactory().sink(sink).inputDigest(true)
        .sampler(io.github.trtrace.core.sampling.Sampler.builder().rate(0.0).adaptiveSlow(false).build())
        .clocks(wall, nanos::get).build();
    try (InferenceTrace t = tracer.start("m", "req-sampled-out")) {
      t.input("a prompt\u202E").output("an answer");
      t.input("a second prompt replaces the first"); // the first one's share is given back here
      assertThat(TracerFactory.deferredChars(tracer)).isEqualTo("a second prompt replaces the first".length() + "an answer".length());
    }
    assertThat(tracer.stats().sampledOut()).isEqualTo(1);
    assertThat(TracerFactory.deferredChars(tracer)).isZero();
  }

  /** Traces a request with a long input and output; returns the texts, weakly. */
  private List<java.lang.ref.WeakReference<String>> traceLongTexts(String id) {
    String input = "lorem ipsum ".repeat(1_000) + "\u200B";
    String output = "ha".repeat(10_000);
    try (InferenceTrace t = tracer.start("m", id)) {
      t.input(input).output(output);
    }
    return List.of(new java.lang.ref.WeakReference<>(input), new java.lang.ref.WeakReference<>(output));
  }

  @Test
  void aListenerSeesTheFlagsAndDigestOfAStringInput() {
    tracer.close();
    List<InferenceRecord> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    tracer = new TracerFactory().sink(sink).inputDigest(true).clocks(wall, nanos::get)
        .listener((trace, startEpochNanos) -> new TraceListener.Handle() {
          @Override
          public void onEnd(InferenceRecord record, long endEpochNanos) {
            seen.add(record);
          }
        })
        .build();
    try (InferenceTrace t = tracer.start("m", "req-listened")) {
      t.input("mail alice@example.com \u202E");
      t.error("boom");
    }
    InferenceRecord r = onlyRecord();
    assertThat(seen).hasSize(1);
    for (InferenceRecord x : List.of(r, seen.get(0))) {
      assertThat(x.inputFlags()).containsExactly(InputFlag.BIDI_CONTROL);
      assertThat(x.inputDigest()).isEqualTo("mail [EMAIL] \u27e6U+202E\u27e7");
    }
  }

  @Test
  void sampledOutRequestsStillCount() {
    tracer.close();
    tracer = new TracerFactory()
        .sink(sink)
        .sampler(Sampler.builder().rate(0.0).adaptiveSlow(false).build())
        .clocks(wall, nanos::get)
        .build();
    for (int i = 0; i < 10; i++) {
      try (InferenceTrace t = tracer.start("m")) {
        advanceMs(1);
      }
    }
    try (InferenceTrace t = tracer.start("m", "req-kept")) {
      t.error("x");
    }
    tracer.flush().join();
    assertThat(sink.records()).extracting(InferenceRecord::requestId).containsExactly("req-kept");
    TracerStats s = tracer.stats();
    assertThat(s.started()).isEqualTo(11);
    assertThat(s.ended()).isEqualTo(11);
    assertThat(s.sampledOut()).isEqualTo(10);
    assertThat(s.enqueued()).isEqualTo(1);
  }

  @Test
  void settingsFromEnvironmentAreAppliedAndBadValuesNamed() {
    Map<String, String> env = new HashMap<>();
    env.put(TracerSettings.ENV_SAMPLE_RATE, "0.5");
    env.put(TracerSettings.ENV_QUEUE_POLICY, "drop");
    env.put(TracerSettings.ENV_QUEUE_SIZE, "1024");
    TracerFactory ok = new TracerFactory().fromEnvironment((p, e) -> env.get(e));
    assertThat(ok.environmentSampler()).isNotNull();
    env.put(TracerSettings.ENV_SAMPLE_RATE, "1.5");
    assertThatThrownBy(() -> new TracerFactory().fromEnvironment((p, e) -> env.get(e)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TRTRACE_SAMPLE_RATE");
    env.put(TracerSettings.ENV_SAMPLE_RATE, "0.5");
    env.put(TracerSettings.ENV_QUEUE_POLICY, "sometimes");
    assertThatThrownBy(() -> new TracerFactory().fromEnvironment((p, e) -> env.get(e)))
        .hasMessageContaining("TRTRACE_QUEUE_POLICY");
  }

  @Test
  void everyOutOfRangeSettingFailsNamingItsVariableAndProperty() {
    Map<String, String> bad = Map.of(
        TracerSettings.ENV_SAMPLE_RATE, "half",
        TracerSettings.ENV_SLOW_MS, "0.0000001",
        TracerSettings.ENV_QUEUE_SIZE, "0",
        TracerSettings.ENV_QUEUE_POLICY, "sometimes",
        TracerSettings.ENV_INPUT_DIGEST, "yes",
        TracerSettings.ENV_LOG_PATH, "logs/\0.log");
    bad.forEach((name, value) ->
        assertThatThrownBy(() -> new TracerFactory().fromEnvironment((p, e) -> e.equals(name) ? value : null))
            .as(name)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith(name + " (trtrace."));
  }

  @Test
  void anInvalidSettingOpensNoLogFile(@TempDir Path dir) {
    Path log = dir.resolve("inference.log");
    Map<String, String> env = Map.of(
        TracerSettings.ENV_LOG_PATH, log.toString(),
        TracerSettings.ENV_QUEUE_SIZE, "-1");
    assertThatThrownBy(() -> new TracerFactory().fromEnvironment((p, e) -> env.get(e)))
        .hasMessageContaining(TracerSettings.ENV_QUEUE_SIZE);
    assertThat(log).doesNotExist();
  }

  @Test
  void logPathSampleRateSlowThresholdAndDigestFromEnvironmentShapeTheLog(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("logs").resolve("inference.log");
    Map<String, String> env = Map.of(
        TracerSettings.ENV_LOG_PATH, log.toString(),
        TracerSettings.ENV_SAMPLE_RATE, "0",
        TracerSettings.ENV_SLOW_MS, "5",
        TracerSettings.ENV_INPUT_DIGEST, "TRUE");
    tracer.close();
    tracer = new TracerFactory().fromEnvironment((p, e) -> env.get(e)).clocks(wall, nanos::get).build();
    for (int i = 0; i < 3; i++) {
      try (InferenceTrace t = tracer.start("m", "req-fast-" + i)) {
        advanceMs(1);                           // ordinary success at rate 0: sampled out
      }
    }
    try (InferenceTrace t = tracer.start("m", "req-slow")) {
      t.input("call me on 0123456789012");
      advanceMs(6);                             // above TRTRACE_SLOW_MS: kept, with a digest
    }
    tracer.close();
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).contains("\"request_id\":\"req-slow\"", "\"sampled_reason\":\"slow\"", "\"input_digest\":");
    assertThat(lines.get(0)).doesNotContain("0123456789012");
    assertThat(tracer.stats().sampledOut()).isEqualTo(3);
  }

  @Test
  void queueSizeAndDropPolicyFromEnvironmentDropAndCountWhenTheSinkStalls() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    RecordSink stalled = RecordSink.named("stalled", batch -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    Map<String, String> env = Map.of(
        TracerSettings.ENV_QUEUE_SIZE, "2",
        TracerSettings.ENV_QUEUE_POLICY, "drop");
    tracer.close();
    tracer = new TracerFactory().fromEnvironment((p, e) -> env.get(e)).sink(stalled).build();
    try {
      for (int i = 0; i < 20; i++) {
        try (InferenceTrace t = tracer.start("m")) {
          t.outputTokens(1);
        }
      }
      DispatcherStats d = tracer.stats().dispatcher();
      assertThat(d.droppedQueueFull()).as("a queue of 2 cannot take 20 records while the sink stalls").isPositive();
      assertThat(d.droppedBlockTimeout()).as("drop policy never waits").isZero();
    } finally {
      release.countDown();
    }
  }

  @Test
  void aSystemPropertyWinsOverTheEnvironmentVariable() {
    String property = "trtrace.sample.rate";
    String before = System.getProperty(property);
    System.setProperty(property, "0.25");
    try {
      assertThat(TracerSettings.systemLookup().get(property, TracerSettings.ENV_SAMPLE_RATE))
          .isEqualTo("0.25");
    } finally {
      if (before == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, before);
      }
    }
    assertThat(TracerSettings.systemLookup().get("trtrace.no.such.property", "PATH"))
        .as("falls back to the environment").isEqualTo(System.getenv("PATH"));
  }

  @Test
  void aTracerWithoutSinkIsRefusedWithAClearMessage() {
    assertThatThrownBy(() -> new TracerFactory().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no sink");
  }

  @Test
  void noopTracerRecordsNothingAndNeverFails() {
    InferenceTracer noop = InferenceTracer.noop();
    try (InferenceTrace t = noop.start("m")) {
      t.stage(Stage.INFER).close();
      t.token().error("x").layers(List.of());
    }
    assertThat(noop.stats().ended()).isZero();
    noop.flush().join();
    noop.close();
  }

  @Test
  void recordsCarryTheMeanAndMaximumGpuUtilisationOverTheirOwnLifetime() throws Exception {
    tracer.close();
    java.util.concurrent.BlockingQueue<io.github.trtrace.core.gpu.GpuMetricsSource.Reading> readings =
        new java.util.concurrent.LinkedBlockingQueue<>();
    AtomicLong reads = new AtomicLong();
    io.github.trtrace.core.gpu.GpuMetricsSource source = () -> {
      reads.incrementAndGet(); // the poller reads again only after it stored the previous reading
      return readings.take();
    };
    tracer = new TracerFactory().sink(sink).gpuMetrics(source, Duration.ofMillis(10)).build();
    long[] fed = {0};
    java.util.function.DoubleConsumer poll = util -> {
      readings.add(io.github.trtrace.core.gpu.GpuMetricsSource.Reading.builder().utilPercent(util)
          .memUtilPercent(util / 2).memUsedMb(1000 + util).memTotalMb(143_771).temperatureC(41).smClockMhz(1980)
          .build());
      long n = ++fed[0];
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> reads.get() > n);
    };
    poll.accept(90); // before the request: not counted
    poll.accept(10); // in effect when it starts
    InferenceTrace t = tracer.start("m", "req-gpu-window");
    poll.accept(50);
    poll.accept(30);
    t.close();
    InferenceRecord r = onlyRecord();
    assertThat(r.gpuUtilMean()).isEqualTo(30.0);
    assertThat(r.gpuUtilMax()).isEqualTo(50.0);
    assertThat(r.gpuMemUtilMean()).isEqualTo(15.0);
    assertThat(r.gpuMemUtilMax()).isEqualTo(25.0);
    assertThat(r.gpuUtil()).as("the latest reading").isEqualTo(30.0);
    assertThat(r.gpuMemUsedMb()).isEqualTo(1030.0);
  }

  @Test
  void recordsCarryTheLatestGpuReadingPolledOffTheRequestPath() {
    tracer.close();
    java.util.Set<Thread> pollingThreads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    io.github.trtrace.core.gpu.GpuMetricsSource source = () -> {
      pollingThreads.add(Thread.currentThread());
      return io.github.trtrace.core.gpu.GpuMetricsSource.Reading.builder().utilPercent(87.0).memUsedMb(61_440)
          .memTotalMb(143_771).temperatureC(41).smClockMhz(1980).build();
    };
    tracer = new TracerFactory().sink(sink).gpuMetrics(source, Duration.ofMillis(10)).build();
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !pollingThreads.isEmpty());
    try (InferenceTrace t = tracer.start("m", "req-gpu")) {
      t.outputTokens(1);
    }
    InferenceRecord r = onlyRecord();
    assertThat(r.gpuUtil()).isEqualTo(87.0);
    assertThat(r.gpuMemUsedMb()).isEqualTo(61_440.0);
    assertThat(pollingThreads).doesNotContain(Thread.currentThread());
  }

  @Test
  void closeDrainsEverythingEnded() throws InterruptedException {
    for (int i = 0; i < 500; i++) {
      try (InferenceTrace t = tracer.start("m", "req-drain-" + i)) {
        t.outputTokens(i);
      }
    }
    tracer.close();
    assertThat(sink.records()).hasSize(500);
    assertThat(sink.awaitCount(500, Duration.ofSeconds(1))).isTrue();
  }
}
