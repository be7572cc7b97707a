package io.github.trtrace.tensorrt.model.build;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A CI gate over build reports: fails when the current build failed (whatever the baseline did) or
 * regressed against a baseline beyond the configured limits. Usable directly in JUnit through {@link
 * #assertPasses}. A check that either report has no figure for (fusion rate, layer precisions, device memory, plan
 * size, engine layers; or a 0-byte baseline) is skipped: it does not fail the gate, and a note in {@link BuildDiff#notes()}
 * and the message says which check and why (not when the new build failed, which fails the gate by itself).
 *
 * <pre>{@code
 * BuildGate gate = BuildGate.builder().maxFusionRateDrop(0.02).maxMemoryGrowth(0.05).build();
 * gate.assertPasses(BuildReport.read(Path.of("current.json")), BuildReport.read(Path.of("baseline.json")));
 * }</pre>
 */
public final class BuildGate {

  /** Allowed changes before a difference counts as a regression. */
  record Thresholds(double fusionRateDrop, double memoryGrowth, double planGrowth, int engineLayerGrowth) {
    static final Thresholds ZERO = new Thresholds(0, 0, 0, 0);
  }

  /**
   * The outcome of a gate check.
   *
   * @param passed whether no disallowed regression was found
   * @param failures the regressions that fail the gate
   * @param diff everything that changed, within the limits
   * @param message a readable multi-line summary
   */
  public record GateResult(boolean passed, List<BuildDiff.Regression> failures, BuildDiff diff, String message) {
    public GateResult {
      failures = List.copyOf(failures);
    }
  }

  private final Thresholds thresholds;
  private final boolean allowNewWarnings;
  private final boolean allowPrecisionFallbacks;
  private final boolean allowNewErrors;

  private BuildGate(Builder b) {
    this.thresholds = new Thresholds(b.maxFusionRateDrop, b.maxMemoryGrowth, b.maxPlanGrowth, b.maxEngineLayerGrowth);
    this.allowNewWarnings = b.allowNewWarnings;
    this.allowPrecisionFallbacks = b.allowPrecisionFallbacks;
    this.allowNewErrors = b.allowNewErrors;
  }

  /**
   * A builder with strict defaults: no fusion-rate drop, 5 % memory and plan growth, no extra engine
   * layers, no new warnings, errors or precision fallbacks.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Checks {@code current} against {@code baseline}; a failed {@code current} never passes. */
  public GateResult check(BuildReport current, BuildReport baseline) {
    Objects.requireNonNull(current, "current");
    Objects.requireNonNull(baseline, "baseline");
    BuildDiff diff = BuildDiff.compute(current, baseline, thresholds);
    List<BuildDiff.Regression> failures = new ArrayList<>();
    if (current.status() == BuildReport.Status.FAILED && baseline.status() == BuildReport.Status.FAILED) {
      // not a change, so not in the diff; but a candidate that did not build is never fit to ship
      failures.add(new BuildDiff.Regression(BuildDiff.Kind.STATUS, "the build failed (the baseline failed too)"
          + failureReason(current), baseline.status().wireName(), current.status().wireName()));
    }
    for (BuildDiff.Regression r : diff.regressions()) {
      boolean allowed =
          (r.kind() == BuildDiff.Kind.NEW_WARNING && allowNewWarnings)
              || (r.kind() == BuildDiff.Kind.PRECISION_FALLBACK && allowPrecisionFallbacks)
              || (r.kind() == BuildDiff.Kind.NEW_ERROR && allowNewErrors);
      if (!allowed) {
        failures.add(r);
      }
    }
    return new GateResult(failures.isEmpty(), failures, diff, message(current, failures, diff));
  }

  private static String failureReason(BuildReport r) {
    if (r.diagnosis() != null) {
      return ": " + r.diagnosis().summary();
    }
    return r.errors().isEmpty() ? "" : ": " + r.errors().get(0).message();
  }

  /** Throws an {@link AssertionError} with the readable message when the gate fails. */
  public void assertPasses(BuildReport current, BuildReport baseline) {
    GateResult r = check(current, baseline);
    if (!r.passed()) {
      throw new AssertionError(r.message());
    }
  }

  private static String message(BuildReport current, List<BuildDiff.Regression> failures, BuildDiff diff) {
    StringBuilder sb = new StringBuilder();
    if (failures.isEmpty()) {
      sb.append("Build gate passed for ").append(current.modelName());
    } else {
      sb.append("Build gate failed for ").append(current.modelName()).append(": ").append(failures.size())
          .append(failures.size() == 1 ? " regression" : " regressions").append(" against the baseline");
      for (BuildDiff.Regression r : failures) {
        sb.append("\n  - ").append(r.describe());
      }
    }
    for (String note : diff.notes()) {
      sb.append("\n  note: ").append(note);
    }
    return sb.toString();
  }

  /** Configures a {@link BuildGate}. */
  public static final class Builder {
    private double maxFusionRateDrop;
    private double maxMemoryGrowth = 0.05;
    private double maxPlanGrowth = 0.05;
    private int maxEngineLayerGrowth;
    private boolean allowNewWarnings;
    private boolean allowPrecisionFallbacks;
    private boolean allowNewErrors;

    private Builder() {}

    /**
     * Largest allowed absolute drop of the fusion rate (0..1, a rate being a fraction).
     *
     * @throws IllegalArgumentException outside 0..1 (as {@code trtrace gate --max-fusion-rate-drop})
     */
    public Builder maxFusionRateDrop(double drop) {
      if (nonNegative(drop, "maxFusionRateDrop") > 1) {
        throw new IllegalArgumentException("maxFusionRateDrop must be 0..1 (a fusion rate is a fraction): " + drop);
      }
      this.maxFusionRateDrop = drop;
      return this;
    }

    /** Largest allowed device-memory growth as a ratio (0.05 = 5 %). */
    public Builder maxMemoryGrowth(double ratio) {
      this.maxMemoryGrowth = nonNegative(ratio, "maxMemoryGrowth");
      return this;
    }

    /** Largest allowed plan-size growth as a ratio. */
    public Builder maxPlanGrowth(double ratio) {
      this.maxPlanGrowth = nonNegative(ratio, "maxPlanGrowth");
      return this;
    }

    /** Largest allowed number of extra engine layers. */
    public Builder maxEngineLayerGrowth(int layers) {
      if (layers < 0) {
        throw new IllegalArgumentException("maxEngineLayerGrowth must be >= 0: " + layers);
      }
      this.maxEngineLayerGrowth = layers;
      return this;
    }

    /** Whether warnings the baseline did not have are accepted. */
    public Builder allowNewWarnings(boolean allow) {
      this.allowNewWarnings = allow;
      return this;
    }

    /** Whether layers falling back to a higher precision are accepted. */
    public Builder allowPrecisionFallbacks(boolean allow) {
      this.allowPrecisionFallbacks = allow;
      return this;
    }

    /** Whether errors the baseline did not have are accepted. */
    public Builder allowNewErrors(boolean allow) {
      this.allowNewErrors = allow;
      return this;
    }

    /** Builds the gate. */
    public BuildGate build() {
      return new BuildGate(this);
    }

    private static double nonNegative(double v, String name) {
      if (!(v >= 0) || Double.isInfinite(v)) {
        throw new IllegalArgumentException(name + " must be a finite number >= 0: " + v);
      }
      return v;
    }
  }
}
