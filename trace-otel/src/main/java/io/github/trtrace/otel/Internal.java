package io.github.trtrace.otel;

import io.github.trtrace.core.internal.log.RateLimitedLogger;
import org.slf4j.LoggerFactory;

/** Shared, rate-limited logging of what trace-otel ignored (recording never throws into the host). */
final class Internal {
  static final RateLimitedLogger LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger("io.github.trtrace.otel"), 10_000);

  private Internal() {}
}
