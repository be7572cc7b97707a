package io.github.trtrace.tensorrt.model.build;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What changed between a baseline build report and a current one.
 *
 * <pre>{@code
 * BuildDiff d = current.diff(baseline);
 * d.regressions().forEach(r -> System.out.println(r.kind() + ": " + r.detail()));
 * }</pre>
 *
 * @param regressions changes for the worse
 * @param improvements changes for the better
 * @param notes informational changes (e.g. TensorRT version)
 */
public record BuildDiff(List<Regression> regressions, List<Improvement> improvements, List<String> notes) {

  /** What kind of change. */
  public enum Kind {
    STATUS,
    FUSION_RATE,
    PRECISION_FALLBACK,
    DEVICE_MEMORY,
    PLAN_SIZE,
    ENGINE_LAYER_COUNT,
    NEW_WARNING,
    NEW_ERROR
  }

  /** A change for the worse, with the baseline and current values as text. */
  public record Regression(Kind kind, String detail, String baseline, String current) {
    /** One line: {@code KIND: detail (baseline b, current c)}; new warnings and errors without the values. */
    public String describe() {
      return line(kind, detail, baseline, current);
    }
  }

  /** A change for the better. */
  public record Improvement(Kind kind, String detail, String baseline, String current) {
    /** One line, as {@link Regression#describe()}. */
    public String describe() {
      return line(kind, detail, baseline, current);
    }
  }

  private static String line(Kind kind, String detail, String baseline, String current) {
    String s = kind + ": " + detail;
    if ((!baseline.isEmpty() || !current.isEmpty()) && kind != Kind.NEW_WARNING && kind != Kind.NEW_ERROR) {
      s += " (baseline " + baseline + ", current " + current + ")";
    }
    return s;
  }

  public BuildDiff {
    regressions = List.copyOf(regressions);
    improvements = List.copyOf(improvements);
    notes = List.copyOf(notes);
  }

  /** Whether nothing got worse. */
  public boolean hasRegressions() {
    return !regressions.isEmpty();
  }

  static BuildDiff compute(BuildReport cur, BuildReport base, BuildGate.Thresholds t) {
    List<Regression> reg = new ArrayList<>();
    List<Improvement> imp = new ArrayList<>();
    List<String> notes = new ArrayList<>();

    if (base.status() != cur.status()) {
      String b = base.status().wireName();
      String c = cur.status().wireName();
      if (cur.status() == BuildReport.Status.FAILED) {
        reg.add(new Regression(Kind.STATUS, "build status changed from success to failed", b, c));
      } else {
        imp.add(new Improvement(Kind.STATUS, "build succeeds again", b, c));
      }
    }
    if (!Objects.equals(base.tensorrtVersion(), cur.tensorrtVersion())) {
      notes.add("TensorRT version changed: " + base.tensorrtVersion() + " -> " + cur.tensorrtVersion());
    }

    // A check that lacks a figure is skipped, and said in a note (a skipped check does not fail the gate: an
    // older or partial report must not block a build, but nobody should read silence as a pass). Not said when
    // the new build failed: it has no figures by nature, and its status already fails it.
    Skips skips = new Skips(cur.status() != BuildReport.Status.FAILED, notes);
    double bf = base.fusionRate();
    double cf = cur.fusionRate();
    skips.unknown("fusion-rate check", "network layer count (network_layer_count)",
        !Double.isFinite(bf), !Double.isFinite(cf));
    if (Double.isFinite(bf) && Double.isFinite(cf)) {
      if (bf - cf > t.fusionRateDrop() + 1e-9) { // 0.64 - 0.62 is 0.020000000000000018 in doubles
        reg.add(new Regression(Kind.FUSION_RATE,
            "fusion rate dropped by " + beside(bf - cf, t.fusionRateDrop(), 3, ""),
            fmt(bf), fmt(cf)));
      } else if (cf > bf) {
        imp.add(new Improvement(Kind.FUSION_RATE, "fusion rate rose", fmt(bf), fmt(cf)));
      }
    }

    Map<String, String> basePrecision = new HashMap<>();
    for (Map.Entry<String, BuildReport.Layer> e : byStableName(base.layers()).entrySet()) {
      if (e.getValue().precision() != null) {
        basePrecision.put(e.getKey(), e.getValue().precision());
      }
    }
    for (Map.Entry<String, BuildReport.Layer> e : byStableName(cur.layers()).entrySet()) {
      BuildReport.Layer l = e.getValue();
      String was = basePrecision.get(e.getKey());
      int before = Precisions.rank(was);
      int after = Precisions.rank(l.precision());
      if (before > 0 && after > before) {
        reg.add(new Regression(Kind.PRECISION_FALLBACK,
            "layer '" + l.name() + "' runs in higher precision", String.valueOf(was), String.valueOf(l.precision())));
      } else if (before > 0 && after > 0 && after < before) {
        imp.add(new Improvement(Kind.PRECISION_FALLBACK,
            "layer '" + l.name() + "' runs in lower precision", String.valueOf(was), String.valueOf(l.precision())));
      }
    }

    boolean curPrecisions = cur.layers().stream().anyMatch(l -> l.precision() != null);
    skips.unknown("precision-fallback check", "layer precisions (layers[].precision)", basePrecision.isEmpty(), !curPrecisions);
    skips.growth("device-memory growth check", "device memory figure (device_memory_bytes)", "device memory",
        base.deviceMemoryBytes(), cur.deviceMemoryBytes());
    growth(reg, imp, Kind.DEVICE_MEMORY, "device memory", base.deviceMemoryBytes(), cur.deviceMemoryBytes(), t.memoryGrowth());
    skips.growth("plan-size growth check", "plan size (plan_bytes)", "plan size", base.planBytes(), cur.planBytes());
    growth(reg, imp, Kind.PLAN_SIZE, "plan size", base.planBytes(), cur.planBytes(), t.planGrowth());

    int bl = base.engineLayerCount();
    int cl = cur.engineLayerCount();
    skips.unknown("engine-layer check", "engine layer count (engine_layer_count)", bl < 0, cl < 0);
    if (bl >= 0 && cl >= 0) {
      if (cl - bl > t.engineLayerGrowth()) {
        reg.add(new Regression(Kind.ENGINE_LAYER_COUNT,
            "engine has " + (cl - bl) + " more layers (allowed " + t.engineLayerGrowth() + ")",
            String.valueOf(bl), String.valueOf(cl)));
      } else if (cl < bl) {
        imp.add(new Improvement(Kind.ENGINE_LAYER_COUNT, "engine has fewer layers", String.valueOf(bl), String.valueOf(cl)));
      }
    }

    Set<String> oldWarnings = new HashSet<>(base.warnings());
    for (String w : new LinkedHashSet<>(cur.warnings())) {
      if (!oldWarnings.contains(w)) {
        reg.add(new Regression(Kind.NEW_WARNING, "new warning: " + w, "", w));
      }
    }
    Set<String> oldErrors = new HashSet<>();
    base.errors().forEach(e -> oldErrors.add(e.message()));
    Set<String> seen = new HashSet<>();
    for (BuildReport.BuildError e : cur.errors()) {
      if (!oldErrors.contains(e.message()) && seen.add(e.message())) {
        reg.add(new Regression(Kind.NEW_ERROR, "new error: " + e.message(), "", e.message()));
      }
    }
    return new BuildDiff(reg, imp, notes);
  }

  /** Myelin's per-build suffix of an engine layer name: {@code block0_mlp_up_myl9_11} is {@code block0_mlp_up} in every build. */
  private static final Pattern MYELIN_SUFFIX = Pattern.compile("_myl\\d+_\\d+$");

  /**
   * Engine layers keyed by a name that is stable across builds of one network: Myelin numbers its
   * layers per build ({@code _myl<graph>_<index>}), so the suffix is dropped, and the k-th layer of a
   * repeated name is keyed {@code name#k}.
   */
  static Map<String, BuildReport.Layer> byStableName(List<BuildReport.Layer> layers) {
    Map<String, BuildReport.Layer> out = new LinkedHashMap<>();
    Map<String, Integer> seen = new HashMap<>();
    for (BuildReport.Layer l : layers) {
      String stable = stableName(l.name());
      int k = seen.merge(stable, 1, Integer::sum);
      out.put(k == 1 ? stable : stable + "#" + k, l);
    }
    return out;
  }

  static String stableName(String engineLayer) {
    return MYELIN_SUFFIX.matcher(engineLayer).replaceFirst("");
  }

  private static void growth(List<Regression> reg, List<Improvement> imp, Kind kind, String what, long base, long cur, double allowed) {
    if (base <= 0 || cur < 0) {
      return;
    }
    double ratio = (double) (cur - base) / base;
    if (ratio > allowed) {
      reg.add(new Regression(kind,
          what + " grew by " + beside(ratio * 100, allowed * 100, 1, " %"),
          String.valueOf(base), String.valueOf(cur)));
    } else if (cur < base) {
      imp.add(new Improvement(kind, what + " shrank", String.valueOf(base), String.valueOf(cur)));
    }
  }

  /**
   * {@code value (allowed limit)}, both to the same number of decimals, at least {@code minDecimals} and more
   * while they would read as equal: a figure that fails the gate (5.04 % against 5 %) never prints as its limit.
   */
  static String beside(double value, double limit, int minDecimals, String unit) {
    String v = "";
    String l = "";
    for (int d = minDecimals; d <= 12; d++) {
      v = String.format(Locale.ROOT, "%." + d + "f", value);
      l = String.format(Locale.ROOT, "%." + d + "f", limit);
      if (!v.equals(l) || value == limit) {
        break;
      }
    }
    return v + unit + " (allowed " + l + unit + ")";
  }

  /** Notes for the checks that could not be made, with the reason; none when {@code say} is false. */
  private record Skips(boolean say, List<String> notes) {
    void unknown(String check, String figure, boolean baseMissing, boolean curMissing) {
      if (!say || !(baseMissing || curMissing)) {
        return;
      }
      String who = baseMissing && curMissing ? "neither report has any" : baseMissing ? "the baseline has no" : "the new report has no";
      notes.add("skipped the " + check + ": " + who + " " + figure);
    }

    void growth(String check, String figure, String what, long base, long cur) {
      if (base < 0 || cur < 0) {
        unknown(check, figure, base < 0, cur < 0);
      } else if (base == 0 && say) {
        notes.add("skipped the " + check + ": the baseline's " + what + " is 0 bytes (no growth ratio)");
      }
    }
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
