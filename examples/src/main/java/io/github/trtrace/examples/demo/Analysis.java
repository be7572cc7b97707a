package io.github.trtrace.examples.demo;

import io.github.trtrace.cli.internal.LogAnalysis;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What an operator concludes from the records alone: the figures of {@code trtrace stats} (trace-cli's
 * {@link LogAnalysis}, one analysis of the log) turned into the demo's sentences, each with a
 * {@code trtrace find} command for one example; then the full {@code trtrace stats} output of the same
 * analysis and its HTML report. The demo computes no statistic of its own, so what it concludes and what
 * {@code stats} prints cannot disagree.
 */
final class Analysis {
  /** Inputs this long are "long" in the field case (issue: "1,024+ input tokens"). */
  static final int LONG_INPUT = 1024;

  private Analysis() {}

  /** Reads {@code log}, prints the conclusions and {@code trtrace stats}, writes {@code report.html} beside it. */
  static LogAnalysis run(Path log, List<LoadGenerator.Outcome> outcomes, PrintStream out) throws IOException {
    LogAnalysis a = LogAnalysis.read(List.of(log));
    Set<String> shown = a.slowestByCompute().stream().limit(3).map(LogAnalysis.Request::requestId)
        .collect(Collectors.toSet());
    print(a, log, outcomes, GpuLine.read(log, shown), out);
    out.println();
    out.println("== trtrace stats " + display(log) + " ==");
    a.printStats(out);
    Path html = log.resolveSibling("report.html");
    a.writeHtml(html);
    out.println();
    out.println("HTML report (trtrace report --html " + display(html) + " " + display(log) + "): "
        + html.toAbsolutePath() + " (open it in a browser)");
    return a;
  }

  /** Prints the operator's conclusions, each with a command that shows one example. */
  static void print(LogAnalysis a, Path log, List<LoadGenerator.Outcome> outcomes, PrintStream out) {
    print(a, log, outcomes, Map.of(), out);
  }

  /**
   * As {@link #print(LogAnalysis, Path, List, PrintStream)}, with the GPU figures of the slowest requests
   * (roofline and NVML, {@link GpuLine}) printed under each of them when they were served on the GPU.
   */
  static void print(LogAnalysis a, Path log, List<LoadGenerator.Outcome> outcomes,
      Map<String, Map<String, String>> gpu, PrintStream out) {
    String file = display(log);
    out.println();
    out.println("== What the records say (" + a.records() + " records in " + file + ", trtrace stats' figures) ==");
    out.printf(Locale.ROOT, "statuses: %s; queue %.0f%% of the summed latency, the rest compute%n",
        new TreeMap<>(a.statuses()), 100 * a.queueShare());

    out.println();
    LogAnalysis.KneeFit k = a.knee();
    LogAnalysis.Slow slow = a.slow();
    List<LogAnalysis.Request> byCompute = a.slowestByCompute();
    long longOnes = byCompute.stream().filter(r -> r.inputTokens() >= LONG_INPUT).count();
    if (k.found()) {
      out.printf(Locale.ROOT, "1. Slow answers are the long inputs: latency per token rises past a knee at %,.0f"
          + " input tokens.%n", k.tokens());
      out.printf(Locale.ROOT, "   %.3f ms/token below it, %.3f ms/token above (%.1fx); two-segment fit R² %.3f"
          + " against one line's %.3f, over %d input-length buckets of 64 tokens%n", k.slopeBefore(),
          k.slopeAfter(), k.slopeAfter() / Math.max(1e-9, k.slopeBefore()), k.r2TwoSegments(), k.r2OneLine(),
          k.buckets());
      out.printf(Locale.ROOT, "   %,d of the %,d slow requests (latency >= p90 = %.0f ms) had more input tokens"
          + " than the knee; median latency %.0f ms at or below it, %.0f ms above%n", slow.aboveKnee(),
          slow.count(), slow.thresholdMs(), slow.medianBelowKneeMs(), slow.medianAboveKneeMs());
    } else {
      out.println("1. No clear knee in latency against input length: " + k.summary());
    }
    if (slow.queueBound() > 0) {
      out.printf(Locale.ROOT, "   %,d %s waited in the queue longer than they computed: the burst's backlog (3),"
          + " not their input%n", slow.queueBound(), k.found() ? "of the others" : "of the slow requests");
    }
    out.printf(Locale.ROOT, "   %d of the %d slowest by compute time had %,d+ input tokens:%n", longOnes,
        byCompute.size(), LONG_INPUT);
    byCompute.stream().limit(3).forEach(r -> {
      out.printf(Locale.ROOT, "     %s  %,d tokens  %.0f ms  (queue %.0f ms, most time in %s)%n", r.requestId(),
          r.inputTokens(), r.latencyMs(), r.queueMs(), r.dominantStage());
      String g = GpuLine.summary(gpu.getOrDefault(r.requestId(), Map.of()));
      if (g != null) {
        out.println("       " + g);
      }
    });
    if (!byCompute.isEmpty()) {
      find(out, byCompute.get(0).requestId(), file);
    }

    out.println();
    LogAnalysis.Garbled g = a.garbled();
    if (g.outputFlagged() == 0) {
      out.println("2. No output was flagged.");
    } else {
      out.printf(Locale.ROOT, "2. Garbled answers: %,d outputs were flagged, %,d of them had input flag %s%n",
          g.outputFlagged(), g.withInputFlag(), g.inputFlag());
      if (g.inputFlag() != null) {
        out.printf(Locale.ROOT, "   %,d inputs had %s; the other %,d came out clean (their overrides were closed:"
            + " U+202C/U+2069)%n", g.inputFlagRecords(), g.inputFlag(),
            g.inputFlagRecords() - g.inputFlagRecordsFlagged());
      }
      if (g.example() != null) {
        find(out, g.example(), file);
      }
    }

    out.println();
    LogAnalysis.Rejected r = a.rejected();
    if (r.count() == 0) {
      out.println("3. No request was rejected.");
    } else {
      out.printf(Locale.ROOT, "3. The 429s happened during the burst: %s of the %,d rejected (HTTP 429, status"
          + " rejected) came within %.0f s of the arrival peak%n",
          r.nearPeak() == r.count() ? "all" : String.format(Locale.ROOT, "%,d", r.nearPeak()), r.count(),
          r.binSeconds());
      out.printf(Locale.ROOT, "   %,d arrivals in the %.0f s from +%.0f s, against a median of %.0f per %.0f s%n",
          r.peakArrivals(), r.binSeconds(), r.peakOffsetSeconds(), r.medianArrivals(), r.binSeconds());
      if (r.example() != null) {
        find(out, r.example(), file);
      }
    }

    out.println();
    List<LoadGenerator.Outcome> hostile = outcomes.stream().filter(o -> o.planned().hostileHeader())
        .filter(o -> o.echoedId() != null).toList();
    out.printf(Locale.ROOT, "4. Hostile X-Request-IDs: %d %s replaced by generated IDs (the value is kept only"
        + " sanitized, in attributes.rejected_request_id)%n", hostile.size(), hostile.size() == 1 ? "was" : "were");
    hostile.stream().limit(1).forEach(h -> find(out, h.echoedId(), file));
  }

  /** {@code path} relative to the working directory when it is inside it (shorter commands to copy). */
  static String display(Path path) {
    Path cwd = Path.of("").toAbsolutePath();
    Path abs = path.toAbsolutePath().normalize();
    return abs.startsWith(cwd) ? cwd.relativize(abs).toString() : abs.toString();
  }

  private static void find(PrintStream out, String id, String file) {
    out.println("   ./trtrace find " + id + " " + file + "      (or: grep " + id + " " + file + ")");
  }
}
