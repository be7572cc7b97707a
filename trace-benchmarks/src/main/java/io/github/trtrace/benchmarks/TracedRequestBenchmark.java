package io.github.trtrace.benchmarks;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.sink.RecordSink;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Caller-thread cost of tracing one request: open a request context, start a trace, time four
 * stages, set 15 record fields, end it (snapshot + hand-off to the dispatcher). The sink discards
 * records so the figure is the request thread's share; the worker runs on the other core.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class TracedRequestBenchmark {
  private InferenceTracer tracer;
  /** {@code garbageFree(true)}: call/run reuse their thread's traces (issue 10). */
  private InferenceTracer garbageFree;
  private static final String[] IDS = new String[1024];
  private long n;

  static {
    for (int i = 0; i < IDS.length; i++) {
      IDS[i] = "req-bench-" + i;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    tracer =
        InferenceTracer.builder()
            .sink(RecordSink.named("discard", batch -> {}))
            .queueFullPolicy(QueueFullPolicy.DROP)
            .queueCapacity(65_536)
            .build();
    garbageFree =
        InferenceTracer.builder()
            .sink(RecordSink.named("discard-gc-free", batch -> {}))
            .queueFullPolicy(QueueFullPolicy.DROP)
            .queueCapacity(65_536)
            .garbageFree(true)
            .build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    System.out.println("\n" + tracer.stats());
    System.out.println(garbageFree.stats());
    tracer.close();
    garbageFree.close();
  }

  /** The traced request. */
  @Benchmark
  public long tracedRequest() {
    String id = "req-bench-" + (n++ & 1023);
    try (RequestContext.Scope scope = RequestContext.with(id).model("llama-8b").build().open();
        InferenceTrace t = tracer.start("llama-8b")) {
      request(t);
      return t.elapsedNanos();
    }
  }

  /**
   * The same request through {@code tracer.run(model, requestId, body)} on a {@code garbageFree(true)}
   * tracer (the request ID from a fixed pool, no string building): GarbageFreeTest's path, expected
   * to show 0 B/op under {@code -prof gc}.
   */
  @Benchmark
  public long tracedRequestGarbageFree() {
    garbageFree.run("llama-8b", IDS[(int) (n++ & 1023)], TracedRequestBenchmark::request);
    return n;
  }

  private static void request(InferenceTrace t) {
    t.stage(Stage.QUEUE).close();
    try (var s = t.stage(Stage.PREPROCESS)) {
      t.inputTokens(128);
    }
    try (var s = t.stage(Stage.INFER)) {
      t.addGpuMs(4.25);
    }
    try (var s = t.stage(Stage.DECODE)) {
      t.token();
      t.token();
    }
    t.outputTokens(64).engineFingerprint("sha256:0f1e2d").attribute("tenant", "acme");
    t.attribute("route", "/v1/chat").traceContext("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
  }

  /** The same shape of work with tracing off ({@link InferenceTracer#noop()}). */
  @Benchmark
  public long noopTracer() {
    InferenceTracer off = InferenceTracer.noop();
    try (InferenceTrace t = off.start("llama-8b")) {
      t.stage(Stage.QUEUE).close();
      t.stage(Stage.PREPROCESS).close();
      t.stage(Stage.INFER).close();
      t.stage(Stage.DECODE).close();
      t.outputTokens(64).inputTokens(128);
      return t.elapsedNanos() + n++;
    }
  }
}
