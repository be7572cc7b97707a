package io.github.trtrace.benchmarks.peers;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * trtrace with its JSON Lines file sink at default settings (rotation and gzip on): open a request
 * context (request ID, MDC), start a trace, four stages, 15 fields, end it ({@code -Dbench.trtrace.plainRotated=true}:
 * rotated files not gzipped, a diagnosis variant). Peers:
 * {@link Log4j2AsyncBenchmark}, {@link LogbackAsyncBenchmark}, {@link OtelSdkBenchmark}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class TrtraceFileBenchmark {
  /** Requests per second over all producer threads; 0 = saturation (no pacing). */
  @Param({"0"})
  public int totalRate;

  private Path dir;
  private InferenceTracer tracer;
  private final LongAdder offered = new LongAdder();

  /** The sink's own written count after the last {@link #tearDown} (retention may delete files). */
  static volatile long lastSinkWritten;

  /** Records the dispatcher dropped (counted) in the last trial. */
  static volatile long lastDropped;


  @Setup(Level.Trial)
  public void setUp() {
    dir = WrittenLines.newDirectory("trtrace");
    // trtrace.* system properties of the fork apply (none by default), e.g. -jvmArgsAppend -Dtrtrace.batch.size=256
    InferenceTracer.Builder b = InferenceTracer.builder();
    if (Boolean.getBoolean("bench.trtrace.plainRotated")) {
      // a diagnosis variant, not the default: rotated files left uncompressed, as the Log4j2 and Logback peers
      // leave their one file (BENCHMARKS.md section 2)
      try {
        b.sink(JsonLinesFileSink.builder(dir.resolve("inference.log")).gzipRotated(false).build());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else {
      b.jsonLinesFile(dir.resolve("inference.log"));
    }
    tracer = b.fromProperties(System::getProperty).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    tracer.close();
    TracerStats stats = tracer.stats();
    System.out.println("\n" + stats);
    lastSinkWritten = stats.dispatcher().sinks().values().stream().mapToLong(s -> s.written()).sum();
    lastDropped = stats.dispatcher().dropped();
    WrittenLines.report("trtrace", offered.sum(), dir);
    WrittenLines.delete(dir);
  }

  @Benchmark
  public long request(Producer p) {
    offered.increment();
    String id = p.nextRequestId();
    try (RequestContext.Scope scope = RequestContext.with(id).model(RequestShape.MODEL).build().open();
        InferenceTrace t = tracer.start(RequestShape.MODEL)) {
      body(t);
      return t.elapsedNanos();
    }
  }

  /** The request's body, as every peer records it: four stages and the same 15 fields. */
  static void body(InferenceTrace t) {
    t.stage(Stage.QUEUE).close();
    InferenceTrace.StageTimer s = t.stage(Stage.PREPROCESS);
    t.inputTokens(RequestShape.INPUT_TOKENS);
    s.close();
    s = t.stage(Stage.INFER);
    t.addGpuMs(RequestShape.GPU_MS);
    s.close();
    s = t.stage(Stage.DECODE);
    t.token();
    t.token();
    s.close();
    t.outputTokens(RequestShape.OUTPUT_TOKENS).engineFingerprint(RequestShape.FINGERPRINT);
    t.attribute("tenant", RequestShape.TENANT).attribute("route", RequestShape.ROUTE);
    t.traceContext(RequestShape.TRACE_ID, RequestShape.SPAN_ID);
  }
}
