package io.github.trtrace.cli.internal;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code trtrace build-diff <baseline.build.json> <new.build.json>}. */
@Command(name = "build-diff", mixinStandardHelpOptions = true,
    description = {
      "What changed between two TensorRT build reports: regressions (status, fusion rate, precision",
      "fallbacks, device memory, plan size, engine layers, new warnings and errors), improvements, notes.",
      "Exit code 1 when anything regressed, without thresholds; use gate for allowed limits."})
public final class BuildDiffCommand implements Callable<Integer>, Streams {
  @Parameters(index = "0", paramLabel = "BASELINE", description = "The baseline build report.")
  Path baseline = Path.of("");

  @Parameters(index = "1", paramLabel = "NEW", description = "The new build report.")
  Path current = Path.of("");

  private PrintStream out = System.out;

  @Override
  public void streams(PrintStream out, PrintStream err) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    BuildReportFile base = BuildReportFile.read(baseline);
    BuildReportFile cur = BuildReportFile.read(current);
    BuildRules.Diff d = BuildRules.diff(cur, base, BuildRules.Limits.ZERO);
    out.println("Build diff for " + cur.modelName() + ": " + baseline + " -> " + current);
    section("Regressions", d.regressions().stream().map(BuildRules::line).toList());
    section("Improvements", d.improvements().stream().map(BuildRules::line).toList());
    section("Notes", d.notes());
    out.flush();
    return d.regressions().isEmpty() ? 0 : 1;
  }

  private void section(String title, java.util.List<String> lines) {
    out.println(title + " (" + lines.size() + ")" + (lines.isEmpty() ? ": none" : ""));
    for (String l : lines) {
      out.println("  - " + l);
    }
  }
}
