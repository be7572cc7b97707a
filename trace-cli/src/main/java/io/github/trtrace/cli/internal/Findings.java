package io.github.trtrace.cli.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What an operator concludes from the statistics, in sentences: whether slow requests are the long
 * inputs above the knee, which input flag the flagged (garbled) outputs follow, where time went, when
 * requests were rejected. Computed once from a finished {@link Stats}.
 */
final class Findings {
  /** Slow means at or above this percentile of successful latency. */
  static final double SLOW_PERCENTILE = 90;
  /**
   * Successful requests each point of the knee fit holds at least (the {@code --knee-min-count} default):
   * a 64-token bucket of {@link TokenBuckets} with fewer is merged with its neighbours ({@link Stats#knee}).
   *
   * <p>Why 64-token buckets and not wider bins: the bucket width bounds where the knee can be placed.
   * Fixed 256-token bins move it by up to a bin and leave a log of a few hundred requests (the demo's) eight
   * or nine points for two segments of at least {@link Knee#MIN_SIDE} each; on one demo log the demo's former
   * 256-token fit put the knee at 1,410 tokens, this fit at 1,157. Why merge rather than drop sparse
   * buckets (the former rule): dropping throws the data away exactly where inputs are sparse, the long
   * ones; the examples' end-to-end load (84 successful requests over 8..2,400 tokens) has about two per
   * bucket. Three requests make a point's median robust to one outlier (a request that lost its core to
   * another process).
   */
  static final int KNEE_MIN_COUNT = 3;

  /** The {@code --knee-min-count} a user typed, checked: a point of the fit holds one request at least. */
  static int kneeMinCount(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("--knee-min-count must be >= 1: " + n);
    }
    return n;
  }

  final Knee.Result knee;
  final double slowThresholdMs;
  final long slowCount;
  final long slowAboveKnee;
  /** Slow requests at or below the knee (all slow ones without a knee) that waited longer than they computed. */
  final long slowQueueBound;
  final double medianBelowKnee;
  final double medianAboveKnee;
  final @Nullable String garbledFlag;
  final long garbledWithFlag;
  final long flagRecords;
  final long flagRecordsGarbled;
  /** A request with {@link #garbledFlag} in its input and a flagged output. */
  final @Nullable String garbledExample;
  final long rejected;
  /** Time bin with the most arrivals: index, arrivals in it, median arrivals per bin over the run. */
  final int peakBin;
  final long peakArrivals;
  final double medianArrivals;
  /** Rejected requests in the peak bin or a bin either side of it. */
  final long rejectedNearPeak;
  final List<String> sentences = new ArrayList<>();

  Findings(Stats s, int kneeMinCount) {
    knee = s.knee(kneeMinCount);
    slowThresholdMs = s.success.percentile(SLOW_PERCENTILE);
    slowCount = s.success.count() == 0 ? 0 : s.success.countAtOrAbove(slowThresholdMs);
    long above = 0;
    long queueBound = 0;
    double below = Double.NaN;
    double aboveMedian = Double.NaN;
    for (Stats.Bucket b : s.buckets) {
      if (b.count > 0 && knee.found() && b.meanTokens() > knee.knee()) {
        above += b.latency.countAtOrAbove(slowThresholdMs);
      } else if (b.count > 0 && slowCount > 0) {
        queueBound += b.queueBound.countAtOrAbove(slowThresholdMs);
      }
    }
    slowQueueBound = queueBound;
    if (knee.found()) {
      Hist[] split = s.splitAt(knee.knee());
      below = split[0].percentile(50);
      aboveMedian = split[1].percentile(50);
    }
    slowAboveKnee = above;
    medianBelowKnee = below;
    medianAboveKnee = aboveMedian;

    String best = null;
    long bestCount = 0;
    for (Map.Entry<String, Stats.FlagCount> e : s.inputFlags.entrySet()) {
      if (e.getValue().withOutputFlags > bestCount) {
        best = e.getKey();
        bestCount = e.getValue().withOutputFlags;
      }
    }
    garbledFlag = best;
    garbledWithFlag = bestCount;
    Stats.FlagCount fc = best == null ? null : s.inputFlags.get(best);
    flagRecords = fc == null ? 0 : fc.records;
    flagRecordsGarbled = fc == null ? 0 : fc.withOutputFlags;
    garbledExample = fc == null ? null : fc.flaggedExample;

    Long r = s.statusCounts.get(Stats.REJECTED);
    rejected = r == null ? 0 : r;
    int[] used = s.time.used();
    int peak = used[0];
    long[] arrivals = new long[Math.max(0, used[1] - used[0])];
    for (int j = used[0]; j < used[1]; j++) {
      arrivals[j - used[0]] = (long) s.time.get(j, TimeBins.ARRIVALS);
      if (arrivals[j - used[0]] > s.time.get(peak, TimeBins.ARRIVALS)) {
        peak = j;
      }
    }
    peakBin = peak;
    peakArrivals = arrivals.length == 0 ? 0 : (long) s.time.get(peak, TimeBins.ARRIVALS);
    java.util.Arrays.sort(arrivals);
    medianArrivals = arrivals.length == 0 ? 0 : arrivals[arrivals.length / 2];
    long near = 0;
    for (int j = Math.max(used[0], peak - 1); j < Math.min(used[1], peak + 2); j++) {
      near += (long) s.time.get(j, TimeBins.REJECTED);
    }
    rejectedNearPeak = near;

    slowSentence(s);
    garbledSentence(s);
    timeSentence(s);
    rejectedSentence(s);
  }

  private void slowSentence(Stats s) {
    if (knee.found()) {
      sentences.add(String.format(Locale.ROOT,
          "Slow = long inputs: %s of the slow requests (latency >= p%.0f = %s, %,d requests) had more than %,.0f input"
              + " tokens, the knee. Median latency %s at or below the knee, %s above; %.3g ms/token below, %.3g ms/token"
              + " above (two-segment fit R² %.3f, one line %.3f).%s",
          pct(slowAboveKnee, slowCount), SLOW_PERCENTILE, Fmt.ms(slowThresholdMs), slowCount, knee.knee(),
          Fmt.ms(medianBelowKnee), Fmt.ms(medianAboveKnee), knee.slopeBefore(), knee.slopeAfter(), knee.r2Two(),
          knee.r2One(), queueBoundClause()));
    } else {
      sentences.add("Latency against input length: " + knee.reason() + "." + queueBoundClause());
    }
  }

  /** The slow requests (at or below the knee) that the queue explains, not their input. */
  private String queueBoundClause() {
    return slowQueueBound == 0 ? "" : String.format(Locale.ROOT,
        " %s of the slow requests (%,d)%s waited longer in the queue than they computed: a backlog ahead of them,"
            + " not their input.", pct(slowQueueBound, slowCount), slowQueueBound, knee.found() ? ", at or below the knee," : "");
  }

  private void garbledSentence(Stats s) {
    if (s.outputFlagged == 0) {
      sentences.add("No output was flagged (no output_flags in these records).");
      return;
    }
    if (garbledFlag == null) {
      sentences.add(String.format(Locale.ROOT,
          "%,d outputs were flagged; none of their inputs carried an input flag.", s.outputFlagged));
      return;
    }
    long others = s.records - flagRecords;
    long othersGarbled = s.outputFlagged - flagRecordsGarbled;
    sentences.add(String.format(Locale.ROOT,
        "Garbled = %s inputs: %,d of %,d flagged outputs (%s) had input flag %s; %s of %s inputs gave flagged"
            + " outputs, against %s of the other inputs.",
        garbledFlag, garbledWithFlag, s.outputFlagged, pct(garbledWithFlag, s.outputFlagged), garbledFlag,
        pct(flagRecordsGarbled, flagRecords), garbledFlag, pct(othersGarbled, others)));
  }

  private void timeSentence(Stats s) {
    if (s.withStages == 0) {
      return;
    }
    StringBuilder sb = new StringBuilder("Where time went (share of summed latency): ");
    double accounted = 0;
    for (int i = 0; i < Stages.COUNT; i++) {
      if (s.stageSeen[i] > 0) {
        sb.append(Stages.NAMES[i]).append(' ').append(Fmt.pct(s.share(i))).append(", ");
        accounted += s.share(i);
      }
    }
    sb.append("unaccounted ").append(Fmt.pct(Math.max(0, 1 - accounted))).append('.');
    sentences.add(sb.toString());
  }

  private void rejectedSentence(Stats s) {
    if (rejected == 0 || s.firstRejectedMicros == Long.MAX_VALUE) {
      return;
    }
    sentences.add(String.format(Locale.ROOT, "%,d %s rejected, %s of them during the arrival peak (%,d arrivals"
            + " in the %s from +%s, against a median of %,.0f per %s; rejections counted from one %s before it to"
            + " one after), between %s and %s (run %s to %s).",
        rejected, rejected == 1 ? "request was" : "requests were",
        rejectedNearPeak == rejected ? "all" : Fmt.count(rejectedNearPeak), peakArrivals, bin(s),
        Fmt.ms(Math.max(0, s.time.start(peakBin) - s.firstMicros) / 1000.0), medianArrivals, bin(s), bin(s),
        time(s.firstRejectedMicros), time(s.lastRejectedMicros), time(s.firstMicros), time(s.lastMicros)));
  }

  /** The arrival-time bin width in words ({@code 1.00 s}). */
  static String bin(Stats s) {
    return Fmt.ms(s.time.width() / 1000.0);
  }

  static String time(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L).toString();
  }

  private static String pct(long part, long whole) {
    return whole == 0 ? "n/a" : Fmt.pct((double) part / whole);
  }
}
