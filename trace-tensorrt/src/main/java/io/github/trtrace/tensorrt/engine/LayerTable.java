package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.util.Locale;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Aggregates one request's per-layer timings (as drained from the profiler: layer name and
 * milliseconds, once per invocation) into {@link InferenceRecord.LayerTime}s: total ms and invocation
 * count per layer, in engine order (first appearance). One table per request; not thread-safe.
 *
 * <pre>{@code
 * LayerTable table = LayerTable.create();
 * drained.forEach(s -> table.add(s.name(), s.ms()));
 * trace.layers(table.top(20));
 * table.explain(buildReport, 5).forEach(x -> log.info("{}", x.summary()));
 * // attn_qkv: 3.2 ms in 17 launches, fp16, tactic sm90_xmma_gemm..., not fused: <the build's warning>
 * }</pre>
 */
public final class LayerTable {
  private static final class Acc {
    double ms;
    int invocations;
  }

  private final Map<String, Acc> byName = new LinkedHashMap<>();

  private LayerTable() {}

  /** An empty table. */
  public static LayerTable create() {
    return new LayerTable();
  }

  /** Adds one sample; negative or non-finite times are counted as an invocation with 0 ms. */
  public LayerTable add(String layerName, float ms) {
    Objects.requireNonNull(layerName, "layerName");
    Acc a = byName.computeIfAbsent(layerName, k -> new Acc());
    if (Float.isFinite(ms) && ms > 0) {
      a.ms += ms;
    }
    a.invocations++;
    return this;
  }

  /** Number of distinct layers. */
  public int size() {
    return byName.size();
  }

  /** All layers, in engine order. */
  public List<InferenceRecord.LayerTime> layers() {
    List<InferenceRecord.LayerTime> out = new ArrayList<>(byName.size());
    byName.forEach((name, a) -> out.add(new InferenceRecord.LayerTime(name, a.ms, a.invocations)));
    return out;
  }

  /** The {@code k} slowest layers by total ms, kept in engine order. */
  public List<InferenceRecord.LayerTime> top(int k) {
    if (k < 0) {
      throw new IllegalArgumentException("k must be >= 0: " + k);
    }
    List<InferenceRecord.LayerTime> all = layers();
    if (k >= all.size()) {
      return all;
    }
    List<InferenceRecord.LayerTime> slowest = new ArrayList<>(all);
    slowest.sort(Comparator.comparingDouble(InferenceRecord.LayerTime::ms).reversed());
    List<InferenceRecord.LayerTime> keep = slowest.subList(0, k);
    List<InferenceRecord.LayerTime> out = new ArrayList<>(k);
    for (InferenceRecord.LayerTime t : all) {
      if (keep.contains(t)) {
        out.add(t);
      }
    }
    return out;
  }

  /**
   * A profiled engine layer joined with the engine's build report: why it took the time it did.
   *
   * @param name engine layer name
   * @param ms total milliseconds over the request's launches
   * @param invocations how many times it ran
   * @param networkLayers the network layers it absorbed (fused), empty when it is one network layer or
   *     the report does not say
   * @param precision its precision in the report, or null
   * @param tactic its tactic (kernel) in the report, or null
   * @param type its layer type in the report, or null
   * @param buildWarnings the build's warnings that name this layer or one it absorbed
   */
  public record Explained(
      String name,
      double ms,
      int invocations,
      List<String> networkLayers,
      @Nullable String precision,
      @Nullable String tactic,
      @Nullable String type,
      List<String> buildWarnings) {
    public Explained {
      Objects.requireNonNull(name, "name");
      networkLayers = List.copyOf(networkLayers);
      buildWarnings = List.copyOf(buildWarnings);
    }

    /** Whether the engine layer absorbed two or more network layers. */
    public boolean fused() {
      return networkLayers.size() >= 2;
    }

    /**
     * One line: time, precision, tactic, and "fused: a + b" or "not fused" with the build's warning
     * about it, e.g. {@code 3.200 ms / 17 launches, fp16, tactic sm90_gemm, not fused: <warning>}.
     */
    public String summary() {
      StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%.3f ms / %d launches", ms, invocations));
      b.append(", ").append(precision == null ? "precision unknown" : precision);
      if (tactic != null) {
        b.append(", tactic ").append(tactic);
      }
      if (fused()) {
        b.append(", fused: ").append(String.join(" + ", networkLayers));
      } else {
        b.append(", not fused");
        if (!buildWarnings.isEmpty()) {
          b.append(": ").append(buildWarnings.get(0));
        }
      }
      return b.toString();
    }
  }

  /**
   * The {@code k} slowest layers (engine order) joined with {@code report}: per engine layer its
   * time, the network layers it absorbed, precision, tactic, and the build warnings naming it.
   * Layers the report does not know keep null precision and tactic.
   */
  public List<Explained> explain(BuildReport report, int k) {
    Objects.requireNonNull(report, "report");
    List<Explained> out = new ArrayList<>();
    for (InferenceRecord.LayerTime t : top(k)) {
      BuildReport.LayerExplanation x = report.explain(t.name());
      BuildReport.Layer layer = x.layer();
      out.add(new Explained(t.name(), t.ms(), t.invocations(), x.networkLayers(),
          layer == null ? null : layer.precision(), layer == null ? null : layer.tactic(),
          layer == null ? null : layer.type(), x.warnings()));
    }
    return out;
  }

  /** Empties the table for reuse. */
  public void clear() {
    byName.clear();
  }
}
