package io.github.trtrace.spring.boot;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.spring.boot.internal.Boot3Health;
import io.github.trtrace.spring.boot.internal.Boot4HealthIndicator;
import io.github.trtrace.spring.boot.internal.EngineFingerprints;
import io.github.trtrace.spring.boot.internal.TracerHealth;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Actuator: the {@code trtrace} health indicator (DOWN with the reason when the dispatcher stopped or a sink
 * is failing) and the {@code /actuator/trtrace} endpoint ({@link TrtraceEndpoint}), on Spring Boot 4 and 3.5.
 * Each backs off when the application defines a bean of the same name ({@code trtraceHealthIndicator},
 * {@code trtraceEndpoint}).
 */
@AutoConfiguration(after = TrtraceAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "trtrace.enabled", matchIfMissing = true)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(InferenceTracer.class)
@EnableConfigurationProperties(TrtraceProperties.class)
public final class TrtraceActuatorAutoConfiguration {

  /** The health check both the indicator and the endpoint report. */
  @Bean
  @ConditionalOnMissingBean
  TracerHealth trtraceTracerHealth(InferenceTracer tracer) {
    return new TracerHealth(tracer);
  }

  /** {@code /actuator/trtrace}. */
  @Bean
  @ConditionalOnMissingBean(name = "trtraceEndpoint")
  TrtraceEndpoint trtraceEndpoint(
      InferenceTracer tracer, TrtraceProperties properties, ObjectProvider<EngineFingerprints> fingerprints,
      TracerHealth health) {
    return new TrtraceEndpoint(tracer, properties, fingerprints.getIfAvailable(EngineFingerprints::new), health);
  }

  /** Spring Boot 4's health API. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static final class Boot4Health {
    @Bean
    @ConditionalOnMissingBean(name = "trtraceHealthIndicator")
    Boot4HealthIndicator trtraceHealthIndicator(TracerHealth health) {
      return new Boot4HealthIndicator(health);
    }
  }

  /** Spring Boot 3's health API (the same indicator made by reflection, see {@link Boot3Health}). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
  @ConditionalOnMissingClass("org.springframework.boot.health.contributor.HealthIndicator")
  @Import(Boot3Health.Registrar.class)
  static final class Boot3HealthConfiguration {}
}
