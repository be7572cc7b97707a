package io.github.trtrace.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.trtrace.core.RecordConvention;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Why one request was slow, from its record and its launches ({@link LaunchJoin}): how far its TPOT, TTFT
 * and latency are above the medians, how many of its decode steps carried other requests' prefill and
 * whose, its wait for a batch slot, its preemptions and their reasons, its failed launches, and whether
 * its launches' shares add up. Every number is computed from the logs; {@link #sentence} says it in one
 * sentence, or that there is nothing to explain.
 */
final class Explanation {
  /** A metric at or above this multiple of its median counts as slow. */
  static final double SLOW_RATIO = 1.5;
  /** A wait (slot, admission queue) is named as a cause from this share of the request's latency. */
  static final double MATERIAL_SHARE = 0.05;
  /** Neighbours named in the sentence. */
  static final int NAMED = 3;

  /** A request that prefilled in this request's decode steps. */
  record Neighbour(String requestId, int steps, long prefillTokens) {}

  final LaunchJoin join;
  /** Its slowest kernels, from the kernels lines of its recorded launches (none recorded: {@code recorded} 0). */
  final KernelBreakdown kernels;
  /** Its engine layers as the profiler timed them in its profiled launches (none profiled: {@code profiled} 0). */
  final ProfiledLayers profiledLayers;
  final JsonNode r;
  final long launchCount;
  final boolean slow;
  final List<String> slowMetrics = new ArrayList<>();
  int decodeSteps;
  int decodeStepsWithPrefill;
  double mixedStepMsSum;
  double decodeOnlyStepMsSum;
  final List<Neighbour> neighbours = new ArrayList<>();
  final List<LaunchLine> failed = new ArrayList<>();
  final List<LaunchLine> sharesOff = new ArrayList<>();
  final List<String> preemptReasons = new ArrayList<>();
  final String sentence;

  Explanation(LaunchJoin join) {
    this.join = join;
    this.kernels = KernelBreakdown.of(join);
    this.profiledLayers = ProfiledLayers.of(join);
    this.r = java.util.Objects.requireNonNull(join.record, "record");
    this.launchCount = (long) num(RecordConvention.LAUNCH_COUNT, 0);
    ratio("TPOT", num(RecordConvention.TPOT_MS, Double.NaN), join.tpot);
    ratio("TTFT", num(RecordConvention.TTFT_MS, Double.NaN), join.ttft);
    ratio("latency", num(RecordConvention.LATENCY_MS, Double.NaN), join.latency);
    boolean ok = Stats.SUCCESS.equals(text(RecordConvention.STATUS));
    slow = !slowMetrics.isEmpty() || !ok;
    Map<String, long[]> byNeighbour = new LinkedHashMap<>();
    for (LaunchLine l : join.launches) {
      int self = l.indexOf(join.requestId);
      if (l.failed()) {
        failed.add(l);
      }
      if (l.sharesOff()) {
        sharesOff.add(l);
      }
      if (l.memberDecode[self] == 0) {
        continue;
      }
      decodeSteps++;
      if (!l.othersPrefill(self)) {
        decodeOnlyStepMsSum += l.hostMs;
        continue;
      }
      decodeStepsWithPrefill++;
      mixedStepMsSum += l.hostMs;
      for (int i = 0; i < l.members; i++) {
        if (i != self && l.memberPrefill[i] > 0) {
          long[] n = byNeighbour.computeIfAbsent(l.memberIds[i], k -> new long[2]);
          n[0]++;
          n[1] += l.memberPrefill[i];
        }
      }
    }
    byNeighbour.forEach((id, n) -> neighbours.add(new Neighbour(id, (int) n[0], n[1])));
    neighbours.sort(Comparator.comparingInt(Neighbour::steps).reversed()
        .thenComparing(Comparator.comparingLong(Neighbour::prefillTokens).reversed()).thenComparing(Neighbour::requestId));
    JsonNode events = r.get(RecordConvention.EVENTS);
    if (events != null && events.isArray()) {
      for (JsonNode e : events) {
        if ("preempted".equals(e.path(RecordConvention.EVENT_KIND).asText()) && e.hasNonNull(RecordConvention.EVENT_MESSAGE)) {
          preemptReasons.add(Fmt.visible(e.get(RecordConvention.EVENT_MESSAGE).asText()));
        }
      }
    }
    sentence = slow ? why(ok) : notSlow();
  }

  private void ratio(String name, double v, Hist h) {
    double median = h.percentile(50);
    if (v >= 0 && median > 0 && h.count() > 1 && v / median >= SLOW_RATIO) {
      slowMetrics.add(String.format(Locale.ROOT, "%s %.1fx the median (%s against %s)", name, v / median, fine(v),
          fine(median)));
    }
  }

  private String why(boolean ok) {
    List<String> parts = new ArrayList<>();
    if (!ok) {
      parts.add("status " + text(RecordConvention.STATUS)
          + (r.hasNonNull(RecordConvention.ERROR_TYPE) ? " (" + text(RecordConvention.ERROR_TYPE) + ")" : ""));
    }
    parts.addAll(slowMetrics);
    String own = ownPrefillClause();
    if (own != null) {
      parts.add(own);
    }
    String batch = neighbourClause();
    if (batch != null) {
      parts.add(batch);
    }
    double latency = num(RecordConvention.LATENCY_MS, Double.NaN);
    double slot = num(RecordConvention.SLOT_WAIT_MS, 0);
    if (slot > 0 && slot >= MATERIAL_SHARE * latency) {
      parts.add("waited " + Fmt.ms(slot) + " for a batch slot");
    }
    double queue = num(RecordConvention.QUEUE_MS, 0);
    if (queue > 0 && queue >= MATERIAL_SHARE * latency) {
      parts.add("waited " + Fmt.ms(queue) + " in the admission queue");
    }
    long preemptions = (long) num(RecordConvention.PREEMPTIONS, 0);
    if (preemptions > 0) {
      String reasons = preemptReasons.isEmpty() ? "" : " (" + String.join("; ", new java.util.LinkedHashSet<>(preemptReasons)) + ")";
      parts.add("preempted " + times(preemptions) + reasons + ", " + Fmt.ms(num(RecordConvention.PREEMPTED_MS, 0))
          + " until it ran again");
    }
    long failedLaunches = (long) num(RecordConvention.FAILED_LAUNCHES, 0);
    if (failedLaunches > 0 || !failed.isEmpty()) {
      List<String> f = new ArrayList<>();
      for (LaunchLine l : failed) {
        f.add(l.id + (l.errorType == null ? "" : ": " + Fmt.visible(l.errorType)));
      }
      parts.add("shared " + Math.max(failedLaunches, failed.size()) + " failed launch" + (Math.max(failedLaunches, failed.size()) == 1 ? "" : "es")
          + (f.isEmpty() ? " (last " + (long) num(RecordConvention.FAILED_LAUNCH_ID, -1) + ")" : " (" + String.join(", ", f) + ")"));
    }
    if (parts.size() == slowMetrics.size() + (ok ? 0 : 1)) {
      parts.add("nothing in its record or launches accounts for it (no neighbour prefill, slot wait, queueing or"
          + " preemption)");
    }
    return join.requestId + " was slow: " + String.join("; ", parts) + ".";
  }

  /** Its own prompt, when its TTFT is slow and it prefilled over several launches: "its own 2,048-token prompt ...". */
  private @org.jspecify.annotations.Nullable String ownPrefillClause() {
    if (slowMetrics.stream().noneMatch(m -> m.startsWith("TTFT"))) {
      return null;
    }
    int launches = 0;
    long tokens = 0;
    double ms = 0;
    for (LaunchLine l : join.launches) {
      long p = l.memberPrefill[l.indexOf(join.requestId)];
      if (p > 0) {
        launches++;
        tokens += p;
        ms += l.hostMs;
      }
    }
    return launches < 2 ? null : String.format(Locale.ROOT, "its own %s-token prompt was prefilled over %d launches"
        + " (%s of steps)", Fmt.count(tokens), launches, Fmt.ms(ms));
  }

  /** "38 of its 64 decode steps shared the batch with other requests' prefill: ..." or null. */
  private @org.jspecify.annotations.Nullable String neighbourClause() {
    if (!join.launches.isEmpty()) {
      if (decodeStepsWithPrefill == 0) {
        return null;
      }
      List<String> named = new ArrayList<>();
      for (int i = 0; i < Math.min(NAMED, neighbours.size()); i++) {
        Neighbour n = neighbours.get(i);
        named.add(String.format(Locale.ROOT, "%s (%s prefill tokens in %d of those steps)", Fmt.visible(n.requestId()),
            Fmt.count(n.prefillTokens()), n.steps()));
      }
      if (neighbours.size() > NAMED) {
        named.add((neighbours.size() - NAMED) + " more");
      }
      String s = String.format(Locale.ROOT, "%d of its %d decode steps shared the batch with another request's prefill: %s",
          decodeStepsWithPrefill, decodeSteps, String.join(", ", named));
      if (decodeStepsWithPrefill < decodeSteps) {
        s += String.format(Locale.ROOT, "; those steps took %s on average, its decode-only steps %s",
            Fmt.ms(mixedStepMsSum / decodeStepsWithPrefill), Fmt.ms(decodeOnlyStepMsSum / (decodeSteps - decodeStepsWithPrefill)));
      } else {
        s += String.format(Locale.ROOT, "; those steps took %s on average", Fmt.ms(mixedStepMsSum / decodeStepsWithPrefill));
      }
      return s;
    }
    long withPrefill = (long) num(RecordConvention.NEIGHBOUR_PREFILL_LAUNCHES, 0);
    if (withPrefill == 0) {
      return null;
    }
    List<String> named = new ArrayList<>();
    for (JsonNode n : r.path(RecordConvention.SLOWED_BY)) {
      int launches = n.path(RecordConvention.NEIGHBOUR_LAUNCHES).asInt();
      named.add(String.format(Locale.ROOT, "%s (%s prefill tokens in %d launch%s)",
          Fmt.visible(n.path(RecordConvention.NEIGHBOUR_REQUEST_ID).asText()),
          Fmt.count(n.path(RecordConvention.NEIGHBOUR_PREFILL_TOKENS).asLong()), launches, launches == 1 ? "" : "es"));
    }
    return String.format(Locale.ROOT, "%d of its %d launches carried other requests' prefill, by its record%s", withPrefill,
        launchCount, named.isEmpty() ? "" : ": " + String.join(", ", named));
  }

  private String notSlow() {
    List<String> ratios = new ArrayList<>();
    ratioText(ratios, "TPOT", num(RecordConvention.TPOT_MS, Double.NaN), join.tpot);
    ratioText(ratios, "TTFT", num(RecordConvention.TTFT_MS, Double.NaN), join.ttft);
    ratioText(ratios, "latency", num(RecordConvention.LATENCY_MS, Double.NaN), join.latency);
    if (ratios.isEmpty() || join.latency.count() < 2) {
      return join.requestId + ": nothing to compare it with (" + Fmt.count(Math.max(0, join.latency.count() - 1))
          + " other successful requests in these logs).";
    }
    return String.format(Locale.ROOT, "%s was not slow, nothing to explain: %s the medians of %s successful requests"
        + " (slow means %.1fx).", join.requestId, String.join(", ", ratios), Fmt.count(join.latency.count()), SLOW_RATIO);
  }

  private static void ratioText(List<String> out, String name, double v, Hist h) {
    double median = h.percentile(50);
    if (v >= 0 && median > 0) {
      out.add(String.format(Locale.ROOT, "%s %.2fx", name, v / median));
    }
  }

  /** Whether the launch log covered the request, in words: all, some or none of its launches found. */
  String coverage() {
    int found = join.launches.size();
    if (launchCount == 0) {
      return found == 0 ? "its record names no launches" : found + " launches list it (its record names none)";
    }
    String range = "launch IDs " + id(RecordConvention.FIRST_LAUNCH_ID) + ".." + id(RecordConvention.LAST_LAUNCH_ID);
    if (join.launchLines == 0) {
      return "no launch log among the inputs: 0 of its " + launchCount + " launches found (" + range
          + "); pass the launch log too for its steps and neighbours";
    }
    if (found >= launchCount) {
      return "all " + launchCount + " of its launches found in the launch log (" + range + ")";
    }
    long truncated = join.truncatedIn((long) num(RecordConvention.FIRST_LAUNCH_ID, -1),
        (long) num(RecordConvention.LAST_LAUNCH_ID, -1));
    return "launch log partial: " + found + " of its " + launchCount + " launches found (" + range + ")"
        + (truncated > 0 ? "; " + truncated + " launches in that range list only part of their members" : "")
        + "; the step counts below cover the found ones";
  }

  /** {@code 20.7 ms}: one decimal below 100 ms, so that a ratio can be checked against its numbers. */
  static String fine(double ms) {
    return ms < 100 ? String.format(Locale.ROOT, "%.1f ms", ms) : Fmt.ms(ms);
  }

  private static String times(long n) {
    return n == 1 ? "once" : n == 2 ? "twice" : n + " times";
  }

  double num(String field, double dflt) {
    JsonNode v = r.get(field);
    return v != null && v.isNumber() ? v.asDouble() : dflt;
  }

  /** A launch ID field as written, {@code ?} when absent. */
  String id(String field) {
    JsonNode v = r.get(field);
    return v != null && v.isIntegralNumber() ? Long.toString(v.asLong()) : "?";
  }

  String text(String field) {
    JsonNode v = r.get(field);
    return v == null || v.isNull() ? "-" : Fmt.visible(v.asText());
  }
}
