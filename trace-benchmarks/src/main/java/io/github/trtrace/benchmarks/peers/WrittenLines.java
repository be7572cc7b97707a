package io.github.trtrace.benchmarks.peers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Counts what an SDK really wrote: the newline-terminated lines in every file under a directory
 * (rotated and gzipped files included). A faster figure for an SDK that wrote less is not a win, so
 * every benchmark prints this beside the number of requests it offered.
 */
final class WrittenLines {
  private WrittenLines() {}

  static Path newDirectory(String sdk) {
    try {
      return Files.createTempDirectory("trtrace-bench-" + sdk + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long count(Path dir) {
    return countLinesAndBytes(dir)[0];
  }

  /** Lines and their bytes (decompressed) in every file under {@code dir}, {@code .gz} ones included. */
  static long[] countLinesAndBytes(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      long total = 0;
      long bytes = 0;
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        try (InputStream raw = Files.newInputStream(f);
            InputStream in = f.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw) {
          byte[] buf = new byte[1 << 16];
          for (int n; (n = in.read(buf)) > 0; ) {
            bytes += n;
            for (int i = 0; i < n; i++) {
              if (buf[i] == '\n') {
                total++;
              }
            }
          }
        }
      }
      return new long[] {total, bytes};
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long report(String sdk, long offered, Path dir) {
    lastReportStartNanos = System.nanoTime(); // the SDK is closed: what follows is counting, not writing
    long[] counted = countLinesAndBytes(dir);
    long written = counted[0];
    System.out.printf(
        "%n[%s] offered=%d written=%d (%.1f%%) dir=%s%n",
        sdk, offered, written, offered == 0 ? 0.0 : 100.0 * written / offered, dir);
    System.out.println("[" + sdk + "] first line: " + firstLine(dir));
    lastBytes = bytes(dir);
    lastWritten = written;
    lastLineBytes = counted[1];
    lastOffered = offered;
    return written;
  }

  /** Bytes on disk (compressed files as stored) under the directory of the last {@link #report}. */
  static volatile long lastBytes;

  /** Bytes of the lines counted by the last {@link #report}, decompressed (what was written as JSON). */
  static volatile long lastLineBytes;

  /** When the last {@link #report} began ({@code System.nanoTime()}): right after the SDK closed. */
  static volatile long lastReportStartNanos;

  /** Requests offered, as given to the last {@link #report}. */
  static volatile long lastOffered;

  /** Lines counted by the last {@link #report}. */
  static volatile long lastWritten;

  static long bytes(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The first line of the first plain file (what one record looks like, for the reader of the output). */
  static String firstLine(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      Path f = files.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".gz")).sorted().findFirst().orElse(null);
      if (f == null) {
        return "(no file)";
      }
      try (java.io.BufferedReader r = Files.newBufferedReader(f)) {
        String line = r.readLine();
        return line == null ? "(empty)" : line.length() > 600 ? line.substring(0, 600) + "..." : line;
      }
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
