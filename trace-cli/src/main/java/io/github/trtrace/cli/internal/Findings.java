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

  final Knee.Result knee;
  final double slowThresholdMs;
  final long slowCount;
  final long slowAboveKnee;
  final double medianBelowKnee;
  final double medianAboveKnee;
  final @Nullable String garbledFlag;
  final long garbledWithFlag;
  final long flagRecords;
  final long flagRecordsGarbled;
  final List<String> sentences = new ArrayList<>();

  Findings(Stats s, int kneeMinCount) {
    knee = s.knee(kneeMinCount);
    slowThresholdMs = s.success.percentile(SLOW_PERCENTILE);
    slowCount = s.success.count() == 0 ? 0 : s.success.countAtOrAbove(slowThresholdMs);
    long above = 0;
    double below = Double.NaN;
    double aboveMedian = Double.NaN;
    if (knee.found()) {
      for (Stats.Bucket b : s.buckets) {
        if (b.count > 0 && b.meanTokens() > knee.knee()) {
          above += b.latency.countAtOrAbove(slowThresholdMs);
        }
      }
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
              + " above (two-segment fit R² %.3f, one line %.3f).",
          pct(slowAboveKnee, slowCount), SLOW_PERCENTILE, Fmt.ms(slowThresholdMs), slowCount, knee.knee(),
          Fmt.ms(medianBelowKnee), Fmt.ms(medianAboveKnee), knee.slopeBefore(), knee.slopeAfter(), knee.r2Two(),
          knee.r2One()));
    } else {
      sentences.add("Latency against input length: " + knee.reason() + ".");
    }
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
    Long rejected = s.statusCounts.get(Stats.REJECTED);
    if (rejected == null || s.firstRejectedMicros == Long.MAX_VALUE) {
      return;
    }
    sentences.add(String.format(Locale.ROOT, "%,d %s rejected, between %s and %s (run %s to %s).",
        rejected, rejected == 1 ? "request was" : "requests were", time(s.firstRejectedMicros), time(s.lastRejectedMicros), time(s.firstMicros), time(s.lastMicros)));
  }

  static String time(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L).toString();
  }

  private static String pct(long part, long whole) {
    return whole == 0 ? "n/a" : Fmt.pct((double) part / whole);
  }
}
