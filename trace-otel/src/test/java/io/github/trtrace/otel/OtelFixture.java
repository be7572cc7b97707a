package io.github.trtrace.otel;

import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.testing.InMemorySink;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/** A real OTel SDK exporting to memory, and a tracer with a manual clock listening to trace-otel. */
final class OtelFixture implements AutoCloseable {
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  static final long T0_NANOS = TimeUnit.SECONDS.toNanos(T0.getEpochSecond());

  final InMemorySpanExporter spans = InMemorySpanExporter.create();
  final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  final OpenTelemetrySdk sdk;
  final TrtraceOpenTelemetry otel;
  final InMemorySink sink = InMemorySink.create();
  final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  final InferenceTracer tracer;

  OtelFixture() {
    this(io.opentelemetry.sdk.trace.samplers.Sampler.alwaysOn(), b -> {}, Sampler.builder().build());
  }

  OtelFixture(
      io.opentelemetry.sdk.trace.samplers.Sampler otelSampler,
      Consumer<TrtraceOpenTelemetry.Builder> options,
      Sampler recordSampler) {
    sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .setSampler(otelSampler)
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    TrtraceOpenTelemetry.Builder b = TrtraceOpenTelemetry.builder(sdk);
    options.accept(b);
    otel = b.build();
    tracer =
        new TracerFactory()
            .sink(sink)
            .listener(otel)
            .sampler(recordSampler)
            .clocks(Clock.fixed(T0, ZoneOffset.UTC), nanos::get)
            .build();
  }

  /** Advances the tracer's monotonic clock. */
  void advanceMs(long ms) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  static long at(long msAfterStart) {
    return T0_NANOS + TimeUnit.MILLISECONDS.toNanos(msAfterStart);
  }

  /**
   * The finished spans, once the tracer's worker has ended every trace ended so far: the request span
   * ends in {@code onEnd}, which runs on the tracer's dispatcher thread (issue 16 §3).
   */
  List<SpanData> finished() {
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join();
    return spans.getFinishedSpanItems();
  }

  SpanData span(String name) {
    return finished().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name + " in " + names()));
  }

  List<String> names() {
    return finished().stream().map(SpanData::getName).toList();
  }

  java.util.Collection<MetricData> allMetrics() {
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join();
    return metrics.collectAllMetrics();
  }

  Optional<MetricData> metric(String name) {
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join(); // metrics are recorded in onEnd, on the worker
    return metrics.collectAllMetrics().stream().filter(m -> m.getName().equals(name)).findFirst();
  }

  InferenceRecord record(String requestId) throws InterruptedException {
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join();
    return sink.findByRequestId(requestId).orElseThrow(() -> new AssertionError("no record " + requestId));
  }

  @Override
  public void close() {
    tracer.close();
    sdk.close();
  }

  static Duration seconds(long s) {
    return Duration.ofSeconds(s);
  }
}
