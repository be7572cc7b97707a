package io.github.trtrace.cli.internal;

import io.github.trtrace.tensorrt.model.build.BuildGate;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code trtrace gate <baseline.build.json> <new.build.json> [limits]}. */
@Command(name = "gate", mixinStandardHelpOptions = true,
    header = "CI gate: exit 1 if a new build failed or regressed past limits.",
    description = {
      "CI gate over TensorRT build reports: fails (exit code 1) when the new build failed (whatever the",
      "baseline did) or regressed against the baseline beyond the limits. Defaults are strict: no",
      "fusion-rate drop, 5 %% memory and plan growth, no extra engine layers, no new warnings, errors or",
      "precision fallbacks. A check that a report has no figure for (or a 0-byte baseline) is skipped,",
      "said in a note, and does not fail the gate. The rules are the library's BuildGate."})
public final class GateCommand implements Callable<Integer>, Streams {
  @Mixin BuildReports reports = new BuildReports();

  @Option(names = "--max-fusion-rate-drop", defaultValue = "0", paramLabel = "D", description = "Largest allowed absolute fusion-rate drop, 0..1 (default: ${DEFAULT-VALUE}).")
  double maxFusionRateDrop;

  @Option(names = "--max-memory-growth", defaultValue = "0.05", paramLabel = "R", description = "Largest allowed device-memory growth ratio (default: ${DEFAULT-VALUE}).")
  double maxMemoryGrowth;

  @Option(names = "--max-plan-growth", defaultValue = "0.05", paramLabel = "R", description = "Largest allowed plan-size growth ratio (default: ${DEFAULT-VALUE}).")
  double maxPlanGrowth;

  @Option(names = "--max-engine-layer-growth", defaultValue = "0", paramLabel = "N", description = "Largest allowed number of extra engine layers (default: ${DEFAULT-VALUE}).")
  int maxEngineLayerGrowth;

  @Option(names = "--allow-new-warnings", description = "Accept warnings the baseline did not have.")
  boolean allowNewWarnings;

  @Option(names = "--allow-precision-fallbacks", description = "Accept layers running in a higher precision than in the baseline.")
  boolean allowPrecisionFallbacks;

  @Option(names = "--allow-new-errors", description = "Accept errors the baseline did not have.")
  boolean allowNewErrors;

  private PrintStream out = System.out;

  @Override
  public void streams(PrintStream out, PrintStream err) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    // the same checks as BuildGate.Builder's, worded with the option names the user typed
    if (!(maxFusionRateDrop >= 0 && maxFusionRateDrop <= 1)) { // a rate's drop: 1 already allows any
      throw new IllegalArgumentException("--max-fusion-rate-drop must be 0..1: " + maxFusionRateDrop);
    }
    nonNegative(maxMemoryGrowth, "--max-memory-growth");
    nonNegative(maxPlanGrowth, "--max-plan-growth");
    if (maxEngineLayerGrowth < 0) {
      throw new IllegalArgumentException("--max-engine-layer-growth must be >= 0: " + maxEngineLayerGrowth);
    }
    BuildGate gate = BuildGate.builder().maxFusionRateDrop(maxFusionRateDrop).maxMemoryGrowth(maxMemoryGrowth)
        .maxPlanGrowth(maxPlanGrowth).maxEngineLayerGrowth(maxEngineLayerGrowth).allowNewWarnings(allowNewWarnings)
        .allowPrecisionFallbacks(allowPrecisionFallbacks).allowNewErrors(allowNewErrors).build();
    BuildGate.GateResult r = gate.check(reports.readCurrent(), reports.readBaseline());
    out.println(r.message());
    out.flush();
    return r.passed() ? 0 : 1;
  }


  private static void nonNegative(double v, String name) {
    if (!(v >= 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(name + " must be a finite number >= 0: " + v);
    }
  }
}
