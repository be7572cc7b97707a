package io.github.trtrace.cli.internal;

import io.github.trtrace.core.RecordConvention;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** The {@code explain} command's text: the sentence, the facts behind it, the conservation check, the launches. */
final class ExplainText {
  /** Launches with shares that do not add up, listed one by one (the rest counted). */
  static final int LISTED_OFF = 5;

  private ExplainText() {}

  static void print(PrintStream out, Explanation e, boolean launches) {
    LaunchJoin j = e.join;
    out.println("request " + Fmt.visible(j.requestId) + "   (" + j.recordAt + ")");
    out.println("  " + e.sentence);
    out.println();
    out.printf(Locale.ROOT, "  TPOT %s (median %s)   TTFT %s (median %s)   latency %s (median %s); medians of %s successful"
            + " requests%n", Explanation.fine(e.num(RecordConvention.TPOT_MS, Double.NaN)), Explanation.fine(j.tpot.percentile(50)), ms(e, RecordConvention.TTFT_MS),
        Fmt.ms(j.ttft.percentile(50)), ms(e, RecordConvention.LATENCY_MS), Fmt.ms(j.latency.percentile(50)),
        Fmt.count(j.latency.count()));
    out.println("  launches: " + e.coverage());
    if (e.launchCount > 0) {
      out.printf(Locale.ROOT, "  batch size mean %s, max %s; gpu_ms %s (%s)%n", Fmt.num(e.num(RecordConvention.BATCH_SIZE_MEAN, Double.NaN)),
          e.text(RecordConvention.BATCH_SIZE_MAX), ms(e, RecordConvention.GPU_MS),
          e.r.hasNonNull(RecordConvention.GPU_MS_METHOD) ? "its shares, split by " + e.text(RecordConvention.GPU_MS_METHOD)
              + ": an estimate" : "measured");
    }
    if (!j.launches.isEmpty()) {
      int only = e.decodeSteps - e.decodeStepsWithPrefill;
      out.printf(Locale.ROOT, "  decode steps %d: %d with other requests' prefill (mean step %s), %d decode-only (mean step %s)%n",
          e.decodeSteps, e.decodeStepsWithPrefill,
          e.decodeStepsWithPrefill == 0 ? "-" : Fmt.ms(e.mixedStepMsSum / e.decodeStepsWithPrefill), only,
          only == 0 ? "-" : Fmt.ms(e.decodeOnlyStepMsSum / only));
      if (!e.neighbours.isEmpty()) {
        out.println("  requests that prefilled in its decode steps:");
        StatsText.Table t = new StatsText.Table("request_id", ">steps", ">prefill tokens in them");
        for (int i = 0; i < Math.min(10, e.neighbours.size()); i++) {
          Explanation.Neighbour n = e.neighbours.get(i);
          t.row(Fmt.visible(n.requestId()), Fmt.count(n.steps()), Fmt.count(n.prefillTokens()));
        }
        t.print(out);
        if (e.neighbours.size() > 10) {
          out.println("    and " + (e.neighbours.size() - 10) + " more");
        }
      }
    }
    out.printf(Locale.ROOT, "  slot wait %s   admission queue %s   preemptions %s (%s)   failed launches %s%n",
        ms(e, RecordConvention.SLOT_WAIT_MS), ms(e, RecordConvention.QUEUE_MS), (long) e.num(RecordConvention.PREEMPTIONS, 0),
        ms(e, RecordConvention.PREEMPTED_MS), (long) e.num(RecordConvention.FAILED_LAUNCHES, 0));
    conservation(out, e);
    kernels(out, e.kernels, j.launches.size());
    profiled(out, e.profiledLayers, j.launches.size());
    if (launches && !j.launches.isEmpty()) {
      launchTable(out, e);
    }
    if (j.read.skippedAny()) {
      out.println("  read: " + j.read.describe());
    }
  }

  /** Its slowest kernels, when some of its launches had their kernels recorded. */
  static void kernels(PrintStream out, KernelBreakdown k, int launches) {
    if (k.recorded() == 0) {
      return;
    }
    out.printf(Locale.ROOT, "  kernels (CUPTI) recorded in %d of its %d launches: %s of kernels in %s of launch time"
            + " (gpu_ms)%s%s; slowest:%n", k.recorded(), launches, KernelBreakdown.ms(k.kernelMs()),
        KernelBreakdown.ms(k.launchMs()), k.hostWaitNote(), k.incompleteNote());
    StatsText.Table t = new StatsText.Table("kernel", ">ms", ">launches", ">share of launch time");
    for (KernelBreakdown.Kernel x : k.slowest()) {
      t.row(Fmt.visible(shorten(x.name())), KernelBreakdown.ms(x.ms()), Fmt.count(x.launches()),
          Double.isNaN(x.share()) ? "-" : String.format(Locale.ROOT, "%.1f %%", 100 * x.share()));
    }
    t.print(out);
    layers(out, k.layers());
  }

  /** Its slowest engine layers, when some of its launches were profiled (their layer tables in the launch log). */
  static void profiled(PrintStream out, ProfiledLayers p, int launches) {
    if (p.profiled() == 0) {
      return;
    }
    out.printf(Locale.ROOT, "  engine layers (TensorRT's profiler) in %d of its %d launches: %s of layers in %s of launch"
            + " time (gpu_ms; a profiled launch times each layer apart and runs slower than the others); slowest:%n",
        p.profiled(), launches, KernelBreakdown.ms(p.layerMs()), KernelBreakdown.ms(p.launchMs()));
    if (p.layerMs() > p.launchMs()) {
      out.println("  (the profiler's layer times add up to more than these launches' CUDA-event time: compare the"
          + " layers with one another rather than with gpu_ms)");
    }
    if (p.otherEngine() > 0) {
      out.printf(Locale.ROOT, "  WARNING the build report (engine %.12s) is not of the engine that ran %d of its profiled"
          + " launches%s%n", String.valueOf(p.engine()), p.otherEngine(),
          p.otherEngine() == p.profiled() ? "; no network layers named" : "");
    }
    boolean named = !p.networkLayers().isEmpty();
    StatsText.Table t = named
        ? new StatsText.Table("engine layer", ">ms", ">launches", ">share of launch time", "network layers")
        : new StatsText.Table("engine layer", ">ms", ">launches", ">share of launch time");
    for (KernelBreakdown.Kernel x : p.slowest()) {
      String share = Double.isNaN(x.share()) ? "-" : String.format(Locale.ROOT, "%.1f %%", 100 * x.share());
      if (named) {
        t.row(Fmt.visible(shorten(x.name())), KernelBreakdown.ms(x.ms()), Fmt.count(x.launches()), share,
            Fmt.visible(absorbed(p.networkLayers().getOrDefault(x.name(), List.of()))));
      } else {
        t.row(Fmt.visible(shorten(x.name())), KernelBreakdown.ms(x.ms()), Fmt.count(x.launches()), share);
      }
    }
    t.print(out);
  }

  /** The same kernels' time by engine layer, when explain was given the engine's build report. */
  static void layers(PrintStream out, KernelBreakdown.@Nullable Layers l) {
    if (l == null) {
      return;
    }
    String engine = l.engineLabel();
    if (l.otherEngine() > 0) {
      out.printf(Locale.ROOT, "  WARNING the build report (%s) is not of the engine that ran %d of its recorded launches;"
          + " those are left out of the layer table%n", engine, l.otherEngine());
    }
    if (l.kernels() == 0) {
      return;
    }
    out.printf(Locale.ROOT, "  by engine layer (build report of %s; its tactics named %d of %d kernels):%n", engine,
        l.matched(), l.kernels());
    if (l.matched() == 0) {
      out.println("    no kernel matched a layer's tactic (a report built without detailed profiling verbosity names"
          + " no tactics)");
      return;
    }
    StatsText.Table t = new StatsText.Table("engine layer", ">ms", ">launches", ">share of launch time", "network layers");
    for (KernelBreakdown.Kernel x : l.slowest()) {
      t.row(Fmt.visible(shorten(x.name())), KernelBreakdown.ms(x.ms()), Fmt.count(x.launches()),
          Double.isNaN(x.share()) ? "-" : String.format(Locale.ROOT, "%.1f %%", 100 * x.share()),
          Fmt.visible(absorbed(l.networkLayers().getOrDefault(x.name(), List.of()))));
    }
    t.print(out);
  }

  /** The network layers an engine layer absorbed, the first three and how many more ({@code -} when none known). */
  static String absorbed(List<String> layers) {
    if (layers.isEmpty()) {
      return "-";
    }
    String first = String.join(", ", layers.subList(0, Math.min(3, layers.size())));
    return layers.size() <= 3 ? first : first + " +" + (layers.size() - 3);
  }

  /** A kernel name cut for a table column (the launch log keeps it whole, up to its bound). */
  static String shorten(String name) {
    return name.length() <= 80 ? name : name.substring(0, 79) + "…";
  }

  private static void conservation(PrintStream out, Explanation e) {
    if (e.join.launches.isEmpty()) {
      return;
    }
    long checked = e.join.launches.stream().filter(l -> !Double.isNaN(l.shareSum())).count();
    if (e.sharesOff.isEmpty()) {
      out.printf(Locale.ROOT, "  shares: in all %d of its launches with GPU time and every member listed, the members'"
          + " share_ms add up to gpu_ms%n", checked);
      return;
    }
    out.printf(Locale.ROOT, "  WARNING shares do not add up in %d of its %d checked launches (conservation broken;"
        + " a writer other than trtrace, or an edited log?):%n", e.sharesOff.size(), checked);
    for (int i = 0; i < Math.min(LISTED_OFF, e.sharesOff.size()); i++) {
      out.println("    " + e.sharesOff.get(i).sharesOffText());
    }
    if (e.sharesOff.size() > LISTED_OFF) {
      out.println("    and " + (e.sharesOff.size() - LISTED_OFF) + " more");
    }
  }

  private static void launchTable(PrintStream out, Explanation e) {
    out.println();
    out.println("  its launches (+ms from the first one's start)");
    StatsText.Table t = new StatsText.Table(">launch_id", ">at", "phase", ">batch", "it did", ">host ms", ">gpu ms",
        ">its share", "others prefilling");
    long first = e.join.launches.get(0).timestampMicros;
    for (LaunchLine l : e.join.launches) {
      int self = l.indexOf(e.join.requestId);
      StringBuilder others = new StringBuilder();
      for (int i = 0; i < l.members; i++) {
        if (i != self && l.memberPrefill[i] > 0) {
          others.append(others.length() == 0 ? "" : ", ").append(Fmt.visible(l.memberIds[i])).append(' ')
              .append(Fmt.count(l.memberPrefill[i]));
        }
      }
      String did = l.memberPrefill[self] > 0 ? "prefill " + Fmt.count(l.memberPrefill[self])
          : l.memberDecode[self] > 0 ? "decode" : "rows";
      t.row(Long.toString(l.id), first == Rec.NO_TIME || l.timestampMicros == Rec.NO_TIME ? "-"
              : Fmt.num((l.timestampMicros - first) / 1000.0),
          (l.phase == null ? "-" : Fmt.visible(l.phase)) + (l.passes > 1 ? " (" + l.passes + " passes)" : ""),
          Integer.toString(l.batchSize), did, Fmt.num(l.hostMs), Fmt.num(l.gpuMs),
          Double.isNaN(l.memberShare[self]) ? "-" : String.format(Locale.ROOT, "%.3f", l.memberShare[self]),
          (l.failed() ? "FAILED " + (l.errorType == null ? "" : Fmt.visible(l.errorType) + " ") : "") + others);
    }
    t.print(out);
  }

  private static String ms(Explanation e, String field) {
    return Fmt.ms(e.num(field, Double.NaN));
  }
}
