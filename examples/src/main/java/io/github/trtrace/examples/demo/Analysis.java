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
import org.jspecify.annotations.Nullable;

/**
 * What an operator concludes from the records alone: the figures of {@code trtrace stats} (trace-cli's
 * {@link LogAnalysis}, one analysis of the log) turned into the demo's sentences, each with a
 * {@code trtrace find} command for one example; then the full {@code trtrace stats} output of the same
 * analysis and its HTML report. Beside stats' figures it uses one reading of its own, of the records'
 * batching fields and launch log ({@link BatchFindings}): the knee of each request's CPU-time compute share (wall
 * time, which stats fits, is bent by batch neighbours and by other processes on the machine; the demo prints
 * stats' wall-clock knee beside it) and the third field case, decode slowed by neighbours' prefill.
 */
final class Analysis {
  /** Inputs this long are "long" in the field case (issue: "1,024+ input tokens"). */
  static final int LONG_INPUT = 1024;

  private Analysis() {}

  /**
   * Reads {@code log}, prints the conclusions and {@code trtrace stats}, writes {@code report.html} beside it.
   * {@code device} names what the launches' {@code gpu_ms} measured: {@code "CPU"} (the CPU backend's engine thread
   * CPU time) or {@code "GPU"} (CUDA events).
   */
  static LogAnalysis run(Path log, List<LoadGenerator.Outcome> outcomes, String device, PrintStream out)
      throws IOException {
    LogAnalysis a = LogAnalysis.read(List.of(log));
    Set<String> shown = a.slowestByCompute().stream().limit(3).map(LogAnalysis.Request::requestId)
        .collect(Collectors.toSet());
    print(a, log, outcomes, GpuLine.read(log, shown), device, out);
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
    print(a, log, outcomes, Map.of(), "CPU", out);
  }

  /**
   * As {@link #print(LogAnalysis, Path, List, PrintStream)}, with the GPU figures of the slowest requests
   * (roofline and NVML, {@link GpuLine}) printed under each of them when they were served on the GPU, and the
   * launches' measured time called {@code device} time.
   */
  static void print(LogAnalysis a, Path log, List<LoadGenerator.Outcome> outcomes,
      Map<String, Map<String, String>> gpu, String device, PrintStream out) {
    String file = display(log);
    out.println();
    out.println("== What the records say (" + a.records() + " records in " + file + ", trtrace stats' figures) ==");
    out.printf(Locale.ROOT, "statuses: %s; queue %.0f%% of the summed latency, the rest compute%n",
        new TreeMap<>(a.statuses()), 100 * a.queueShare());

    BatchFindings batch = batchFindings(log);
    out.println();
    LogAnalysis.KneeFit k = a.knee();
    LogAnalysis.Slow slow = a.slow();
    LogAnalysis.@Nullable KneeFit cpuKnee = batch.knee();
    List<LogAnalysis.Request> byCompute = a.slowestByCompute();
    long longOnes = byCompute.stream().filter(r -> r.inputTokens() >= LONG_INPUT).count();
    if (cpuKnee != null) { // batched records: each request's own compute, in CPU time
      slowAnswersByCpu(cpuKnee, k, batch, slow, device, out);
    } else if (k.found()) {
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
    if (cpuKnee != null) {
      List<BatchFindings.Req> top = batch.requests().stream()
          .sorted(java.util.Comparator.comparingDouble(BatchFindings.Req::computeCpuMs).reversed()
              .thenComparing(BatchFindings.Req::id)).limit(10).toList();
      out.printf(Locale.ROOT, "   %d of the %d largest compute shares had %,d+ input tokens; the %s:%n",
          top.stream().filter(q -> q.inputTokens() >= LONG_INPUT).count(), top.size(), LONG_INPUT,
          top.size() < 3 ? "largest" : "three largest");
      top.stream().limit(3).forEach(q -> out.printf(Locale.ROOT, "     %s  %,d tokens  compute %.0f ms %s"
          + "  (latency %.0f ms, queue %.0f ms)%n", q.id(), q.inputTokens(), q.computeCpuMs(), device, q.latencyMs(),
          q.queueMs()));
      if (!top.isEmpty()) {
        find(out, top.get(0).id(), file);
      }
    } else {
      if (slow.queueBound() > 0) {
        out.printf(Locale.ROOT, "   %,d %s waited in the queue longer than they computed: the burst's backlog"
            + " (4), not their input%n", slow.queueBound(), k.found() ? "of the others" : "of the slow requests");
      }
      out.printf(Locale.ROOT, "   %d of the %d slowest by compute time (latency less queue) had %,d+ input tokens;"
          + " the %s:%n", longOnes, byCompute.size(), LONG_INPUT, byCompute.size() < 3 ? "slowest" : "three slowest");
      byCompute.stream().limit(3).forEach(r -> {
        out.printf(Locale.ROOT, "     %s  %,d tokens  compute %.0f ms  (latency %.0f ms, queue %.0f ms, most time"
            + " in %s)%n", r.requestId(), r.inputTokens(), r.computeMs(), r.latencyMs(), r.queueMs(),
            r.dominantStage());
        String gl = GpuLine.summary(gpu.getOrDefault(r.requestId(), Map.of()));
        if (gl != null) {
          out.println("       " + gl);
        }
      });
      if (!byCompute.isEmpty()) {
        find(out, byCompute.get(0).requestId(), file);
      }
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
    neighboursPrefill(batch, file, device, out);

    out.println();
    LogAnalysis.Rejected r = a.rejected();
    if (r.count() == 0) {
      out.println("4. No request was rejected.");
    } else {
      out.printf(Locale.ROOT, "4. The 429s happened during the burst: %s of the %,d rejected (HTTP 429, status"
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
    out.printf(Locale.ROOT, "5. Hostile X-Request-IDs: %d %s replaced by generated IDs (the value is kept only"
        + " sanitized, in attributes.rejected_request_id)%n", hostile.size(), hostile.size() == 1 ? "was" : "were");
    hostile.stream().limit(1).forEach(h -> find(out, h.echoedId(), file));
  }

  private static BatchFindings batchFindings(Path log) {
    try {
      return BatchFindings.read(log);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("reading " + log, e);
    }
  }

  /**
   * Field case 1 from the batched records: each request's compute share in CPU time (what another process
   * on the machine does not inflate) against its input length; stats' wall-clock knee beside it.
   */
  private static void slowAnswersByCpu(LogAnalysis.KneeFit c, LogAnalysis.KneeFit wall, BatchFindings batch,
      LogAnalysis.Slow slow, String device, PrintStream out) {
    if (c.found()) {
      out.printf(Locale.ROOT, "1. Slow answers are the long inputs: compute per token rises past a knee at %,.0f"
          + " input tokens.%n", c.tokens());
      out.printf(Locale.ROOT, "   %.3f ms/token below it, %.3f ms/token above (%.1fx); two-segment fit R² %.3f"
          + " against one line's %.3f, over %d input-length points%n", c.slopeBefore(), c.slopeAfter(),
          c.slopeAfter() / Math.max(1e-9, c.slopeBefore()), c.r2TwoSegments(), c.r2OneLine(), c.buckets());
      out.println("   compute = each request's share of its engine steps' " + device + " time (gpu_ms, gpu_ms_method"
          + " weighted): another process on the machine stretches wall time, not this");
      List<BatchFindings.Req> slowOnes = batch.requests().stream()
          .filter(q -> q.latencyMs() >= slow.thresholdMs()).toList();
      long above = slowOnes.stream().filter(q -> q.inputTokens() > c.tokens()).count();
      long queueBound = slowOnes.stream().filter(q -> q.queueMs() > q.latencyMs() - q.queueMs()).count();
      out.printf(Locale.ROOT, "   %,d of the %,d slow requests (latency >= p90 = %.0f ms) had more input tokens"
          + " than the knee; %,d waited in the queue longer than they computed (a backlog: the burst, 4)%n", above,
          slowOnes.size(), slow.thresholdMs(), queueBound);
    } else {
      out.println("1. No clear knee in compute per token (" + device + " time) against input length: " + c.summary());
    }
    out.println("   trtrace stats' wall-clock fit (latency less queue, below): " + (wall.found()
        ? String.format(Locale.ROOT, "knee at %,.0f tokens", wall.tokens())
        : wall.summary() + " (wall time carries the batch neighbours' work and the machine's other load)"));
  }

  /** Field case 3: long prompts arriving while others decode inflate the others' TPOT. */
  private static void neighboursPrefill(BatchFindings b, String file, String device, PrintStream out) {
    List<BatchFindings.Victim> victims = b.victims();
    if (b.requests().isEmpty()) {
      out.println("3. No batched records (no gpu_ms_method): nothing to say about batch neighbours.");
      return;
    }
    if (victims.isEmpty()) {
      out.printf(Locale.ROOT, "3. No request's decode was slowed by a neighbour's prefill (none whose TPOT in the"
          + " engine's %s time was %sx what its decode-only steps cost, its steps beside a prefill %sx)%n",
          device, times(BatchFindings.VICTIM_TPOT), times(BatchFindings.VICTIM_STEP));
      return;
    }
    out.printf(Locale.ROOT, "3. Long prompts arriving while others decode inflate their TPOT: %,d %s a TPOT %sx or"
        + " more what %s decode-only steps cost, because other requests' prefill shared %s steps%n", victims.size(),
        victims.size() == 1 ? "request had" : "requests had", times(BatchFindings.VICTIM_TPOT),
        victims.size() == 1 ? "its" : "their", victims.size() == 1 ? "its" : "their");
    out.printf(Locale.ROOT, "   a decode step that also ran another request's prefill cost a median %.1fx the %s time"
        + " of one without (over %,d requests that had both); judged in the engine's %s time (the launch log's"
        + " gpu_ms), which the machine's other load does not stretch; wall-clock TPOT beside it (median %.1f ms)%n",
        b.stepRatio(), device, b.stepRatioRequests(), device, b.medianTpotMs());
    victims.stream().limit(3).forEach(v -> out.printf(Locale.ROOT, "   victim %s: %,d of its %,d decode steps ran"
        + " beside a prefill, %.1f ms %s each against %.1f ms%s; TPOT %.1f ms %s (%.1fx), %.1f ms by the clock"
        + " (%.1fx the median); slowed most by %s (%,d of its prompt tokens in those steps)%n", v.req().id(),
        v.req().decodeStepsWithPrefill(), v.req().decodeSteps(), v.req().stepCpuMsWithPrefill(), device,
        b.baselineCpuMs(v.req()), v.req().stepCpuMsAlone() > 0 ? "" : " (the median request's: it had none without)",
        v.req().cpuTpotMs(), device, v.req().cpuTpotMs() / b.baselineCpuMs(v.req()), v.req().tpotMs(),
        v.req().tpotMs() / b.medianTpotMs(), v.culprit(), v.culpritTokens()));
    out.println("   culprits: " + String.join(", ", b.culprits().stream().limit(3)
        .map(c -> String.format(Locale.ROOT, "%s (%,d-token prompt) slowed %,d of them", c.id(), c.inputTokens(),
            c.victims())).toList()));
    find(out, victims.get(0).req().id(), file);
    find(out, b.culprits().get(0).id(), file);
  }

  /** A threshold as the findings say it: {@code 2} for 2.0, {@code 1.5} for 1.5. */
  static String times(double x) {
    return x == Math.rint(x) ? String.format(Locale.ROOT, "%.0f", x) : String.format(Locale.ROOT, "%.1f", x);
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
