package io.github.trtrace.cli.internal;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A progress bar on stderr for long reads: shown only when enabled (stderr is a terminal and the user
 * did not turn it off) and once reading has taken more than {@link #DELAY_NANOS}; redrawn at most
 * five times a second and erased when reading ends. Bytes are counted as read from disk, so gzipped
 * files advance the bar by their compressed size.
 */
final class Progress {
  static final long DELAY_NANOS = 2_000_000_000L;
  private static final long REDRAW_NANOS = 200_000_000L;
  private static final int WIDTH = 30;

  private final boolean enabled;
  private final long delayNanos;
  private final PrintStream err;
  private final long totalBytes;
  private final long start = System.nanoTime();
  private long bytes;
  private long lastDraw;
  private boolean drawn;

  Progress(boolean enabled, PrintStream err, long totalBytes) {
    this(enabled, err, totalBytes, DELAY_NANOS);
  }

  Progress(boolean enabled, PrintStream err, long totalBytes, long delayNanos) {
    this.enabled = enabled;
    this.delayNanos = delayNanos;
    this.err = err;
    this.totalBytes = totalBytes;
  }

  static Progress off() {
    return new Progress(false, System.err, 0);
  }

  /**
   * Whether stderr is presumably a terminal: {@link System#console()} is non-null (stdin and stdout
   * are terminals) and, on Java 22+ where a console exists even when redirected, it says it is one.
   */
  static boolean terminal() {
    java.io.Console c = System.console();
    if (c == null) {
      return false;
    }
    try {
      return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(c);
    } catch (ReflectiveOperationException e) {
      return true; // Java < 22: a console means a terminal
    }
  }

  void bytes(long n) {
    bytes += n;
  }

  /** Called every few thousand lines. */
  void tick(long lines) {
    if (!enabled) {
      return;
    }
    long now = System.nanoTime();
    if (now - start < delayNanos || (drawn && now - lastDraw < REDRAW_NANOS)) {
      return;
    }
    lastDraw = now;
    drawn = true;
    double frac = totalBytes > 0 ? Math.min(1.0, (double) bytes / totalBytes) : 0;
    int full = (int) Math.round(frac * WIDTH);
    double secs = (now - start) / 1e9;
    err.print(String.format(Locale.ROOT, "\r[%s%s] %3.0f %%  %,d lines  %,.0f lines/s ",
        "#".repeat(full), ".".repeat(WIDTH - full), frac * 100, lines, lines / secs));
    err.flush();
  }

  /** Erases the bar if it was drawn. */
  void done() {
    if (drawn) {
      err.print("\r" + " ".repeat(WIDTH + 60) + "\r");
      err.flush();
      drawn = false;
    }
  }
}
