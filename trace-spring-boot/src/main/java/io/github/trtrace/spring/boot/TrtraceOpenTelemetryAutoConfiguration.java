package io.github.trtrace.spring.boot;

import io.github.trtrace.otel.TrtraceOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * trace-otel wired to the application's {@code OpenTelemetry} bean: every traced request becomes a GenAI
 * span and GenAI server metrics. When Spring's HTTP observation has made its server span current (the
 * servlet filter runs after it), the request span is an INTERNAL child of it, never a second SERVER span.
 * Content capture ({@code trtrace.otel.capture-message-content}) is off by default and logs a WARN when on.
 * Backs off when the application defines its own {@link TrtraceOpenTelemetry}.
 */
@AutoConfiguration(
    before = TrtraceAutoConfiguration.class,
    afterName = {
        "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"})
@ConditionalOnBooleanProperty(name = {"trtrace.enabled", "trtrace.otel.enabled"}, matchIfMissing = true)
@ConditionalOnClass({TrtraceOpenTelemetry.class, OpenTelemetry.class})
@ConditionalOnBean(OpenTelemetry.class)
@EnableConfigurationProperties(TrtraceProperties.class)
public final class TrtraceOpenTelemetryAutoConfiguration {
  private static final Logger log = LoggerFactory.getLogger(TrtraceOpenTelemetryAutoConfiguration.class);

  /** The listener the auto-configured tracer picks up. */
  @Bean
  @ConditionalOnMissingBean
  public TrtraceOpenTelemetry trtraceOpenTelemetry(OpenTelemetry openTelemetry, TrtraceProperties properties) {
    boolean capture = properties.getOtel().isCaptureMessageContent();
    if (capture) {
      log.warn("trtrace: trtrace.otel.capture-message-content=true: prompts and completions passed to"
          + " captureInput/captureOutput are recorded on spans (after redaction)");
    }
    return TrtraceOpenTelemetry.builder(openTelemetry).captureMessageContent(capture).build();
  }
}
