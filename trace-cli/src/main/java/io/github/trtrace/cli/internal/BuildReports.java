package io.github.trtrace.cli.internal;

import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Parameters;

/** The two build reports that {@code build-diff} and {@code gate} compare: their shared parameters (a picocli mixin). */
final class BuildReports {
  @Parameters(index = "0", paramLabel = "BASELINE", description = "The baseline build report.")
  Path baseline = Path.of("");

  @Parameters(index = "1", paramLabel = "NEW", description = "The new build report.")
  Path current = Path.of("");

  BuildReportFile readBaseline() throws IOException {
    return BuildReportFile.read(baseline);
  }

  BuildReportFile readCurrent() throws IOException {
    return BuildReportFile.read(current);
  }
}
