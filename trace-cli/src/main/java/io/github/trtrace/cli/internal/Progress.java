package io.github.trtrace.cli.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A progress bar on stderr for long reads: shown only when enabled ({@link #enabled}: stderr is a terminal,
 * or the user asked for it) and once reading has taken more than {@link #DELAY_NANOS}; redrawn at most
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
   * Whether to draw: as {@code --progress} / {@code --no-progress} say when given, otherwise only when
   * stderr, where the bar goes, is a terminal. Stdin and stdout do not matter: {@code stats > out.txt} on a
   * terminal shows the bar, {@code 2> err.txt} does not write it into the file.
   *
   * @param override {@code true} for {@code --progress}, {@code false} for {@code --no-progress}, null when
   *     neither was given
   * @param stderrTarget what file descriptor 2 refers to (see {@link #stderrTarget()}), null when unknown
   */
  static boolean enabled(@Nullable Boolean override, @Nullable String stderrTarget) {
    if (override != null) {
      return override;
    }
    return stderrTarget != null && (stderrTarget.startsWith("/dev/pts/") || stderrTarget.startsWith("/dev/tty"));
  }

  /**
   * What this process's stderr refers to: the target of {@code /proc/self/fd/2} on Linux ({@code /dev/pts/3}
   * for a terminal, a file path, {@code pipe:[...]}); null where that cannot be read (other systems), so
   * the bar is off unless asked for.
   */
  static @Nullable String stderrTarget() {
    try {
      return Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return null;
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
