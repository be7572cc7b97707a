package io.github.trtrace.cli.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What changed between two build reports, and whether a gate passes: the same rules as
 * trace-tensorrt's {@code BuildDiff} and {@code BuildGate} (kept in step by this module's tests on
 * the same cases), reimplemented here because the CLI must not depend on trace-tensorrt.
 */
final class BuildRules {
  /** Kinds of change, as trace-tensorrt names them. */
  enum Kind { STATUS, FUSION_RATE, PRECISION_FALLBACK, DEVICE_MEMORY, PLAN_SIZE, ENGINE_LAYER_COUNT, NEW_WARNING, NEW_ERROR }

  /** A change (for the worse or the better) with the baseline and current values. */
  record Change(Kind kind, String detail, String baseline, String current) {}

  /** Allowed changes before a difference counts as a regression. */
  record Limits(double fusionRateDrop, double memoryGrowth, double planGrowth, int engineLayerGrowth) {
    static final Limits ZERO = new Limits(0, 0, 0, 0);
  }

  /** The diff. */
  record Diff(List<Change> regressions, List<Change> improvements, List<String> notes) {}

  private BuildRules() {}

  static Diff diff(BuildReportFile cur, BuildReportFile base, Limits t) {
    List<Change> reg = new ArrayList<>();
    List<Change> imp = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    if (!base.status().equals(cur.status())) {
      if (cur.status().equals(BuildReportFile.FAILED)) {
        reg.add(new Change(Kind.STATUS, "build status changed from success to failed", base.status(), cur.status()));
      } else {
        imp.add(new Change(Kind.STATUS, "build succeeds again", base.status(), cur.status()));
      }
    }
    if (!Objects.equals(base.tensorrtVersion(), cur.tensorrtVersion())) {
      notes.add("TensorRT version changed: " + base.tensorrtVersion() + " -> " + cur.tensorrtVersion());
    }
    double bf = base.fusionRate();
    double cf = cur.fusionRate();
    if (Double.isFinite(bf) && Double.isFinite(cf)) {
      if (bf - cf > t.fusionRateDrop()) {
        reg.add(new Change(Kind.FUSION_RATE,
            String.format(Locale.ROOT, "fusion rate dropped by %.3f (allowed %.3f)", bf - cf, t.fusionRateDrop()), f3(bf), f3(cf)));
      } else if (cf > bf) {
        imp.add(new Change(Kind.FUSION_RATE, "fusion rate rose", f3(bf), f3(cf)));
      }
    }
    Map<String, String> basePrecision = new HashMap<>();
    for (BuildReportFile.Layer l : base.layers()) {
      if (l.precision() != null) {
        basePrecision.put(l.name(), l.precision());
      }
    }
    for (BuildReportFile.Layer l : cur.layers()) {
      String was = basePrecision.get(l.name());
      int before = rank(was);
      int after = rank(l.precision());
      if (before > 0 && after > before) {
        reg.add(new Change(Kind.PRECISION_FALLBACK, "layer '" + l.name() + "' runs in higher precision", String.valueOf(was),
            String.valueOf(l.precision())));
      } else if (before > 0 && after > 0 && after < before) {
        imp.add(new Change(Kind.PRECISION_FALLBACK, "layer '" + l.name() + "' runs in lower precision", String.valueOf(was),
            String.valueOf(l.precision())));
      }
    }
    growth(reg, imp, Kind.DEVICE_MEMORY, "device memory", base.deviceMemoryBytes(), cur.deviceMemoryBytes(), t.memoryGrowth());
    growth(reg, imp, Kind.PLAN_SIZE, "plan size", base.planBytes(), cur.planBytes(), t.planGrowth());
    int bl = base.engineLayerCount();
    int cl = cur.engineLayerCount();
    if (bl >= 0 && cl >= 0) {
      if (cl - bl > t.engineLayerGrowth()) {
        reg.add(new Change(Kind.ENGINE_LAYER_COUNT, "engine has " + (cl - bl) + " more layers (allowed " + t.engineLayerGrowth() + ")",
            String.valueOf(bl), String.valueOf(cl)));
      } else if (cl < bl) {
        imp.add(new Change(Kind.ENGINE_LAYER_COUNT, "engine has fewer layers", String.valueOf(bl), String.valueOf(cl)));
      }
    }
    Set<String> oldWarnings = new HashSet<>(base.warnings());
    for (String w : new LinkedHashSet<>(cur.warnings())) {
      if (!oldWarnings.contains(w)) {
        reg.add(new Change(Kind.NEW_WARNING, "new warning: " + w, "", w));
      }
    }
    Set<String> oldErrors = new HashSet<>(base.errors());
    for (String e : new LinkedHashSet<>(cur.errors())) {
      if (!oldErrors.contains(e)) {
        reg.add(new Change(Kind.NEW_ERROR, "new error: " + e, "", e));
      }
    }
    return new Diff(reg, imp, notes);
  }

  /** The regressions a gate fails on: all but the kinds it allows. */
  static List<Change> failures(Diff d, boolean allowNewWarnings, boolean allowPrecisionFallbacks, boolean allowNewErrors) {
    List<Change> out = new ArrayList<>();
    for (Change r : d.regressions()) {
      boolean allowed = (r.kind() == Kind.NEW_WARNING && allowNewWarnings)
          || (r.kind() == Kind.PRECISION_FALLBACK && allowPrecisionFallbacks)
          || (r.kind() == Kind.NEW_ERROR && allowNewErrors);
      if (!allowed) {
        out.add(r);
      }
    }
    return out;
  }

  /** The gate's message, worded as trace-tensorrt's {@code BuildGate} words it. */
  static String gateMessage(String model, List<Change> failures, Diff d) {
    StringBuilder sb = new StringBuilder();
    if (failures.isEmpty()) {
      sb.append("Build gate passed for ").append(model);
    } else {
      sb.append("Build gate failed for ").append(model).append(": ").append(failures.size())
          .append(failures.size() == 1 ? " regression" : " regressions").append(" against the baseline");
      for (Change r : failures) {
        sb.append("\n  - ").append(line(r));
      }
    }
    for (String note : d.notes()) {
      sb.append("\n  note: ").append(note);
    }
    return sb.toString();
  }

  /** {@code KIND: detail (baseline b, current c)}; new warnings and errors without the values. */
  static String line(Change r) {
    String s = r.kind() + ": " + r.detail();
    if ((!r.baseline().isEmpty() || !r.current().isEmpty()) && r.kind() != Kind.NEW_WARNING && r.kind() != Kind.NEW_ERROR) {
      s += " (baseline " + r.baseline() + ", current " + r.current() + ")";
    }
    return s;
  }

  private static void growth(List<Change> reg, List<Change> imp, Kind kind, String what, long base, long cur, double allowed) {
    if (base <= 0 || cur < 0) {
      return;
    }
    double ratio = (double) (cur - base) / base;
    if (ratio > allowed) {
      reg.add(new Change(kind, String.format(Locale.ROOT, "%s grew by %.1f %% (allowed %.1f %%)", what, ratio * 100, allowed * 100),
          String.valueOf(base), String.valueOf(cur)));
    } else if (cur < base) {
      imp.add(new Change(kind, what + " shrank", String.valueOf(base), String.valueOf(cur)));
    }
  }

  /** Width rank: fp4 1, fp8/int8 2, fp16/bf16 3, fp32 4, anything else 0 (ignored). */
  static int rank(@Nullable String p) {
    if (p == null) {
      return 0;
    }
    switch (p) {
      case "fp4": return 1;
      case "fp8":
      case "int8": return 2;
      case "fp16":
      case "bf16": return 3;
      case "fp32": return 4;
      default: return 0;
    }
  }

  private static String f3(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
