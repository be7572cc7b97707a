package io.github.trtrace.cli.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

/**
 * The {@code stats --json} output: one JSON object for machines. Durations in ms; unknown numbers
 * are null. Field names are stable: {@code read}, {@code latency}, {@code by_model},
 * {@code stages}, {@code input_tokens} (buckets and {@code knee}), {@code slowest},
 * {@code statuses}, {@code error_types}, {@code flags}, {@code findings}.
 */
final class StatsJson {
  private StatsJson() {}

  static void write(OutputStream os, LineReader.Summary read, Stats s, Findings f, int kneeMinCount, BatchStats batch)
      throws IOException {
    try (JsonGenerator g = new JsonFactory().configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false).createGenerator(os)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeObjectFieldStart("read");
      g.writeNumberField("files", read.files);
      g.writeNumberField("lines", read.lines);
      g.writeNumberField("records", read.records);
      g.writeNumberField("launch_lines", read.launches);
      g.writeNumberField("malformed", read.malformed);
      g.writeNumberField("torn", read.torn);
      g.writeNumberField("truncated_gzip_files", read.truncated);
      g.writeNumberField("blank", read.blank);
      g.writeArrayFieldStart("examples");
      for (String e : read.examples) {
        g.writeString(e);
      }
      g.writeEndArray();
      g.writeEndObject();

      g.writeFieldName("latency");
      hist(g, s.all);
      g.writeArrayFieldStart("by_model");
      for (Map.Entry<String, Map<String, Stats.Group>> m : s.groups.entrySet()) {
        for (Map.Entry<String, Stats.Group> e : m.getValue().entrySet()) {
          g.writeStartObject();
          g.writeStringField("model", m.getKey());
          g.writeStringField("status", e.getKey());
          g.writeFieldName("latency");
          hist(g, e.getValue().latency);
          g.writeEndObject();
        }
      }
      g.writeEndArray();

      g.writeObjectFieldStart("stages");
      g.writeNumberField("records", s.withStages);
      double compute = 0;
      for (int i = 0; i < Stages.COUNT; i++) {
        g.writeObjectFieldStart(Stages.NAMES[i]);
        g.writeNumberField("records", s.stageSeen[i]);
        num(g, "share", s.stageSeen[i] == 0 ? Double.NaN : s.share(i));
        num(g, "mean_ms", s.stageSeen[i] == 0 ? Double.NaN : s.stageSum[i] / s.stageSeen[i]);
        g.writeNumberField("dominant_in", s.dominant[i]);
        g.writeEndObject();
        if (i > 0 && s.stageSeen[i] > 0) {
          compute += s.share(i);
        }
      }
      num(g, "queue_share", s.stageSeen[0] == 0 ? Double.NaN : s.share(0));
      num(g, "compute_share", s.withStages == 0 ? Double.NaN : compute);
      num(g, "gpu_share", s.gpuSeen == 0 ? Double.NaN : s.gpuSum / s.latencySumWithStages);
      g.writeEndObject();

      g.writeObjectFieldStart("input_tokens");
      g.writeNumberField("records", s.withTokens);
      g.writeNumberField("knee_min_count", kneeMinCount);
      g.writeArrayFieldStart("buckets");
      for (Stats.Bucket b : s.usedBuckets(1)) {
        g.writeStartObject();
        g.writeNumberField("from", b.lo);
        if (b.hi != Long.MAX_VALUE) {
          g.writeNumberField("to", b.hi - 1);
        }
        g.writeNumberField("count", b.count);
        num(g, "mean_tokens", b.meanTokens());
        num(g, "p50_ms", b.latency.percentile(50));
        num(g, "p90_ms", b.latency.percentile(90));
        num(g, "max_ms", b.latency.max());
        num(g, "mean_queue_ms", b.stageSum[0] / b.count);
        g.writeEndObject();
      }
      g.writeEndArray();
      Knee.Result k = f.knee;
      g.writeObjectFieldStart("knee");
      g.writeBooleanField("found", k.found());
      g.writeStringField("summary", k.reason());
      g.writeNumberField("points", k.points());
      num(g, "tokens", k.knee());
      num(g, "slope_before_ms_per_token", k.slopeBefore());
      num(g, "slope_after_ms_per_token", k.slopeAfter());
      num(g, "r2_two_segments", k.r2Two());
      num(g, "r2_one_line", k.r2One());
      num(g, "line_slope_ms_per_token", k.lineSlope());
      g.writeEndObject();
      g.writeEndObject();

      g.writeArrayFieldStart("slowest");
      for (Stats.Slow x : s.slowest()) {
        g.writeStartObject();
        g.writeStringField("request_id", x.requestId());
        g.writeStringField("model", x.model());
        g.writeStringField("status", x.status());
        num(g, "latency_ms", x.latencyMs());
        if (x.inputTokens() >= 0) {
          g.writeNumberField("input_tokens", x.inputTokens());
        }
        if (x.outputTokens() >= 0) {
          g.writeNumberField("output_tokens", x.outputTokens());
        }
        g.writeStringField("dominant_stage", x.dominantStage());
        num(g, "dominant_ms", x.dominantMs());
        g.writeStringField("input_flags", x.inputFlags());
        g.writeStringField("output_flags", x.outputFlags());
        if (x.errorType() != null) {
          g.writeStringField("error_type", x.errorType());
        }
        g.writeEndObject();
      }
      g.writeEndArray();

      counts(g, "statuses", s.statusCounts);
      counts(g, "error_types", s.errorTypes);
      g.writeArrayFieldStart("flags");
      for (Map.Entry<String, Long> e : s.flagTable.entrySet()) {
        String[] key = e.getKey().split("\t", -1);
        g.writeStartObject();
        g.writeStringField("input_flags", key[0]);
        g.writeStringField("output_flags", key[1]);
        g.writeStringField("status", key[2]);
        g.writeNumberField("count", e.getValue());
        g.writeEndObject();
      }
      g.writeEndArray();

      g.writeObjectFieldStart("findings");
      num(g, "slow_threshold_ms", f.slowThresholdMs);
      g.writeNumberField("slow_count", f.slowCount);
      g.writeNumberField("slow_above_knee", f.slowAboveKnee);
      g.writeNumberField("slow_queue_bound", f.slowQueueBound);
      num(g, "median_below_knee_ms", f.medianBelowKnee);
      num(g, "median_above_knee_ms", f.medianAboveKnee);
      g.writeNumberField("output_flagged", s.outputFlagged);
      g.writeStringField("garbled_input_flag", f.garbledFlag);
      g.writeNumberField("garbled_with_input_flag", f.garbledWithFlag);
      g.writeNumberField("input_flag_records", f.flagRecords);
      g.writeNumberField("input_flag_records_garbled", f.flagRecordsGarbled);
      g.writeStringField("garbled_example", f.garbledExample);
      g.writeNumberField("rejected", f.rejected);
      g.writeNumberField("rejected_near_arrival_peak", f.rejectedNearPeak);
      g.writeNumberField("arrival_peak", f.peakArrivals);
      num(g, "arrival_median", f.medianArrivals);
      num(g, "arrival_bin_s", s.time.width() / 1e6);
      g.writeStringField("rejected_example", s.firstRejectedId);
      g.writeArrayFieldStart("sentences");
      for (String x : f.sentences) {
        g.writeString(x);
      }
      g.writeEndArray();
      g.writeEndObject();
      batching(g, batch);
      g.writeEndObject();
    }
    os.write('\n');
    os.flush();
  }

  private static void batching(JsonGenerator g, BatchStats b) throws IOException {
    g.writeObjectFieldStart("batching");
    g.writeNumberField("launches", b.launches);
    counts(g, "phases", b.phases);
    g.writeFieldName("decode_only_step");
    hist(g, b.decodeOnlySteps);
    g.writeFieldName("mixed_step");
    hist(g, b.mixedSteps);
    g.writeNumberField("failed_launches", b.failedLaunches);
    g.writeNumberField("shares_checked", b.checked);
    g.writeNumberField("shares_off", b.sharesOff);
    g.writeArrayFieldStart("shares_off_examples");
    for (String e : b.offExamples) {
      g.writeString(e);
    }
    g.writeEndArray();
    g.writeFieldName("tpot");
    hist(g, b.tpot);
    g.writeFieldName("tpot_with_neighbour_prefill");
    hist(g, b.tpotShared);
    g.writeFieldName("tpot_without_neighbour_prefill");
    hist(g, b.tpotAlone);
    num(g, "slow_tpot_ms", b.slowTpotMs());
    g.writeArrayFieldStart("culprits");
    for (BatchStats.Culprit c : b.culprits()) {
      g.writeStartObject();
      g.writeStringField("request_id", c.requestId());
      g.writeNumberField("slow_requests", c.slowRequests());
      g.writeNumberField("launches", c.launches());
      g.writeNumberField("max_prefill_tokens", c.maxPrefillTokens());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeStringField("slowest_request", b.slowestRequest());
    g.writeArrayFieldStart("sentences");
    for (String x : b.sentences()) {
      g.writeString(x);
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void hist(JsonGenerator g, Hist h) throws IOException {
    g.writeStartObject();
    g.writeNumberField("count", h.count());
    num(g, "mean_ms", h.mean());
    num(g, "p50_ms", h.percentile(50));
    num(g, "p90_ms", h.percentile(90));
    num(g, "p99_ms", h.percentile(99));
    num(g, "max_ms", h.max());
    g.writeEndObject();
  }

  private static void counts(JsonGenerator g, String name, Map<String, Long> m) throws IOException {
    g.writeObjectFieldStart(name);
    for (Map.Entry<String, Long> e : m.entrySet()) {
      g.writeNumberField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
  }

  private static void num(JsonGenerator g, String name, double v) throws IOException {
    if (Double.isFinite(v)) {
      g.writeNumberField(name, Math.round(v * 1e6) / 1e6);
    } else {
      g.writeNullField(name);
    }
  }
}
