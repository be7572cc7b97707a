package io.github.trtrace.cli.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A request's slowest GPU kernels, from the kernels lines of its launches (CUPTI records, sampled): each
 * kernel's time summed by name over its recorded launches, and its share of those launches' time, the CUDA-event
 * {@code gpu_ms} of each (or, without it, the span from its first to its last activity). A kernel of a shared
 * launch ran for every member: the share is of the launch, not of the request's own share of it.
 *
 * @param recorded its launches with a kernels line
 * @param incomplete of those, lines the recorder wrote before every record of the launch came ({@code "complete":
 *     false}): their lists may miss kernels
 * @param launchMs those launches' time (gpu_ms, else span_ms)
 * @param kernelMs all their kernels' time
 * @param timedLaunches of the recorded launches, those whose line says how long the device waited for the host
 *     ({@code host_wait_ms}: the recorder saw the launch's API calls)
 * @param timedLaunchMs those launches' time
 * @param hostWaitMs the device's wait for the host in those launches
 * @param slowest the slowest kernels, most first
 * @param layers the same time by engine layer, when a build report was given ({@code explain --build-report})
 */
record KernelBreakdown(int recorded, int incomplete, double launchMs, double kernelMs, int timedLaunches,
    double timedLaunchMs, double hostWaitMs, List<Kernel> slowest, @Nullable Layers layers) {
  /** Kernels listed at most. */
  static final int LISTED = 10;

  /** One kernel name over the recorded launches: its time, in how many launches it ran, its share of launchMs. */
  record Kernel(String name, double ms, int launches, double share) {}

  /**
   * The kernels' time by the engine layer that ran them (the build report's tactics matched to kernel names).
   *
   * @param engine the report's engine fingerprint (null when it has none)
   * @param matched kernels a layer was found for, of {@code kernels}
   * @param otherEngine the request's recorded launches whose engine fingerprint is not the report's
   * @param slowest layers, most time first (a layer's {@code launches}: in how many recorded launches it ran)
   * @param networkLayers for each listed layer, the network layers the report says it absorbed (may be empty)
   */
  record Layers(@Nullable String engine, int matched, int kernels, int otherEngine, List<Kernel> slowest,
      Map<String, List<String>> networkLayers) {
    /** The report's engine as explain and the HTML report name it: its fingerprint's first 12 characters. */
    String engineLabel() {
      return engine == null ? "no fingerprint" : "engine " + engine.substring(0, Math.min(12, engine.length()));
    }
  }

  /** What to say of the incomplete lists, or "" when none: "; 2 of these lists are incomplete (...)". */
  String incompleteNote() {
    if (incomplete == 0) {
      return "";
    }
    return String.format(java.util.Locale.ROOT, "; %d of these lists %s incomplete (the recorder stopped waiting for"
        + " their launch's records: kernels may be missing)", incomplete, incomplete == 1 ? "is" : "are");
  }

  /**
   * What to say of the device's wait for the host, or "" when no line says: "; the device waited for the host 0.062 ms
   * of 0.574 ms (10.8 %) in the 1 launch whose line says".
   */
  String hostWaitNote() {
    if (timedLaunches == 0) {
      return "";
    }
    return String.format(java.util.Locale.ROOT, "; the device waited for the host %s of %s (%.1f %%) in the %d launch%s"
            + " whose line says", ms(hostWaitMs), ms(timedLaunchMs), timedLaunchMs > 0 ? 100 * hostWaitMs / timedLaunchMs
            : 0.0, timedLaunches, timedLaunches == 1 ? "" : "es");
  }

  /** Kernel times are microseconds to milliseconds: three decimals below 1 ms, two below 100 ms. */
  static String ms(double ms) {
    return ms < 1 ? String.format(java.util.Locale.ROOT, "%.3f ms", ms)
        : ms < 100 ? String.format(java.util.Locale.ROOT, "%.2f ms", ms) : Fmt.ms(ms);
  }

  /** The breakdown; by layer too when {@code j} was joined with a build report. */
  static KernelBreakdown of(LaunchJoin j) {
    Map<String, double[]> byName = new HashMap<>();
    Map<String, double[]> byLayer = new HashMap<>();
    int matched = 0;
    int inLines = 0;
    int otherEngine = 0;
    int recorded = 0;
    int incomplete = 0;
    double launchMs = 0;
    double kernelMs = 0;
    int timed = 0;
    double timedMs = 0;
    double hostWait = 0;
    for (LaunchLine l : j.launches) {
      LaunchLine k = j.kernels.get(l.id);
      if (k == null) {
        continue;
      }
      recorded++;
      if (k.incomplete) {
        incomplete++;
      }
      double t = !Double.isNaN(l.gpuMs) ? l.gpuMs : k.spanMs;
      if (!Double.isNaN(t)) {
        launchMs += t;
        if (!Double.isNaN(k.hostWaitMs)) {
          timed++;
          timedMs += t;
          hostWait += k.hostWaitMs;
        }
      }
      kernelMs += Double.isNaN(k.kernelMsSum) ? 0 : k.kernelMsSum;
      for (int i = 0; i < k.kernels; i++) {
        double[] v = byName.computeIfAbsent(k.kernelNames[i], n -> new double[2]);
        v[0] += k.kernelMs[i];
        v[1]++;
      }
      if (j.report != null && k.layerMs != null) {
        String fp = j.report.engineFingerprint();
        if (l.engineFingerprint != null && fp != null && !l.engineFingerprint.equals(fp)) {
          otherEngine++;
          continue;
        }
        matched += k.kernelsMatched;
        inLines += k.kernelsInLine;
        for (Map.Entry<String, Double> e : k.layerMs.entrySet()) {
          double[] v = byLayer.computeIfAbsent(e.getKey(), n -> new double[2]);
          v[0] += e.getValue();
          v[1]++;
        }
      }
    }
    Layers layers = null;
    if (j.report != null) {
      List<Kernel> listed = slowest(byLayer, launchMs);
      Map<String, List<String>> absorbed = new HashMap<>();
      for (Kernel x : listed) {
        absorbed.put(x.name(), j.report.explain(x.name()).networkLayers());
      }
      layers = new Layers(j.report.engineFingerprint(), matched, inLines, otherEngine, listed, Map.copyOf(absorbed));
    }
    return new KernelBreakdown(recorded, incomplete, launchMs, kernelMs, timed, timedMs, hostWait,
        slowest(byName, launchMs), layers);
  }

  /** The {@value #LISTED} largest of {@code byName} (ms, launches), ties by name; shares of {@code launchMs}. */
  static List<Kernel> slowest(Map<String, double[]> byName, double launchMs) {
    List<Kernel> all = new ArrayList<>();
    for (Map.Entry<String, double[]> e : byName.entrySet()) {
      all.add(new Kernel(e.getKey(), e.getValue()[0], (int) e.getValue()[1],
          launchMs > 0 ? e.getValue()[0] / launchMs : Double.NaN));
    }
    all.sort(Comparator.comparingDouble(Kernel::ms).reversed().thenComparing(Kernel::name));
    return List.copyOf(all.subList(0, Math.min(LISTED, all.size())));
  }
}
