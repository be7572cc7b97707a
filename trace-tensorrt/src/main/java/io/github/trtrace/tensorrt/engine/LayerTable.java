package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.core.InferenceRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Aggregates one request's per-layer timings (as drained from the profiler: layer name and
 * milliseconds, once per invocation) into {@link InferenceRecord.LayerTime}s: total ms and invocation
 * count per layer, in engine order (first appearance). One table per request; not thread-safe.
 *
 * <pre>{@code
 * LayerTable table = LayerTable.create();
 * drained.forEach(s -> table.add(s.name(), s.ms()));
 * trace.layers(table.top(20));
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

  /** Empties the table for reuse. */
  public void clear() {
    byName.clear();
  }
}
