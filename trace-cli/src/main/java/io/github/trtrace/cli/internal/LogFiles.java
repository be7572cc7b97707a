package io.github.trtrace.cli.internal;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The log files named on the command line. A file is read as given; a directory contributes its log
 * files ({@code *.log}, {@code *.jsonl}, {@code *.ndjson}, with rotation suffixes {@code .N} and
 * {@code .gz}), each rotation set oldest first ({@code x.log.3.gz}, {@code x.log.2.gz}, {@code x.log.1},
 * {@code x.log}), so records come roughly in time order. Gzip is recognised by its magic bytes.
 */
final class LogFiles {
  private static final Pattern LOG_NAME =
      Pattern.compile("(.+\\.(?:log|jsonl|ndjson|json))(?:\\.(\\d{1,6}))?(\\.gz)?");

  private LogFiles() {}

  /** The files to read, in reading order; throws {@link NoSuchFileException} for a missing path. */
  static List<Path> expand(List<Path> paths) throws IOException {
    List<Path> out = new ArrayList<>();
    for (Path p : paths) {
      if (Files.isDirectory(p)) {
        try (Stream<Path> s = Files.list(p)) {
          s.filter(Files::isRegularFile)
              .filter(f -> LOG_NAME.matcher(f.getFileName().toString()).matches())
              .sorted(Comparator.comparing(LogFiles::base).thenComparing(LogFiles::rotation, Comparator.reverseOrder()))
              .forEach(out::add);
        }
      } else if (Files.isRegularFile(p)) {
        out.add(p);
      } else {
        throw new NoSuchFileException(p.toString(), null, "no such file or directory");
      }
    }
    return out;
  }

  private static String base(Path f) {
    Matcher m = LOG_NAME.matcher(f.getFileName().toString());
    return m.matches() ? m.group(1) : f.getFileName().toString();
  }

  /** 0 for the live file, N for {@code .N}: higher is older. */
  private static int rotation(Path f) {
    Matcher m = LOG_NAME.matcher(f.getFileName().toString());
    return m.matches() && m.group(2) != null ? Integer.parseInt(m.group(2)) : 0;
  }

  /**
   * Opens {@code file}, decompressing it when it starts with the gzip magic bytes; {@code counter}
   * counts the bytes read from disk (for the progress bar).
   */
  static InputStream open(Path file, Progress counter) throws IOException {
    InputStream raw = new CountingStream(Files.newInputStream(file), counter);
    BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
    in.mark(2);
    int b1 = in.read();
    int b2 = in.read();
    in.reset();
    if (b1 == 0x1f && b2 == 0x8b) {
      try {
        return new GZIPInputStream(in, 1 << 16);
      } catch (java.io.EOFException e) {
        // cut inside its 10-byte header: a gzip file cut short like any other, which the reader counts
        in.close();
        return new InputStream() {
          @Override
          public int read() throws IOException {
            throw new java.io.EOFException("gzip header cut short");
          }

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            return read();
          }
        };
      }
    }
    return in;
  }

  private static final class CountingStream extends java.io.FilterInputStream {
    private final Progress counter;

    CountingStream(InputStream in, Progress counter) {
      super(in);
      this.counter = counter;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        counter.bytes(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        counter.bytes(n);
      }
      return n;
    }
  }
}
