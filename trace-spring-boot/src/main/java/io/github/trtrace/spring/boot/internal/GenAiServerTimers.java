package io.github.trtrace.spring.boot.internal;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TraceListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The OpenTelemetry GenAI server metrics as Micrometer timers, from each ended request's record (sampled out
 * or not): {@code gen_ai.server.request.duration}, {@code gen_ai.server.time_to_first_token} and
 * {@code gen_ai.server.time_per_output_token}, tagged {@code gen_ai.request.model} and, for a failure,
 * {@code error.type}. Records that end before a registry is bound are not counted.
 */
public final class GenAiServerTimers implements TraceListener, MeterBinder {
  private final CopyOnWriteArrayList<MeterRegistry> registries = new CopyOnWriteArrayList<>();
  private final TraceListener.Handle handle = new TraceListener.Handle() {
    @Override
    public void onEnd(InferenceRecord r, long endEpochNanos) {
      for (MeterRegistry registry : registries) {
        record(registry, r);
      }
    }
  };

  @Override
  public void bindTo(MeterRegistry registry) {
    registries.addIfAbsent(registry);
  }

  @Override
  public TraceListener.Handle onStart(InferenceTrace trace, long startEpochNanos) {
    return handle;
  }

  private static void record(MeterRegistry registry, InferenceRecord r) {
    String error = r.status() == Status.SUCCESS ? null
        : r.errorType() != null ? r.errorType() : r.status().wireName();
    timer(registry, "gen_ai.server.request.duration", "time to the last byte of the answer", r, error, r.latencyMs());
    timer(registry, "gen_ai.server.time_to_first_token", "time to the first output token", r, null, r.ttftMs());
    timer(registry, "gen_ai.server.time_per_output_token", "mean time per output token after the first", r, null,
        r.tpotMs());
  }

  private static void timer(
      MeterRegistry registry, String name, String description, InferenceRecord r, String error, double ms) {
    if (!(ms >= 0) || Double.isInfinite(ms)) {
      return; // unknown
    }
    Timer.Builder b = Timer.builder(name).description(description).tag("gen_ai.request.model", r.modelName());
    if (error != null) {
      b.tag("error.type", error);
    }
    b.register(registry).record(Duration.ofNanos((long) (ms * 1_000_000)));
  }
}
