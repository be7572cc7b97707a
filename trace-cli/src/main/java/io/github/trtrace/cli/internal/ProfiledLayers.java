package io.github.trtrace.cli.internal;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A request's engine layers as TensorRT's profiler timed them, from the layer tables of its profiled launches (the
 * launch log's {@code layers}, written for the launches the profiling policy picked): each layer's time summed over
 * those launches and its share of their CUDA-event {@code gpu_ms}. A profiled launch runs its layers one at a time
 * with a timing between each, so it is slower than the same launch unprofiled; the shares are of the profiled launches'
 * own time. A layer of a shared launch ran for every member. With a build report ({@code explain --build-report}) of
 * the launches' engine, each layer also names the network layers it absorbed.
 *
 * @param profiled its launches with a layer table
 * @param launchMs those launches' gpu_ms
 * @param layerMs the layers' time in them (the tables the writer kept: the slowest layers of each launch)
 * @param slowest the slowest layers, most first
 * @param engine the build report's engine fingerprint, null without a report (or a report without one)
 * @param otherEngine profiled launches whose engine is not the report's (their network layers are not named)
 * @param networkLayers for each listed layer, the network layers the report says it absorbed (empty without a report)
 */
record ProfiledLayers(int profiled, double launchMs, double layerMs, List<KernelBreakdown.Kernel> slowest,
    @Nullable String engine, int otherEngine, Map<String, List<String>> networkLayers) {

  /** The profiled launches' tables summed; network layers from {@code j}'s report when its engine ran them. */
  static ProfiledLayers of(LaunchJoin j) {
    Map<String, double[]> byName = new HashMap<>();
    int profiled = 0;
    int otherEngine = 0;
    double launchMs = 0;
    double layerMs = 0;
    String fp = j.report == null ? null : j.report.engineFingerprint();
    for (LaunchLine l : j.launches) {
      if (l.profiledLayers == 0) {
        continue;
      }
      profiled++;
      if (!Double.isNaN(l.gpuMs)) {
        launchMs += l.gpuMs;
      }
      if (fp != null && l.engineFingerprint != null && !l.engineFingerprint.equals(fp)) {
        otherEngine++;
      }
      for (int i = 0; i < l.profiledLayers; i++) {
        double[] v = byName.computeIfAbsent(l.profiledNames[i], n -> new double[2]);
        v[0] += l.profiledMs[i];
        v[1]++;
        layerMs += l.profiledMs[i];
      }
    }
    List<KernelBreakdown.Kernel> slowest = KernelBreakdown.slowest(byName, launchMs);
    Map<String, List<String>> absorbed = new HashMap<>();
    if (j.report != null && otherEngine < profiled) {
      for (KernelBreakdown.Kernel x : slowest) {
        absorbed.put(x.name(), j.report.explain(x.name()).networkLayers());
      }
    }
    return new ProfiledLayers(profiled, launchMs, layerMs, slowest, fp, otherEngine, Map.copyOf(absorbed));
  }
}
