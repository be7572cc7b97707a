package io.github.trtrace.benchmarks;

import io.github.trtrace.benchmarks.peers.Producer;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.otel.GenAiConvention;
import io.github.trtrace.otel.TrtraceOpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
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
 * One traced request with OpenTelemetry on the real SDK (always-on sampler, spans through the SDK's
 * {@code BatchSpanProcessor} with its defaults to an exporter that counts and discards, metrics
 * aggregated for a periodic reader), the caller's cost of each request sampled (JMH {@code SampleTime}):
 *
 * <ul>
 *   <li>{@link #tracedThroughTraceOtel}: the trtrace tracer with the trace-otel listener;
 *   <li>{@link #handWrittenOtel}: the peer, the trtrace tracer without a listener plus hand-written
 *       OTel instrumentation of the same shape: a SERVER span with the same attributes, made current
 *       around the body, one child span per stage (the launch inside decode), and the same six metric
 *       points. Goal (issue 10): {@code tracedThroughTraceOtel / handWrittenOtel <= 1.15}, paced, at 1 and 2
 *       threads.
 * </ul>
 *
 * <p>{@code totalRate} paces the producers as in the peer benchmarks ({@link Producer}: requests per second
 * over all threads, the wait outside the measured time; 0 = saturation). The spans each variant offered and
 * the exporter received are printed at the end of a trial: a faster variant that exported less is no win.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
public class OtelListenerBenchmark {
  private static final String MODEL = "llama-8b";
  /** Spans per request: the request span and queue, preprocess, decode, its launch, postprocess. */
  private static final int SPANS = 6;

  /** Requests per second over all producer threads; 0 = saturation (no pacing). */
  @Param({"0"})
  public int totalRate;

  private OpenTelemetrySdk listenerSdk;
  private OpenTelemetrySdk handSdk;
  private InferenceTracer withListener;
  private InferenceTracer plain;
  private Hand hand;
  private final CountingSpans listenerSpans = new CountingSpans();
  private final CountingSpans handSpans = new CountingSpans();
  private final LongAdder listenerRequests = new LongAdder();
  private final LongAdder handRequests = new LongAdder();

  @Setup(Level.Trial)
  public void setUp() {
    listenerSdk = sdk(listenerSpans);
    handSdk = sdk(handSpans);
    withListener = tracer(TrtraceOpenTelemetry.create(listenerSdk));
    plain = tracer(null);
    hand = new Hand(handSdk);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    withListener.close();
    plain.close();
    listenerSdk.close(); // flushes the batch processor
    handSdk.close();
    report("trace-otel", listenerRequests.sum(), listenerSpans.exported.sum());
    report("hand-written", handRequests.sum(), handSpans.exported.sum());
  }

  private static void report(String variant, long requests, long exported) {
    if (requests > 0) {
      System.out.printf("%n[%s] offered=%d requests (%d spans); exported spans=%d (%.1f%%)%n", variant, requests,
          SPANS * requests, exported, 100.0 * exported / (SPANS * requests));
    }
  }

  private static InferenceTracer tracer(io.github.trtrace.core.TraceListener listener) {
    InferenceTracer.Builder b =
        InferenceTracer.builder()
            .sink(RecordSink.named("discard", batch -> {}))
            .queueFullPolicy(QueueFullPolicy.DROP)
            .queueCapacity(65_536);
    if (listener != null) {
      b.listener(listener);
    }
    return b.build();
  }

  private static OpenTelemetrySdk sdk(CountingSpans exporter) {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder().addSpanProcessor(BatchSpanProcessor.builder(exporter).build()).build())
        .setMeterProvider(
            SdkMeterProvider.builder()
                .registerMetricReader(
                    PeriodicMetricReader.builder(new DiscardMetrics()).setInterval(Duration.ofHours(1)).build())
                .build())
        .build();
  }

  /** The request body both variants run: five stages, two tokens, the usual fields. */
  private static void body(InferenceTrace t) {
    t.runStage(Stage.QUEUE, () -> {});
    t.runStage(Stage.PREPROCESS, () -> t.inputTokens(128));
    t.runStage(Stage.DECODE, () -> {
      t.runStage(Stage.INFER, () -> t.addGpuMs(4.25));
      t.token();
      t.token();
    });
    t.runStage(Stage.POSTPROCESS, () -> {});
    t.outputTokens(64).engineFingerprint("sha256:0f1e2d").finishReason("stop").maxTokens(256);
  }

  @Benchmark
  public int tracedThroughTraceOtel(Producer p) {
    listenerRequests.increment();
    return withListener.call(MODEL, t -> {
      body(t);
      return t.requestId().length();
    });
  }

  @Benchmark
  public int handWrittenOtel(Producer p) {
    handRequests.increment();
    return hand.serve(plain);
  }

  /** What a host writes by hand for the same spans and metrics, next to a listener-less trtrace tracer. */
  static final class Hand {
    private final Tracer tracer;
    private final DoubleHistogram duration;
    private final DoubleHistogram ttft;
    private final DoubleHistogram tpot;
    private final DoubleHistogram queue;
    private final LongHistogram usage;
    private final Attributes base;
    private final Attributes metricBase;
    private final Attributes input;
    private final Attributes output;

    Hand(OpenTelemetrySdk sdk) {
      tracer = sdk.getTracer("hand");
      Meter m = sdk.getMeter("hand");
      duration = m.histogramBuilder(GenAiConvention.METRIC_REQUEST_DURATION).setUnit("s")
          .setExplicitBucketBoundariesAdvice(GenAiConvention.BUCKETS_REQUEST_DURATION).build();
      ttft = m.histogramBuilder(GenAiConvention.METRIC_TIME_TO_FIRST_TOKEN).setUnit("s")
          .setExplicitBucketBoundariesAdvice(GenAiConvention.BUCKETS_TIME_TO_FIRST_TOKEN).build();
      tpot = m.histogramBuilder(GenAiConvention.METRIC_TIME_PER_OUTPUT_TOKEN).setUnit("s")
          .setExplicitBucketBoundariesAdvice(GenAiConvention.BUCKETS_TIME_PER_OUTPUT_TOKEN).build();
      queue = m.histogramBuilder(GenAiConvention.METRIC_QUEUE_DURATION).setUnit("s")
          .setExplicitBucketBoundariesAdvice(GenAiConvention.BUCKETS_REQUEST_DURATION).build();
      usage = m.histogramBuilder(GenAiConvention.METRIC_TOKEN_USAGE).setUnit("{token}").ofLongs()
          .setExplicitBucketBoundariesAdvice(GenAiConvention.BUCKETS_TOKEN_USAGE).build();
      base = Attributes.of(GenAiConvention.OPERATION_NAME, "text_completion",
          GenAiConvention.PROVIDER_NAME, "tensorrt", GenAiConvention.REQUEST_MODEL, MODEL);
      metricBase = base.toBuilder().put(GenAiConvention.RESPONSE_MODEL, MODEL).build();
      input = metricBase.toBuilder().put(GenAiConvention.TOKEN_TYPE, "input").build();
      output = metricBase.toBuilder().put(GenAiConvention.TOKEN_TYPE, "output").build();
    }

    int serve(InferenceTracer plain) {
      long t0 = System.nanoTime();
      Span root = tracer.spanBuilder("text_completion " + MODEL).setSpanKind(SpanKind.SERVER)
          .setAllAttributes(base).startSpan();
      try (InferenceTrace t = plain.start(MODEL)) {
        root.setAttribute(GenAiConvention.REQUEST_ID, t.requestId());
        SpanContext sc = root.getSpanContext();
        t.traceContext(sc.getTraceId(), sc.getSpanId());
        Context ctx = Context.current().with(root);
        long firstToken;
        try (Scope s = ctx.makeCurrent(); TraceScope ts = t.makeCurrent(); Mdc m = Mdc.put(sc)) {
          child("queue", ctx, () -> t.runStage(Stage.QUEUE, () -> {}));
          child("preprocess", ctx, () -> t.runStage(Stage.PREPROCESS, () -> t.inputTokens(128)));
          Span decode = tracer.spanBuilder("decode").setParent(ctx).startSpan();
          Context dctx = ctx.with(decode);
          t.runStage(Stage.DECODE, () -> {
            child("tensorrt.infer", dctx, () -> t.runStage(Stage.INFER, () -> t.addGpuMs(4.25)));
            t.token();
            t.token();
          });
          firstToken = System.nanoTime();
          decode.end();
          child("postprocess", ctx, () -> t.runStage(Stage.POSTPROCESS, () -> {}));
          t.outputTokens(64).engineFingerprint("sha256:0f1e2d").finishReason("stop").maxTokens(256);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double ttftSeconds = (firstToken - t0) / 1e9;
        root.setAllAttributes(Attributes.builder()
            .put(GenAiConvention.RESPONSE_MODEL, MODEL)
            .put(GenAiConvention.STATUS, "success")
            .put(GenAiConvention.USAGE_INPUT_TOKENS, 128L)
            .put(GenAiConvention.USAGE_OUTPUT_TOKENS, 64L)
            .put(GenAiConvention.REQUEST_MAX_TOKENS, 256L)
            .put(GenAiConvention.RESPONSE_FINISH_REASONS, List.of("stop"))
            .put(GenAiConvention.ENGINE_FINGERPRINT, "sha256:0f1e2d")
            .put(GenAiConvention.QUEUE_TIME, 1e-7)
            .put(GenAiConvention.TIME_TO_FIRST_TOKEN, ttftSeconds)
            .put(GenAiConvention.TIME_PER_OUTPUT_TOKEN, 1e-6)
            .put(GenAiConvention.GPU_TIME, 0.00425)
            .put(GenAiConvention.SAMPLED_REASON, "always")
            .put(GenAiConvention.KEEP, false)
            .put(GenAiConvention.LATENCY_TIME_IN_QUEUE, 1e-7)
            .put(GenAiConvention.LATENCY_TIME_TO_FIRST_TOKEN, ttftSeconds)
            .put(GenAiConvention.LATENCY_E2E, seconds)
            .put(GenAiConvention.LATENCY_TIME_IN_MODEL_PREFILL, ttftSeconds)
            .put(GenAiConvention.LATENCY_TIME_IN_MODEL_DECODE, 6.3e-5)
            .put(GenAiConvention.LATENCY_TIME_IN_MODEL_INFERENCE, seconds)
            .build());
        duration.record(seconds, metricBase);
        ttft.record((firstToken - t0) / 1e9, metricBase);
        tpot.record(1e-6, metricBase);
        queue.record(1e-7, metricBase);
        usage.record(128, input);
        usage.record(64, output);
        root.end();
        return t.requestId().length();
      }
    }

    private void child(String name, Context parent, Runnable work) {
      Span s = tracer.spanBuilder(name).setParent(parent).startSpan();
      work.run();
      s.end();
    }
  }

  /** trace_id/span_id into the MDC and the previous values back, as the listener does. */
  static final class Mdc implements AutoCloseable {
    private final String previousTrace;
    private final String previousSpan;

    private Mdc(SpanContext sc) {
      previousTrace = org.slf4j.MDC.get("trace_id");
      previousSpan = org.slf4j.MDC.get("span_id");
      org.slf4j.MDC.put("trace_id", sc.getTraceId());
      org.slf4j.MDC.put("span_id", sc.getSpanId());
    }

    static Mdc put(SpanContext sc) {
      return new Mdc(sc);
    }

    @Override
    public void close() {
      restore("trace_id", previousTrace);
      restore("span_id", previousSpan);
    }

    private static void restore(String key, String previous) {
      if (previous == null) {
        org.slf4j.MDC.remove(key);
      } else {
        org.slf4j.MDC.put(key, previous);
      }
    }
  }

  /** Counts the spans it receives and discards them. */
  static final class CountingSpans implements SpanExporter {
    final LongAdder exported = new LongAdder();

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
      exported.add(spans.size());
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }

  static final class DiscardMetrics implements MetricExporter {
    @Override
    public AggregationTemporality getAggregationTemporality(InstrumentType type) {
      return AggregationTemporality.CUMULATIVE;
    }

    @Override
    public CompletableResultCode export(Collection<MetricData> metrics) {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }
}
