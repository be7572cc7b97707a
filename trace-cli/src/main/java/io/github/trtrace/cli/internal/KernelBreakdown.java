package io.github.trtrace.cli.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * @param slowest the slowest kernels, most first
 */
record KernelBreakdown(int recorded, int incomplete, double launchMs, double kernelMs, List<Kernel> slowest) {
  /** Kernels listed at most. */
  static final int LISTED = 10;

  /** One kernel name over the recorded launches: its time, in how many launches it ran, its share of launchMs. */
  record Kernel(String name, double ms, int launches, double share) {}

  /** What to say of the incomplete lists, or "" when none: "; 2 of these lists are incomplete (...)". */
  String incompleteNote() {
    if (incomplete == 0) {
      return "";
    }
    return String.format(java.util.Locale.ROOT, "; %d of these lists %s incomplete (the recorder stopped waiting for"
        + " their launch's records: kernels may be missing)", incomplete, incomplete == 1 ? "is" : "are");
  }

  /** Kernel times are microseconds to milliseconds: three decimals below 1 ms, two below 100 ms. */
  static String ms(double ms) {
    return ms < 1 ? String.format(java.util.Locale.ROOT, "%.3f ms", ms)
        : ms < 100 ? String.format(java.util.Locale.ROOT, "%.2f ms", ms) : Fmt.ms(ms);
  }

  static KernelBreakdown of(LaunchJoin j) {
    Map<String, double[]> byName = new HashMap<>();
    int recorded = 0;
    int incomplete = 0;
    double launchMs = 0;
    double kernelMs = 0;
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
      }
      kernelMs += Double.isNaN(k.kernelMsSum) ? 0 : k.kernelMsSum;
      for (int i = 0; i < k.kernels; i++) {
        double[] v = byName.computeIfAbsent(k.kernelNames[i], n -> new double[2]);
        v[0] += k.kernelMs[i];
        v[1]++;
      }
    }
    List<Kernel> all = new ArrayList<>();
    for (Map.Entry<String, double[]> e : byName.entrySet()) {
      all.add(new Kernel(e.getKey(), e.getValue()[0], (int) e.getValue()[1],
          launchMs > 0 ? e.getValue()[0] / launchMs : Double.NaN));
    }
    all.sort(Comparator.comparingDouble(Kernel::ms).reversed().thenComparing(Kernel::name));
    return new KernelBreakdown(recorded, incomplete, launchMs, kernelMs, List.copyOf(all.subList(0, Math.min(LISTED, all.size()))));
  }
}
