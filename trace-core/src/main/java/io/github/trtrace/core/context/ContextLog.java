package io.github.trtrace.core.context;

import io.github.trtrace.core.internal.log.RateLimitedLogger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Loggers of this package: misuse at run time is logged, rate limited, and never thrown. */
final class ContextLog {
  static final Logger LOG = LoggerFactory.getLogger("io.github.trtrace.core.context");
  /** Scopes closed out of order, on the wrong thread, or left open; a broken MDC. */
  static final RateLimitedLogger MISUSE = RateLimitedLogger.of(LOG, 60_000);
  /** Invalid request IDs handed to {@link RequestContext#with(String)}. */
  static final RateLimitedLogger INVALID_ID = RateLimitedLogger.of(LOG, 60_000);

  private ContextLog() {}
}
