package io.github.trtrace.cli.internal;

import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.Parameters;

/**
 * The two build reports that {@code build-diff} and {@code gate} compare: their shared parameters (a picocli mixin),
 * read with trace-tensorrt-model's {@code BuildReport}, whose rules ({@code BuildDiff}, {@code BuildGate}) both use.
 */
final class BuildReports {
  @Parameters(index = "0", paramLabel = "BASELINE", description = "The baseline build report.")
  Path baseline = Path.of("");

  @Parameters(index = "1", paramLabel = "NEW", description = "The new build report.")
  Path current = Path.of("");

  /** The baseline; a clear {@link IllegalArgumentException} naming the file when it is not a build report. */
  BuildReport readBaseline() throws IOException {
    return read(baseline);
  }

  /** The new report, read as {@link #readBaseline()}. */
  BuildReport readCurrent() throws IOException {
    return read(current);
  }

  /** {@link BuildReport#read(Path)}, with a message naming the file when it is missing or a directory. */
  static BuildReport read(Path file) throws IOException {
    if (Files.isDirectory(file)) {
      throw new IllegalArgumentException(file + " is a directory, not a build report");
    }
    if (!Files.exists(file)) {
      throw new NoSuchFileException(file.toString(), null, "no such file");
    }
    return BuildReport.read(file);
  }
}
