package io.github.trtrace.spring.boot.internal;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.TracerStats.SinkStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The SDK's health as Micrometer meters, each read from {@link InferenceTracer#stats()} when the registry
 * collects. Sinks are fixed when the tracer is built, so their tags are known at binding.
 */
public final class TracerMeters implements MeterBinder {
  private final Supplier<InferenceTracer> tracer;

  public TracerMeters(Supplier<InferenceTracer> tracer) {
    this.tracer = tracer;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    InferenceTracer t = tracer.get();
    counter(registry, t, "trtrace.traces.started", "traces started", s -> s.started());
    counter(registry, t, "trtrace.traces.ended", "traces ended", s -> s.ended());
    counter(registry, t, "trtrace.records.sampled.out", "records not kept by sampling", s -> s.sampledOut());
    counter(registry, t, "trtrace.records.errors", "records that could not be built", s -> s.recordErrors());
    counter(registry, t, "trtrace.records.misuse", "ignored calls on traces", s -> s.misuse());
    dropped(registry, t, "queue_full", s -> s.dispatcher().droppedQueueFull());
    dropped(registry, t, "block_timeout", s -> s.dispatcher().droppedBlockTimeout());
    dropped(registry, t, "closed", s -> s.dispatcher().droppedClosed());
    Gauge.builder("trtrace.queue.depth", t, x -> x.stats().dispatcher().queued())
        .description("records waiting in the queue").baseUnit("records").register(registry);
    for (String sink : t.stats().sinks().keySet()) {
      sinkCounter(registry, t, "trtrace.records.written", "records written", sink, null, SinkStats::written);
      sinkCounter(registry, t, "trtrace.records.lost", "records lost", sink, "failed", SinkStats::lostFailed);
      sinkCounter(registry, t, "trtrace.records.lost", "records lost", sink, "stuck", SinkStats::lostStuck);
      sinkCounter(registry, t, "trtrace.records.lost", "records lost", sink, "closed", SinkStats::lostClosed);
      sinkCounter(registry, t, "trtrace.sink.failures", "sink calls that threw", sink, null, SinkStats::failures);
    }
  }

  private static void counter(
      MeterRegistry registry, InferenceTracer t, String name, String description, ToDoubleFunction<TracerStats> f) {
    FunctionCounter.builder(name, t, x -> f.applyAsDouble(x.stats())).description(description).register(registry);
  }

  private static void dropped(MeterRegistry registry, InferenceTracer t, String reason, ToDoubleFunction<TracerStats> f) {
    FunctionCounter.builder("trtrace.records.dropped", t, x -> f.applyAsDouble(x.stats()))
        .description("records refused by the queue").tag("reason", reason).register(registry);
  }

  private static void sinkCounter(
      MeterRegistry registry, InferenceTracer t, String name, String description, String sink,
      String reason, ToDoubleFunction<SinkStats> f) {
    FunctionCounter.Builder<InferenceTracer> b = FunctionCounter.builder(name, t, x -> {
      SinkStats s = x.stats().sinks().get(sink);
      return s == null ? 0 : f.applyAsDouble(s);
    }).description(description).tag("sink", sink);
    if (reason != null) {
      b.tag("reason", reason);
    }
    b.register(registry);
  }
}
