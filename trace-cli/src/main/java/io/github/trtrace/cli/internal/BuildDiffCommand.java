package io.github.trtrace.cli.internal;

import io.github.trtrace.tensorrt.model.build.BuildDiff;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code trtrace build-diff <baseline.build.json> <new.build.json>}. */
@Command(name = "build-diff", mixinStandardHelpOptions = true,
    header = "What changed between two build reports; exit 1 on a regression.",
    description = {
      "What changed between two TensorRT build reports: regressions (status, fusion rate, precision",
      "fallbacks, device memory, plan size, engine layers, new warnings and errors), improvements, notes.",
      "Exit code 1 when anything regressed, without thresholds; use gate for allowed limits."})
public final class BuildDiffCommand implements Callable<Integer>, Streams {
  @Mixin BuildReports reports = new BuildReports();

  private PrintStream out = System.out;

  @Override
  public void streams(PrintStream out, PrintStream err) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    BuildReport base = reports.readBaseline();
    BuildReport cur = reports.readCurrent();
    BuildDiff d = cur.diff(base);
    out.println("Build diff for " + cur.modelName() + ": " + reports.baseline + " -> " + reports.current);
    section("Regressions", d.regressions().stream().map(BuildDiff.Regression::describe).toList());
    section("Improvements", d.improvements().stream().map(BuildDiff.Improvement::describe).toList());
    section("Notes", d.notes());
    out.flush();
    return d.regressions().isEmpty() ? 0 : 1;
  }

  private void section(String title, List<String> lines) {
    out.println(title + " (" + lines.size() + ")" + (lines.isEmpty() ? ": none" : ""));
    for (String l : lines) {
      out.println("  - " + l);
    }
  }
}
