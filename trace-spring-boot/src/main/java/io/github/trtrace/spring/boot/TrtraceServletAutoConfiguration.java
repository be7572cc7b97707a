package io.github.trtrace.spring.boot;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.http.ServletTracing;
import io.github.trtrace.spring.boot.internal.RequestContextCallableInterceptor;
import io.github.trtrace.spring.boot.internal.RequestRecordingFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * trace-http's servlet filter on every request of a servlet application: accepts or generates
 * {@code X-Request-ID}, echoes it, reads {@code traceparent}, and makes the request context current
 * (MDC {@code request_id}). Registered for REQUEST, ASYNC and ERROR dispatches (an error page or an
 * {@code SseEmitter}'s async dispatch keeps the ID decided first), ordered by {@code trtrace.web.filter-order}:
 * after Spring's HTTP observation filter, before Spring Security's. Backs off when the application defines a
 * bean named {@code trtraceServletFilter}.
 *
 * <pre>{@code
 * TracedRequest r = ServletTracing.request(httpServletRequest);   // in a controller
 * String answer = r.call(tracer, "llama-8b", t -> engine.generate(t, prompt));
 * }</pre>
 */
@AutoConfiguration(after = TrtraceAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = {"trtrace.enabled", "trtrace.web.enabled"}, matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({Filter.class, FilterRegistrationBean.class})
@EnableConfigurationProperties(TrtraceProperties.class)
public final class TrtraceServletAutoConfiguration {

  /** The filter's registration. */
  @Bean
  @ConditionalOnMissingBean(name = "trtraceServletFilter")
  public FilterRegistrationBean<Filter> trtraceServletFilter(TrtraceProperties properties) {
    FilterRegistrationBean<Filter> r = new FilterRegistrationBean<>(ServletTracing.filter());
    r.setName("trtraceServletFilter");
    r.setOrder(properties.getWeb().getFilterOrder());
    r.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC, DispatcherType.ERROR);
    r.setAsyncSupported(true);
    return r;
  }

  /**
   * Spring MVC runs a handler's {@code Callable} on its task executor, after the filter's thread has left the
   * request: the request's context (MDC {@code request_id}) is made current there too.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(WebMvcConfigurer.class)
  static final class MvcAsync implements WebMvcConfigurer {
    @Override
    public void configureAsyncSupport(AsyncSupportConfigurer configurer) {
      configurer.registerCallableInterceptors(new RequestContextCallableInterceptor());
    }
  }

  /** One record per HTTP request ({@code trtrace.web.record-requests=true}), right after the ID filter. */
  @Bean
  @ConditionalOnBooleanProperty(name = "trtrace.web.record-requests")
  @ConditionalOnMissingBean(name = "trtraceRequestRecordingFilter")
  public FilterRegistrationBean<Filter> trtraceRequestRecordingFilter(
      TrtraceProperties properties, ObjectProvider<InferenceTracer> tracer) {
    FilterRegistrationBean<Filter> r = new FilterRegistrationBean<>(
        new RequestRecordingFilter(tracer::getObject, properties.getWeb().getModelName()));
    r.setName("trtraceRequestRecordingFilter");
    r.setOrder(properties.getWeb().getFilterOrder() + 1);
    r.setDispatcherTypes(DispatcherType.REQUEST);
    r.setAsyncSupported(true);
    return r;
  }
}
