package io.github.trtrace.spring.boot.internal;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** {@link TracerHealth} as a Spring Boot 4 health indicator. */
public final class Boot4HealthIndicator implements HealthIndicator {
  private final TracerHealth health;

  public Boot4HealthIndicator(TracerHealth health) {
    this.health = health;
  }

  @Override
  public Health health() {
    TracerHealth.Result r = health.check();
    return (r.up() ? Health.up() : Health.down()).withDetails(r.details()).build();
  }
}
