package io.github.trtrace.cli.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Shared by the commands that read logs: the streams, the progress option, path expansion. */
abstract class LogCommand implements Streams {
  PrintStream out = System.out;
  PrintStream err = System.err;

  @Option(names = "--progress", negatable = true,
      description = "Progress bar on stderr when reading takes more than 2 s. Default: only when stderr is a"
          + " terminal (on Linux /proc/self/fd/2 is /dev/pts/* or /dev/tty*; off where that cannot be told);"
          + " --progress draws it anyway, --no-progress never.")
  @Nullable Boolean progress;

  @Override
  public void streams(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** The files to read: the given paths expanded, or {@code logs/} when none are given. */
  static List<Path> files(List<Path> paths) throws IOException {
    List<Path> p = new ArrayList<>(paths);
    if (p.isEmpty()) {
      Path logs = Path.of("logs");
      if (!Files.isDirectory(logs)) {
        throw new IllegalArgumentException("no log paths given and no logs/ directory here");
      }
      p.add(logs);
    }
    List<Path> files = LogFiles.expand(p);
    if (files.isEmpty()) {
      throw new IllegalArgumentException("no log files in " + p);
    }
    return files;
  }

  boolean showProgress() {
    return Progress.enabled(progress, Progress.stderrTarget());
  }
}
