package io.github.trtrace.core.internal.log;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs a warning at most once per interval and says how many were suppressed in between.
 * Internal: not part of the public API, may change without notice.
 *
 * <pre>{@code
 * private final RateLimitedLogger dropLog = RateLimitedLogger.of(LOG, 10_000); // at most one warning every 10 s
 * dropLog.warn("dropped record {}: queue full", id);
 * }</pre>
 */
public final class RateLimitedLogger {
  private final Logger delegate;
  private final long intervalNanos;
  private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong suppressed = new AtomicLong();

  private RateLimitedLogger(Logger delegate, long intervalNanos) {
    this.delegate = delegate;
    this.intervalNanos = intervalNanos;
  }

  /** A rate limiter over {@code delegate} allowing one message per {@code intervalMillis}. */
  public static RateLimitedLogger of(Logger delegate, long intervalMillis) {
    if (intervalMillis < 0) {
      throw new IllegalArgumentException("intervalMillis must be >= 0: " + intervalMillis);
    }
    return new RateLimitedLogger(delegate, TimeUnit.MILLISECONDS.toNanos(intervalMillis));
  }

  /** Logs at WARN if the interval has passed since the last logged message; never throws. */
  public void warn(String format, Object... args) {
    if (!tryAcquire()) {
      return;
    }
    try {
      long n = suppressed.getAndSet(0);
      if (n > 0) {
        delegate.warn(format + " ({} similar messages suppressed)", append(args, n));
      } else {
        delegate.warn(format, args);
      }
    } catch (RuntimeException ignored) {
      // a broken logging backend must not break the caller
    }
  }

  /** Messages not logged because of the rate limit since the last logged one. */
  public long suppressed() {
    return suppressed.get();
  }

  private boolean tryAcquire() {
    long now = System.nanoTime();
    long next = nextAllowed.get();
    if ((next == Long.MIN_VALUE || now - next >= 0) && nextAllowed.compareAndSet(next, now + intervalNanos)) {
      return true;
    }
    suppressed.incrementAndGet();
    return false;
  }

  private static Object[] append(Object[] args, Object extra) {
    // SLF4J treats a trailing Throwable specially: keep it last.
    if (args.length > 0 && args[args.length - 1] instanceof Throwable) {
      Object[] out = new Object[args.length + 1];
      System.arraycopy(args, 0, out, 0, args.length - 1);
      out[args.length - 1] = extra;
      out[args.length] = args[args.length - 1];
      return out;
    }
    Object[] out = new Object[args.length + 1];
    System.arraycopy(args, 0, out, 0, args.length);
    out[args.length] = extra;
    return out;
  }
}
