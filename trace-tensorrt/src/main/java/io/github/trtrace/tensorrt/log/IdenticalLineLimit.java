package io.github.trtrace.tensorrt.log;

import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * {@link TrtLogPipeline}'s rate limit: at most {@code maxPerSecond} identical lines (same severity and
 * text) a second; the ones over it are counted, and the next line admitted says how many it follows.
 * Remembers at most {@value #MAX_KEYS} distinct lines (then starts over). Thread-safe.
 */
final class IdenticalLineLimit {
  private static final int MAX_KEYS = 4096;
  private static final long SECOND_NANOS = 1_000_000_000L;

  private record Key(TrtSeverity severity, String message) {}

  private static final class Window {
    long startNanos;
    int count;
    long suppressed;
  }

  private final int maxPerSecond;
  private final LongSupplier nanoTime;
  private final ConcurrentHashMap<Key, Window> windows = new ConcurrentHashMap<>();
  private final AtomicLong suppressed = new AtomicLong();

  /** {@code maxPerSecond} {@link Integer#MAX_VALUE}: no limit. */
  IdenticalLineLimit(int maxPerSecond, LongSupplier nanoTime) {
    this.maxPerSecond = maxPerSecond;
    this.nanoTime = nanoTime;
  }

  /** -1 when the line is rate-limited; otherwise how many identical lines were suppressed before it. */
  long admit(TrtSeverity severity, String message) {
    if (maxPerSecond == Integer.MAX_VALUE) {
      return 0;
    }
    if (windows.size() > MAX_KEYS) {
      windows.clear();
    }
    Window w = windows.computeIfAbsent(new Key(severity, message), k -> new Window());
    long now = nanoTime.getAsLong();
    synchronized (w) {
      if (w.count == 0 || now - w.startNanos >= SECOND_NANOS) {
        w.startNanos = now;
        w.count = 0;
      }
      if (w.count >= maxPerSecond) {
        w.suppressed++;
        suppressed.incrementAndGet();
        return -1;
      }
      w.count++;
      long s = w.suppressed;
      w.suppressed = 0;
      return s;
    }
  }

  /** Lines suppressed so far. */
  long suppressed() {
    return suppressed.get();
  }
}
