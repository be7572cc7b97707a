package io.github.trtrace.cli.internal;

import io.github.trtrace.core.SharedLaunch;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The batch-level finding of {@code stats}, in bounded memory: step times of decode-only and mixed
 * (prefill + decode) launches from the launch log, TPOT of requests whose steps carried other requests'
 * prefill against those whose never did, the neighbours named most often in the {@code slowed_by} of the
 * slowest requests by TPOT, and the conservation check of every launch (its members' shares add up to its
 * GPU time).
 */
final class BatchStats {
  /** Slow by TPOT means at or above this percentile of the TPOT of requests that joined launches. */
  static final double SLOW_PERCENTILE = 90;
  /**
   * A request counts as sharing its steps with prefill when at least this share of its launches carried other
   * requests' prefill ({@code neighbour_prefill_launches / launch_count}): below it, a request met prefill only
   * where it was itself prefilling beside others (a batch admitted together) or rarely.
   */
  static final double SHARED_SHARE = 0.1;
  /** The slowest requests by TPOT kept with their neighbours (past that, the culprits come from these). */
  static final int KEPT = 500;
  static final int LISTED_OFF = 5;
  static final int CULPRITS = 5;

  /** A slow-by-TPOT candidate and the neighbours its record names. */
  record Slow(String requestId, double tpotMs, List<SharedLaunch.Neighbour> slowedBy) {}

  /** A neighbour named by slow requests. */
  record Culprit(String requestId, int slowRequests, long launches, long maxPrefillTokens) {}

  long launches;
  final Map<String, Long> phases = new TreeMap<>();
  final Hist decodeOnlySteps = new Hist();
  final Hist mixedSteps = new Hist();
  long failedLaunches;
  long checked;
  long sharesOff;
  final List<String> offExamples = new ArrayList<>();
  final Hist tpot = new Hist();
  final Hist tpotShared = new Hist();
  final Hist tpotAlone = new Hist();
  private final PriorityQueue<Slow> slowest =
      new PriorityQueue<>(Comparator.comparingDouble(Slow::tpotMs).thenComparing(Slow::requestId, Comparator.reverseOrder()));

  /** Kernels lines read (launches whose GPU kernels CUPTI recorded) and the activities on them. */
  long kernelLines;
  long kernelActivities;
  /** Of those lines, the ones the recorder wrote before every record of their launch came ({@code "complete": false}). */
  long kernelLinesIncomplete;

  /** A kernels line: counted, not a launch. */
  void addKernels(LaunchLine l) {
    kernelLines++;
    kernelActivities += l.kernels;
    if (l.incomplete) {
      kernelLinesIncomplete++;
    }
  }

  void add(LaunchLine l) {
    launches++;
    String phase = l.phase == null ? "(unknown)" : l.phase;
    phases.merge(phases.containsKey(phase) || phases.size() < 16 ? phase : Stats.OTHER, 1L, Long::sum);
    if (l.hostMs >= 0) {
      if (LaunchLine.DECODE.equals(l.phase)) {
        decodeOnlySteps.record(l.hostMs);
      } else if (LaunchLine.MIXED.equals(l.phase)) {
        mixedSteps.record(l.hostMs);
      }
    }
    if (l.failed()) {
      failedLaunches++;
    }
    if (!Double.isNaN(l.shareSum())) {
      checked++;
      if (l.sharesOff()) {
        sharesOff++;
        if (offExamples.size() < LISTED_OFF) {
          offExamples.add(l.sharesOffText());
        }
      }
    }
  }

  void add(Rec r) {
    if (r.launchCount == 0 || !(r.tpotMs >= 0) || !Stats.SUCCESS.equals(r.status) || r.requestId == null) {
      return;
    }
    tpot.record(r.tpotMs);
    (r.neighbourPrefillLaunches >= SHARED_SHARE * r.launchCount ? tpotShared : tpotAlone).record(r.tpotMs);
    if (slowest.size() < KEPT || r.tpotMs > slowest.peek().tpotMs()) {
      slowest.add(new Slow(r.requestId, r.tpotMs, List.copyOf(r.slowedBy)));
      if (slowest.size() > KEPT) {
        slowest.poll();
      }
    }
  }

  boolean any() {
    return launches > 0 || tpot.count() > 0;
  }

  /** TPOT from which a request counts as slow. */
  double slowTpotMs() {
    return tpot.percentile(SLOW_PERCENTILE);
  }

  /** The slow-by-TPOT requests kept, slowest first. */
  List<Slow> slow() {
    double threshold = slowTpotMs();
    List<Slow> l = new ArrayList<>();
    for (Slow s : slowest) {
      if (s.tpotMs() >= threshold) {
        l.add(s);
      }
    }
    l.sort(Comparator.comparingDouble(Slow::tpotMs).reversed().thenComparing(Slow::requestId));
    return l;
  }

  /** The slowest request by TPOT that joined launches, or null. */
  @Nullable String slowestRequest() {
    List<Slow> s = slow();
    return s.isEmpty() ? null : s.get(0).requestId();
  }

  /** The neighbours named in the slow requests' {@code slowed_by}, most launches shared with them first. */
  List<Culprit> culprits() {
    Map<String, long[]> m = new HashMap<>();
    for (Slow s : slow()) {
      for (SharedLaunch.Neighbour n : s.slowedBy()) {
        long[] c = m.computeIfAbsent(n.requestId(), k -> new long[3]);
        c[0]++;
        c[1] += n.launches();
        c[2] = Math.max(c[2], n.prefillTokens());
      }
    }
    List<Culprit> l = new ArrayList<>();
    m.forEach((id, c) -> l.add(new Culprit(id, (int) c[0], c[1], c[2])));
    l.sort(Comparator.comparingLong(Culprit::launches).reversed()
        .thenComparing(Comparator.comparingInt(Culprit::slowRequests).reversed()).thenComparing(Culprit::requestId));
    return l.subList(0, Math.min(CULPRITS, l.size()));
  }

  /** The batch-level findings in sentences (none when the logs have no launches nor batching fields). */
  List<String> sentences() {
    List<String> out = new ArrayList<>();
    if (!any()) {
      return out;
    }
    if (tpot.count() > 0) {
      out.add(String.format(Locale.ROOT, "Batching: p99 TPOT %s over %s requests that joined launches; %s with at least"
              + " %.0f %% of their launches carrying other requests' prefill: p99 %s, p50 %s; the other %s: p99 %s, p50 %s.",
          Explanation.fine(tpot.percentile(99)), Fmt.count(tpot.count()), Fmt.count(tpotShared.count()), SHARED_SHARE * 100,
          Explanation.fine(tpotShared.percentile(99)), Explanation.fine(tpotShared.percentile(50)), Fmt.count(tpotAlone.count()),
          Explanation.fine(tpotAlone.percentile(99)), Explanation.fine(tpotAlone.percentile(50))));
    }
    if (mixedSteps.count() > 0 && decodeOnlySteps.count() > 0) {
      out.add(String.format(Locale.ROOT, "Steps mixing prefill into decode took p50 %s, p99 %s (%s mixed launches) against"
              + " p50 %s, p99 %s for decode-only steps (%s launches): %.1fx at p99, and every decode row in a mixed step"
              + " waits for it.", Explanation.fine(mixedSteps.percentile(50)), Explanation.fine(mixedSteps.percentile(99)),
          Fmt.count(mixedSteps.count()), Explanation.fine(decodeOnlySteps.percentile(50)),
          Explanation.fine(decodeOnlySteps.percentile(99)), Fmt.count(decodeOnlySteps.count()),
          mixedSteps.percentile(99) / decodeOnlySteps.percentile(99)));
    }
    List<Culprit> culprits = culprits();
    if (!culprits.isEmpty()) {
      List<String> named = new ArrayList<>();
      for (Culprit c : culprits) {
        named.add(String.format(Locale.ROOT, "%s (%s launch%s with %d of them, up to %s prefill tokens)",
            Fmt.visible(c.requestId()), Fmt.count(c.launches()), c.launches() == 1 ? "" : "es", c.slowRequests(),
            Fmt.count(c.maxPrefillTokens())));
      }
      out.add(String.format(Locale.ROOT, "Prefills that most often shared the steps of the %d requests at or above p%.0f"
              + " TPOT (%s; by their slowed_by): %s. Look one up with trtrace explain %s.", slow().size(), SLOW_PERCENTILE,
          Explanation.fine(slowTpotMs()), String.join(", ", named), Fmt.visible(slow().get(0).requestId())));
    }
    if (kernelLines > 0) {
      out.add(String.format(Locale.ROOT, "Kernel records (CUPTI) for %s launches, %s GPU activities%s: trtrace explain"
          + " <request> shows a request's slowest kernels.", Fmt.count(kernelLines), Fmt.count(kernelActivities),
          kernelLinesIncomplete == 0 ? "" : String.format(Locale.ROOT, " (%s of the lists incomplete: the recorder stopped"
              + " waiting for their launch's records)", Fmt.count(kernelLinesIncomplete))));
    }
    if (launches > 0) {
      out.add(sharesOff == 0
          ? String.format(Locale.ROOT, "Launch shares add up to gpu_ms in all %s launches that could be checked (of %s).",
              Fmt.count(checked), Fmt.count(launches))
          : String.format(Locale.ROOT, "WARNING: in %s of %s checked launches the members' share_ms do not add up to gpu_ms,"
              + " e.g. %s.", Fmt.count(sharesOff), Fmt.count(checked), offExamples.get(0)));
    }
    return out;
  }
}
