package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.RecordSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON Lines file the tracer builder was asked to write, and where the request came from (for
 * error messages). Opened only by {@code build()}.
 */
record LogFile(Path path, String origin) {

  /**
   * The same file in any spelling: the absolute, normalised path with symbolic links of the longest
   * existing ancestor resolved (the file itself may not exist yet).
   */
  Path identity() {
    Path absolute = path.toAbsolutePath().normalize();
    Path existing = absolute;
    Path rest = null;
    while (existing != null) {
      try {
        Path real = existing.toRealPath();
        return rest == null ? real : real.resolve(rest).normalize();
      } catch (IOException notThere) {
        Path name = existing.getFileName();
        if (name == null) {
          break;
        }
        rest = rest == null ? name : name.resolve(rest);
        existing = existing.getParent();
      }
    }
    return absolute;
  }

  /** The files in order, each file once (the first spelling wins). */
  static List<LogFile> distinct(List<LogFile> files) {
    List<LogFile> out = new ArrayList<>(files.size());
    List<Path> seen = new ArrayList<>(files.size());
    for (LogFile f : files) {
      Path id = f.identity();
      boolean duplicate = false;
      for (Path other : seen) {
        if (other.equals(id) || sameExistingFile(other, id)) {
          duplicate = true;
          break;
        }
      }
      if (!duplicate) {
        seen.add(id);
        out.add(f);
      }
    }
    return out;
  }

  /** Hard links: two names of one existing file. */
  private static boolean sameExistingFile(Path a, Path b) {
    try {
      return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  RecordSink open() {
    try {
      return JsonLinesFileSink.builder(path).build();
    } catch (IOException e) {
      throw new UncheckedIOException(origin + ": cannot open trace log " + path + ": " + e.getMessage(), e);
    }
  }

  /** Closes sinks opened by a failed build; their failures are added to {@code failure}. */
  static void closeAll(List<RecordSink> opened, Throwable failure) {
    for (int i = opened.size() - 1; i >= 0; i--) {
      try {
        opened.get(i).close();
      } catch (Exception | Error e) {
        failure.addSuppressed(e);
      }
    }
  }
}
