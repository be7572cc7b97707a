package io.github.trtrace.spring.boot.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * {@link TracerHealth} as a Spring Boot 3 {@code org.springframework.boot.actuate.health.HealthIndicator},
 * made by reflection: this module is compiled against Boot 4, where the health types moved to
 * {@code org.springframework.boot.health.contributor}, and one jar serves both lines.
 */
public final class Boot3Health {
  /** The indicator's bean name (Boot names the contributor {@code trtrace}). */
  public static final String BEAN_NAME = "trtraceHealthIndicator";
  static final String INDICATOR = "org.springframework.boot.actuate.health.HealthIndicator";
  static final String HEALTH = "org.springframework.boot.actuate.health.Health";

  private Boot3Health() {}

  /** A proxy implementing Boot 3's {@code HealthIndicator}. */
  public static Object indicator(TracerHealth health, ClassLoader loader) {
    try {
      Class<?> indicator = Class.forName(INDICATOR, false, loader);
      Class<?> healthType = Class.forName(HEALTH, false, loader);
      Method status = healthType.getMethod("status", String.class);
      Method withDetails = status.getReturnType().getMethod("withDetails", Map.class);
      Method build = status.getReturnType().getMethod("build");
      InvocationHandler h = (proxy, method, args) -> {
        if (method.getName().equals("health") && method.getParameterCount() == 0) {
          TracerHealth.Result r = health.check();
          Object builder = status.invoke(null, r.up() ? "UP" : "DOWN");
          return build.invoke(withDetails.invoke(builder, r.details()));
        }
        if (method.isDefault()) {
          return InvocationHandler.invokeDefault(proxy, method, args);
        }
        return switch (method.getName()) {
          case "toString" -> "trtrace health indicator (Boot 3)";
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> throw new UnsupportedOperationException(method.toString());
        };
      };
      return Proxy.newProxyInstance(loader, new Class<?>[] {indicator}, h);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Spring Boot 3's health API not as expected", e);
    }
  }

  /**
   * Registers the indicator with Boot 3's {@code HealthIndicator} as its bean type (a {@code @Bean} method
   * could only declare {@code Object}, which Boot's lookup of health contributors by type would miss), unless
   * the application defines a bean of the same name.
   */
  public static final class Registrar implements ImportBeanDefinitionRegistrar, BeanFactoryAware, BeanClassLoaderAware {
    private @Nullable BeanFactory beanFactory;
    private ClassLoader loader = Boot3Health.class.getClassLoader();

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
      this.beanFactory = beanFactory;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
      this.loader = classLoader;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
      if (registry.containsBeanDefinition(BEAN_NAME)) {
        return;
      }
      BeanFactory factory = Objects.requireNonNull(beanFactory, "beanFactory");
      Class<Object> type = (Class<Object>) ClassUtils.resolveClassName(INDICATOR, loader);
      ClassLoader l = loader;
      registry.registerBeanDefinition(BEAN_NAME,
          new RootBeanDefinition(type, () -> indicator(factory.getBean(TracerHealth.class), l)));
    }
  }
}
