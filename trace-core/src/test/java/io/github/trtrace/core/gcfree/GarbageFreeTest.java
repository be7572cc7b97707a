package io.github.trtrace.core.gcfree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.context.RequestContext;
import java.lang.management.ManagementFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.MDC;

/**
 * Issue 10's zero-allocation goal, measured the way Log4j2's {@code GcFreeLoggingTestUtil} does:
 * the bytes the caller thread allocates ({@code com.sun.management.ThreadMXBean
 * #getCurrentThreadAllocatedBytes}) around {@value #REQUESTS} traced requests after a warm-up, to a
 * real {@code JsonLinesFileSink} with default settings (rotation and gzip on). The request is the
 * benchmarks' {@code RequestShape}: request context with a given request ID and the MDC, a trace,
 * four stages, fifteen fields, end, hand-off to the dispatcher.
 *
 * <p>Runs in a JVM of its own (surefire execution {@code garbage-free}): strict context mode off
 * (strict mode records a stack trace per scope on purpose) and {@link GarbageFreeMdcProvider} as
 * the SLF4J provider, so the MDC adapter allocates nothing itself. The best of five rounds counts:
 * a one-off JIT event (a deoptimisation, a late compilation) may allocate once; an allocation on the
 * request path shows in every round.
 */
class GarbageFreeTest {
  static final int WARMUP = 60_000;
  /** At least this long of warm-up (see {@link #bytesPerRequest}). */
  static final long WARMUP_NANOS = 2_500_000_000L;
  static final int ROUNDS = 5;
  static final int REQUESTS = 100_000;
  /** What the caller may allocate per request on average, in bytes. Issue 10's goal is 0. */
  static final double LIMIT_BYTES_PER_REQUEST = 1.0;

  static final String MODEL = "llama-8b";
  /** Inspected by {@code input()} / {@code output()} (flags only; no input digest, the default). */
  static final String PROMPT = "Summarise the attached report in three sentences, please.\u200b";
  static final String ANSWER = "The report finds that latency fell by a third after the upgrade.";
  private static final String[] IDS = new String[1024];

  static {
    for (int i = 0; i < IDS.length; i++) {
      IDS[i] = "req-gcfree-" + i;
    }
  }

  @TempDir Path dir;

  @Test
  void aTracedRequestAllocatesNothingOnTheCallerThread() {
    double best = bytesPerRequest("run, garbageFree(true)", true, GarbageFreeTest::requests);
    assertThat(best).as("caller-thread bytes per traced request, garbageFree(true)").isLessThan(LIMIT_BYTES_PER_REQUEST);
  }

  /**
   * Without {@code garbageFree(true)} the trace object is new per request (its stage handles and
   * arrays with it): 384 bytes on JDK 17 and 25 when this was written, against 1,448 before issue 10.
   * Pinned, so that a regression on the default path shows too.
   */
  @Test
  void withoutGarbageFreeModeOnlyTheTraceObjectIsAllocated() {
    double best = bytesPerRequest("run, garbageFree(false)", false, GarbageFreeTest::requests);
    assertThat(best).as("caller-thread bytes per traced request, garbageFree(false)").isLessThan(DEFAULT_MODE_LIMIT_BYTES);
  }

  /** The default mode's pinned figure (see {@link #withoutGarbageFreeModeOnlyTheTraceObjectIsAllocated}). */
  static final double DEFAULT_MODE_LIMIT_BYTES = 400;

  /**
   * The benchmarks' {@code TrtraceFileBenchmark} calls: {@code RequestContext.with(id).model(..).build()
   * .open()} and {@code tracer.start(model)}, both public objects the caller holds (a context, a scope,
   * a trace), so never reused: 472 bytes on JDK 25 when this was written, against about 1,580 before issue 10.
   * Pinned, so that a regression on this path shows too.
   */
  @Test
  void theStartPathAllocatesTheContextTheScopeAndTheTrace() {
    double best = bytesPerRequest("open + start", false, GarbageFreeTest::startRequests);
    assertThat(best).as("caller-thread bytes per traced request, start()").isLessThan(START_PATH_LIMIT_BYTES);
  }

  /**
   * 472-488 B when the JIT has inlined the start path; 501.9 B was the best of three rounds once on a 2-core machine
   * at load 15 (2026-12-02, after the trace's split into superclasses), where escape analysis had not yet removed
   * one temporary. The limit keeps a margin over that variance and stays far below the 1,580 B this pins against.
   */
  static final double START_PATH_LIMIT_BYTES = 560;

  /** Warm-up, then the best of {@value #ROUNDS} rounds of {@value #REQUESTS} requests; checks the counts. */
  private double bytesPerRequest(String label, boolean garbageFree, Workload workload) {
    assumeTrue(Boolean.getBoolean("trtrace.gcfree.execution"), "runs in surefire execution garbage-free only");
    assertThat(System.getProperty("trtrace.context.strict")).isEqualTo("false");
    assertThat(MDC.getMDCAdapter()).isInstanceOf(GarbageFreeMdcProvider.FixedSlotMdc.class);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
    threads.setThreadAllocatedMemoryEnabled(true);

    Path log = dir.resolve("inference-" + garbageFree + "-" + System.nanoTime() + ".log");
    InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(log).garbageFree(garbageFree).build();
    double best = Double.MAX_VALUE;
    try {
      // Warm-up past two of the tracer's once-a-second wall-clock checks: until that branch is first taken, C2
      // compiles it as a trap, and the deoptimised request path then runs with escape analysis undone until it is
      // recompiled (JDK 17 under a loaded CI: 18, 18 and 1.7 B per request in three rounds after 60,000 requests,
      // the same before and after the check's rewrite; a request-path allocation shows in every round).
      long warmUntil = System.nanoTime() + WARMUP_NANOS;
      long n = 0;
      while (n < WARMUP || System.nanoTime() < warmUntil) {
        workload.run(tracer, n, 10_000);
        n += 10_000;
      }
      tracer.flush().join();
      for (int round = 0; round < ROUNDS; round++) {
        long before = threads.getCurrentThreadAllocatedBytes();
        workload.run(tracer, n, REQUESTS);
        long after = threads.getCurrentThreadAllocatedBytes();
        n += REQUESTS;
        double perRequest = (after - before) / (double) REQUESTS;
        System.out.printf("GarbageFreeTest %s round %d: %.3f bytes per request on the caller thread%n",
            label, round, perRequest);
        best = Math.min(best, perRequest);
        tracer.flush().join();
      }
      System.out.printf("GarbageFreeTest %s: %.3f bytes per request (best of %d rounds of %d)%n",
          label, best, ROUNDS, REQUESTS);
      TracerStats stats = tracer.stats();
      assertThat(stats.ended()).isEqualTo(n);
      assertThat(stats.misuse()).isZero();
    } finally {
      tracer.close();
    }
    TracerStats stats = tracer.stats();
    // every record is accounted for: written to the file, or dropped and counted
    long written = stats.dispatcher().sinks().values().iterator().next().written();
    assertThat(written + stats.dispatcher().dropped()).isEqualTo(stats.ended() - stats.sampledOut());
    assertThat(stats.recordErrors()).isZero();
    assertTheLastLineIsTheShape(log);
    return best;
  }

  /** The records are complete: the last line written has every field of the request. */
  private static void assertTheLastLineIsTheShape(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      JsonNode r = new ObjectMapper().readTree(lines.get(lines.size() - 1));
      assertThat(r.get("request_id").asText()).startsWith("req-gcfree-");
      assertThat(r.get("model_name").asText()).isEqualTo(MODEL);
      for (String field : List.of("queue_ms", "preprocess_ms", "infer_ms", "decode_ms", "ttft_ms", "tpot_ms", "latency_ms")) {
        assertThat(r.has(field)).as(field).isTrue();
      }
      assertThat(r.get("input_tokens").asInt()).isEqualTo(128);
      assertThat(r.get("output_tokens").asInt()).isEqualTo(64);
      assertThat(r.get("max_tokens").asInt()).isEqualTo(256);
      assertThat(r.get("temperature").asDouble()).isEqualTo(0.7);
      assertThat(r.get("top_p").asDouble()).isEqualTo(0.9);
      assertThat(r.get("finish_reason").asText()).isEqualTo("stop");
      assertThat(r.get("gpu_ms").asDouble()).isEqualTo(4.25);
      assertThat(r.get("engine_fingerprint").asText()).isEqualTo("sha256:0f1e2d");
      assertThat(r.get("trace_id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
      assertThat(r.get("span_id").asText()).isEqualTo("00f067aa0ba902b7");
      assertThat(r.get("attributes").get("tenant").asText()).isEqualTo("acme");
      assertThat(r.get("attributes").get("route").asText()).isEqualTo("/v1/chat");
      assertThat(r.get("input_flags").toString()).isEqualTo("[\"zero_width\"]");
      assertThat(r.has("output_flags")).isFalse();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Traced requests {@code first} to {@code first + count - 1}. */
  interface Workload {
    void run(InferenceTracer tracer, long first, int count);
  }

  /** The same requests through the public context scope and {@code tracer.start}. */
  static void startRequests(InferenceTracer tracer, long first, int count) {
    for (long i = first; i < first + count; i++) {
      try (RequestContext.Scope scope = RequestContext.with(IDS[(int) (i & 1023)]).model(MODEL).build().open();
          InferenceTrace t = tracer.start(MODEL)) {
        request(t);
      }
    }
  }

  /** {@code count} requests of the benchmarks' RequestShape. */
  static void requests(InferenceTracer tracer, long first, int count) {
    for (long i = first; i < first + count; i++) {
      tracer.run(MODEL, IDS[(int) (i & 1023)], GarbageFreeTest::request);
    }
  }

  private static void request(InferenceTrace t) {
    t.stage(Stage.QUEUE).close();
    InferenceTrace.StageTimer s = t.stage(Stage.PREPROCESS);
    t.input(PROMPT).inputTokens(128).maxTokens(256).temperature(0.7).topP(0.9);
    s.close();
    s = t.stage(Stage.INFER);
    t.addGpuMs(4.25);
    s.close();
    s = t.stage(Stage.DECODE);
    t.token();
    t.token();
    s.close();
    t.output(ANSWER).outputTokens(64).finishReason("stop").engineFingerprint("sha256:0f1e2d");
    t.attribute("tenant", "acme").attribute("route", "/v1/chat");
    t.traceContext("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
  }
}
