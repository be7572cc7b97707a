package io.github.trtrace.cli.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads log files line by line in constant memory: bytes are split on {@code '\n'} into one reused
 * buffer and handed to a {@link Handler} without decoding to a String. A line longer than {@link
 * #MAX_LINE} is skipped (counted as malformed); a last line without its newline that does not parse
 * is counted as torn (a writer was cut off); everything else the handler rejects is counted as
 * malformed, with the first few locations kept for the report. Nothing is fatal but a file that
 * cannot be opened or read.
 */
final class LineReader {
  /** Longest line handed to the handler, bytes. */
  static final int MAX_LINE = 1 << 20;

  /** What a handler returns for a line of a launch log ({@link LaunchLine}), compared by identity. */
  static final String LAUNCH = new String("launch-log line");

  /** Decides what a line is. */
  interface Handler {
    /**
     * Handles one line ({@code '\r'} and {@code '\n'} removed); returns null when it was a record,
     * {@link #LAUNCH} (this very object) when it was a launch-log line, else why it is malformed.
     */
    @Nullable String line(byte[] buf, int off, int len, Path file, long lineNo);
  }

  /** What reading found. */
  static final class Summary {
    long files;
    long lines;
    long records;
    /** Launch-log lines (apart from records). */
    long launches;
    long blank;
    long malformed;
    long torn;
    /** Gzip files that end before their compressed stream does (read up to the cut). */
    long truncated;
    final List<String> examples = new ArrayList<>();

    void malformed(Path file, long lineNo, String why) {
      malformed++;
      if (examples.size() < 5) {
        examples.add(file + ":" + lineNo + ": " + why);
      }
    }

    /** A gzip file whose compressed stream ends early: read up to the cut; its example kept among the five. */
    void truncated(Path file, long lineNo) {
      truncated++;
      examples.add(Math.min(examples.size(), 4),
          file + ": truncated gzip file (compressed stream ends early), read up to line " + lineNo);
      if (examples.size() > 5) {
        examples.remove(5);
      }
    }

    /** Whether any line or file was skipped or cut (what {@link #describe()} then reports). */
    boolean skippedAny() {
      return malformed + torn + truncated > 0;
    }

    /** One line such as {@code 1,000 lines in 2 files: 998 records, 1 malformed, 1 torn}. */
    String describe() {
      StringBuilder sb = new StringBuilder(String.format(java.util.Locale.ROOT,
          "%,d lines in %,d file%s: %,d records", lines, files, files == 1 ? "" : "s", records));
      if (launches > 0) {
        sb.append(String.format(java.util.Locale.ROOT, ", %,d launch-log lines", launches));
      }
      if (malformed > 0) {
        sb.append(String.format(java.util.Locale.ROOT, ", %,d malformed (skipped)", malformed));
      }
      if (torn > 0) {
        sb.append(String.format(java.util.Locale.ROOT, ", %,d torn last line%s (skipped)", torn, torn == 1 ? "" : "s"));
      }
      if (truncated > 0) {
        sb.append(String.format(java.util.Locale.ROOT, ", %,d truncated gzip file%s (read up to the cut)", truncated,
            truncated == 1 ? "" : "s"));
      }
      if (blank > 0) {
        sb.append(String.format(java.util.Locale.ROOT, ", %,d blank", blank));
      }
      return sb.toString();
    }
  }

  private LineReader() {}

  /** Reads every file in order; the progress bar follows the bytes read from disk. */
  static Summary read(List<Path> files, Handler handler, boolean progressEnabled) throws IOException {
    long total = 0;
    for (Path f : files) {
      total += Files.size(f);
    }
    Progress progress = new Progress(progressEnabled, System.err, total);
    Summary s = new Summary();
    byte[] chunk = new byte[1 << 16];
    byte[] line = new byte[1 << 12];
    try {
      for (Path f : files) {
        s.files++;
        try (InputStream in = LogFiles.open(f, progress)) {
          int len = 0;
          boolean overlong = false;
          long lineNo = 0;
          int n;
          boolean cut = false;
          while (true) {
            try {
              n = in.read(chunk);
            } catch (java.io.EOFException e) { // a gzip stream that stops short: a rotated file cut off
              cut = true;
              break;
            }
            if (n <= 0) {
              break;
            }
            int start = 0;
            for (int i = 0; i < n; i++) {
              if (chunk[i] != '\n') {
                continue;
              }
              int piece = i - start;
              if (!overlong) {
                if (len + piece > MAX_LINE) {
                  overlong = true;
                } else {
                  line = ensure(line, len + piece);
                  System.arraycopy(chunk, start, line, len, piece);
                  len += piece;
                }
              }
              lineNo++;
              finish(s, handler, line, len, overlong, f, lineNo, false);
              if ((lineNo & 0x1FFF) == 0) {
                progress.tick(s.lines);
              }
              len = 0;
              overlong = false;
              start = i + 1;
            }
            int rest = n - start;
            if (!overlong && rest > 0) {
              if (len + rest > MAX_LINE) {
                overlong = true;
              } else {
                line = ensure(line, len + rest);
                System.arraycopy(chunk, start, line, len, rest);
                len += rest;
              }
            }
          }
          if (len > 0 || overlong) {
            finish(s, handler, line, len, overlong, f, lineNo + 1, true);
          }
          if (cut) {
            s.truncated(f, lineNo);
          }
        } catch (java.io.IOException e) {
          if (e.getMessage() != null && e.getMessage().startsWith(f.toString())) {
            throw e;
          }
          throw new java.io.IOException(f + ": " + e.getMessage(), e); // name the file that could not be read
        }
      }
    } finally {
      progress.done();
    }
    return s;
  }

  private static void finish(Summary s, Handler h, byte[] line, int len, boolean overlong, Path f, long lineNo, boolean last) {
    s.lines++;
    if (overlong) {
      s.malformed(f, lineNo, "line longer than " + MAX_LINE + " bytes");
      return;
    }
    int end = len;
    if (end > 0 && line[end - 1] == '\r') {
      end--;
    }
    if (blank(line, end)) {
      s.blank++;
      return;
    }
    String why = h.line(line, 0, end, f, lineNo);
    if (why == null) {
      s.records++;
    } else if (why == LAUNCH) { // the marker object, not an equal text
      s.launches++;
    } else if (last) {
      s.torn++;
      if (s.examples.size() < 5) {
        s.examples.add(f + ":" + lineNo + ": torn last line (no newline): " + why);
      }
    } else {
      s.malformed(f, lineNo, why);
    }
  }

  private static boolean blank(byte[] b, int len) {
    for (int i = 0; i < len; i++) {
      if (b[i] != ' ' && b[i] != '\t') {
        return false;
      }
    }
    return true;
  }

  private static byte[] ensure(byte[] b, int size) {
    if (size <= b.length) {
      return b;
    }
    return java.util.Arrays.copyOf(b, Math.min(MAX_LINE, Math.max(size, b.length * 2)));
  }
}
