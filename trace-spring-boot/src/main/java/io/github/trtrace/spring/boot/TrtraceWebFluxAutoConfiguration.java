package io.github.trtrace.spring.boot;

import io.github.trtrace.spring.boot.internal.RequestContextAccessor;
import io.micrometer.context.ContextRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.server.WebFilter;

/**
 * The {@link TrtraceWebFilter} in a reactive web application, and the context-propagation accessor that
 * carries its request context across Reactor's threads (when {@code io.micrometer:context-propagation} is
 * present). Backs off when the application defines its own {@link TrtraceWebFilter}.
 */
@AutoConfiguration(after = TrtraceAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = {"trtrace.enabled", "trtrace.web.enabled"}, matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(WebFilter.class)
@EnableConfigurationProperties(TrtraceProperties.class)
public final class TrtraceWebFluxAutoConfiguration {

  /** The filter. */
  @Bean
  @ConditionalOnMissingBean
  public TrtraceWebFilter trtraceWebFilter(TrtraceProperties properties) {
    return new TrtraceWebFilter(properties.getWeb().getFilterOrder());
  }

  /** Registers {@link RequestContextAccessor} with the global {@code ContextRegistry} once. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(ContextRegistry.class)
  static final class ContextPropagation {
    ContextPropagation() {
      ContextRegistry registry = ContextRegistry.getInstance();
      if (registry.getThreadLocalAccessors().stream().noneMatch(a -> a instanceof RequestContextAccessor)) {
        registry.registerThreadLocalAccessor(new RequestContextAccessor());
      }
    }
  }
}
