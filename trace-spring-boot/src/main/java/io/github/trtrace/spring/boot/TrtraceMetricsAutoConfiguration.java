package io.github.trtrace.spring.boot;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.spring.boot.internal.GenAiServerTimers;
import io.github.trtrace.spring.boot.internal.TracerMeters;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters of the SDK's own health, bound to every {@code MeterRegistry} of the application (as
 * {@code MeterBinder}s, so only when one exists): {@code trtrace.traces.started}/{@code ended},
 * {@code trtrace.records.sampled.out}, {@code trtrace.records.written{sink}},
 * {@code trtrace.records.dropped{reason}}, {@code trtrace.records.lost{sink,reason}},
 * {@code trtrace.records.errors}, {@code trtrace.sink.failures{sink}}, {@code trtrace.queue.depth}. When the
 * application has no {@code OpenTelemetry} bean (which gets trace-otel's GenAI metrics instead), also the
 * GenAI server timers {@code gen_ai.server.request.duration}, {@code gen_ai.server.time_to_first_token} and
 * {@code gen_ai.server.time_per_output_token} from the records.
 */
@AutoConfiguration(
    afterName = {
        "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "trtrace.enabled", matchIfMissing = true)
@ConditionalOnClass(MeterRegistry.class)
public final class TrtraceMetricsAutoConfiguration {

  /** The SDK's health counters and queue depth, read from {@link InferenceTracer#stats()} at each scrape. */
  @Bean
  @ConditionalOnMissingBean
  TracerMeters trtraceTracerMeters(ObjectProvider<InferenceTracer> tracer) {
    return new TracerMeters(tracer::getObject);
  }

  /** GenAI server timers, when nothing reports them through OpenTelemetry. */
  @Bean
  @ConditionalOnMissingBean(value = GenAiServerTimers.class, type = "io.opentelemetry.api.OpenTelemetry")
  GenAiServerTimers trtraceGenAiServerTimers() {
    return new GenAiServerTimers();
  }
}
