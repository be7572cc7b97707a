package io.github.trtrace.benchmarks.peers;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
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
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Peer: the OpenTelemetry SDK with its {@code BatchSpanProcessor} (default queue 2048, batch 512)
 * exporting to a JSON Lines file; the same request hand-instrumented as five spans (a SERVER span
 * with the 15 attributes, made current, and queue / preprocess / infer / decode children).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
public class OtelSdkBenchmark {
  /** Requests per second over all producer threads; 0 = saturation (no pacing). */
  @Param({"0"})
  public int totalRate;

  private Path dir;
  private SdkTracerProvider provider;
  private Tracer tracer;
  private final LongAdder offered = new LongAdder();

  /** Spans on disk after the last {@link #tearDown}. */
  static volatile long lastExported;


  @Setup(Level.Trial)
  public void setUp() {
    dir = WrittenLines.newDirectory("otel");
    provider =
        SdkTracerProvider.builder()
            .addSpanProcessor(
                BatchSpanProcessor.builder(new JsonLinesSpanExporter(dir.resolve("spans.jsonl"))).build())
            .build();
    tracer = provider.get("bench");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    provider.shutdown().join(30, TimeUnit.SECONDS);
    long spans = WrittenLines.count(dir);
    lastExported = spans;
    System.out.printf("%n[otel-sdk] offered=%d requests (%d spans); exported spans=%d (%.1f%%)%n",
        offered.sum(), 5 * offered.sum(), spans, 100.0 * spans / Math.max(1, 5 * offered.sum()));
    WrittenLines.delete(dir);
  }

  @Benchmark
  public long request(Producer p) {
    offered.increment();
    String id = p.nextRequestId();
    Span root = tracer.spanBuilder("chat " + RequestShape.MODEL).setSpanKind(SpanKind.SERVER).startSpan();
    try (Scope scope = root.makeCurrent()) {
      root.setAttribute("trtrace.request_id", id);
      tracer.spanBuilder("queue").startSpan().end();
      Span pre = tracer.spanBuilder("preprocess").startSpan();
      root.setAttribute("gen_ai.usage.input_tokens", RequestShape.INPUT_TOKENS);
      pre.end();
      Span infer = tracer.spanBuilder("tensorrt.infer").startSpan();
      root.setAttribute("trtrace.gpu_ms", RequestShape.GPU_MS);
      infer.end();
      Span decode = tracer.spanBuilder("decode").startSpan();
      decode.end();
      root.setAttribute("gen_ai.operation.name", "chat");
      root.setAttribute("gen_ai.request.model", RequestShape.MODEL);
      root.setAttribute("gen_ai.usage.output_tokens", RequestShape.OUTPUT_TOKENS);
      root.setAttribute("trtrace.engine_fingerprint", RequestShape.FINGERPRINT);
      root.setAttribute("tenant", RequestShape.TENANT);
      root.setAttribute("http.route", RequestShape.ROUTE);
      root.setAttribute("trtrace.queue_ms", 0.001);
      root.setAttribute("trtrace.ttft_ms", 0.002);
      root.setAttribute("trtrace.tpot_ms", 0.001);
      root.setAttribute("trtrace.status", "success");
      root.setAttribute("trtrace.latency_ms", 0.003);
      root.setAttribute("trtrace.input_flags", "");
      return id.length();
    } finally {
      root.end();
    }
  }

}
