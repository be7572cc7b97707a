package io.github.trtrace.examples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.cli.internal.LogAnalysis;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the records' {@code batch.*} attributes ({@link BatchRecorder}) say, beside {@code trtrace stats}:
 * the knee of each request's compute share (CPU time of the engine threads, which another process on the
 * machine does not inflate as it does wall time) against its input length, and the third field case —
 * requests whose decode steps also ran another request's prefill, their TPOT, and who those neighbours were.
 * Everything here is read from the record file; nothing comes from the load plan.
 *
 * <pre>{@code
 * BatchFindings f = BatchFindings.read(Path.of("logs/inference.log"));
 * if (f.knee() != null && f.knee().found()) { ... }
 * }</pre>
 */
final class BatchFindings {
  /** Input-length bucket width, as {@code trtrace stats}. */
  static final int BUCKET = 64;
  /** Requests per knee point at least (as {@code stats}: adjacent buckets merged). */
  static final int MIN_COUNT = 3;
  /** A victim's TPOT is at least this many times the median. */
  static final double VICTIM_TPOT = 2;
  /** And its decode steps beside a prefill took at least this many times as long as its steps without one. */
  static final double VICTIM_STEP = 2;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One successful request's figures. */
  record Req(String id, long inputTokens, double latencyMs, double queueMs, double computeCpuMs, double tpotMs,
      long decodeSteps, long decodeStepsWithPrefill, double stepMsWithPrefill, double stepMsAlone,
      List<Map.Entry<String, Long>> slowedBy) {}

  /** A request whose decode a neighbour's prefill slowed. */
  record Victim(Req req, String culprit, long culpritTokens) {}

  /** A neighbour named by victims, most victims first. */
  record Culprit(String id, long inputTokens, int victims) {}

  private final List<Req> requests;
  private final LogAnalysis.@Nullable KneeFit knee;
  private final double medianTpot;
  private final double stepRatio;
  private final int stepRatioRequests;
  private final List<Victim> victims;
  private final List<Culprit> culprits;

  private BatchFindings(List<Req> requests, Map<String, Long> inputTokens) {
    this.requests = requests;
    this.knee = fitKnee(requests);
    double[] tpots = requests.stream().filter(r -> r.decodeSteps() >= 4 && r.tpotMs() > 0)
        .mapToDouble(Req::tpotMs).sorted().toArray();
    this.medianTpot = tpots.length == 0 ? Double.NaN : tpots[tpots.length / 2];
    double[] ratios = requests.stream().filter(r -> r.stepMsWithPrefill() > 0 && r.stepMsAlone() > 0)
        .mapToDouble(r -> r.stepMsWithPrefill() / r.stepMsAlone()).sorted().toArray();
    this.stepRatio = ratios.length == 0 ? Double.NaN : ratios[ratios.length / 2];
    this.stepRatioRequests = ratios.length;
    List<Victim> v = new ArrayList<>();
    for (Req r : requests) {
      if (r.decodeSteps() >= 4 && r.tpotMs() >= VICTIM_TPOT * medianTpot && !r.slowedBy().isEmpty()
          && r.stepMsWithPrefill() >= VICTIM_STEP * r.stepMsAlone()) {
        Map.Entry<String, Long> top = r.slowedBy().get(0);
        v.add(new Victim(r, top.getKey(), top.getValue()));
      }
    }
    v.sort(Comparator.comparingDouble((Victim x) -> x.req().tpotMs()).reversed());
    this.victims = List.copyOf(v);
    Map<String, Integer> named = new LinkedHashMap<>();
    for (Victim x : victims) {
      named.merge(x.culprit(), 1, Integer::sum);
    }
    this.culprits = named.entrySet().stream()
        .map(e -> new Culprit(e.getKey(), inputTokens.getOrDefault(e.getKey(), -1L), e.getValue()))
        .sorted(Comparator.comparingInt(Culprit::victims).reversed().thenComparing(Culprit::id)).toList();
  }

  /** Reads the successful records of {@code log}. */
  static BatchFindings read(Path log) throws IOException {
    List<Req> out = new ArrayList<>();
    Map<String, Long> tokens = new HashMap<>();
    try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        JsonNode n;
        try {
          n = JSON.readTree(line);
        } catch (IOException e) {
          continue; // not a record: trtrace stats counts those
        }
        String id = n.path("request_id").asText();
        tokens.put(id, n.path("input_tokens").asLong(-1));
        JsonNode a = n.path("attributes");
        if (!"success".equals(n.path("status").asText()) || !a.has("batch.compute_ms")) {
          continue;
        }
        out.add(new Req(id, n.path("input_tokens").asLong(-1), n.path("latency_ms").asDouble(),
            n.path("queue_ms").asDouble(0), a.path("batch.compute_ms").asDouble(), n.path("tpot_ms").asDouble(-1),
            a.path("batch.decode_steps").asLong(), a.path("batch.decode_steps_with_prefill").asLong(),
            a.path("batch.decode_step_ms_with_prefill").asDouble(-1), a.path("batch.decode_step_ms_alone").asDouble(-1),
            slowedBy(a.path("batch.slowed_by").asText(""))));
      }
    }
    return new BatchFindings(out, tokens);
  }

  private static List<Map.Entry<String, Long>> slowedBy(String value) {
    List<Map.Entry<String, Long>> out = new ArrayList<>();
    for (String part : value.trim().split(" ")) {
      int colon = part.lastIndexOf(':');
      if (colon > 0) {
        try {
          out.add(Map.entry(part.substring(0, colon), Long.parseLong(part.substring(colon + 1))));
        } catch (NumberFormatException e) {
          // not ours: skipped
        }
      }
    }
    return out;
  }

  private static LogAnalysis.@Nullable KneeFit fitKnee(List<Req> requests) {
    List<Req> sorted = requests.stream().filter(r -> r.inputTokens() > 0)
        .sorted(Comparator.comparingLong(Req::inputTokens)).toList();
    if (sorted.size() < 4 * MIN_COUNT) {
      return null;
    }
    List<List<Req>> points = new ArrayList<>(); // a bucket, or adjacent ones up to MIN_COUNT requests
    List<Req> run = new ArrayList<>();
    for (int i = 0; i < sorted.size(); i++) {
      run.add(sorted.get(i));
      boolean bucketEnds = i + 1 == sorted.size()
          || sorted.get(i + 1).inputTokens() / BUCKET != sorted.get(i).inputTokens() / BUCKET;
      if (bucketEnds && run.size() >= MIN_COUNT) {
        points.add(run);
        run = new ArrayList<>();
      }
    }
    if (!run.isEmpty() && !points.isEmpty()) { // a short last run joins the one before it
      points.get(points.size() - 1).addAll(run);
    }
    double[] xs = new double[points.size()];
    double[] ys = new double[points.size()];
    for (int p = 0; p < xs.length; p++) {
      List<Req> pt = points.get(p);
      xs[p] = pt.stream().mapToLong(Req::inputTokens).average().orElseThrow();
      double[] ms = pt.stream().mapToDouble(Req::computeCpuMs).sorted().toArray();
      ys[p] = ms.length % 2 == 1 ? ms[ms.length / 2] : (ms[ms.length / 2 - 1] + ms[ms.length / 2]) / 2;
    }
    return LogAnalysis.kneeOf(xs, ys);
  }

  /** Successful records with {@code batch.*} attributes. */
  List<Req> requests() {
    return requests;
  }

  /** The knee of compute share (CPU ms) against input tokens; null without enough batched records. */
  LogAnalysis.@Nullable KneeFit knee() {
    return knee;
  }

  double medianTpotMs() {
    return medianTpot;
  }

  /**
   * The median, over requests that had both, of (mean wall ms of their decode steps that also ran another
   * request's prefill) / (mean wall ms of their decode steps without one).
   */
  double stepRatio() {
    return stepRatio;
  }

  int stepRatioRequests() {
    return stepRatioRequests;
  }

  /** Requests with TPOT at least {@value #VICTIM_TPOT} times the median whose neighbours' prefill slowed them. */
  List<Victim> victims() {
    return victims;
  }

  /** The neighbours the victims name first, most victims first. */
  List<Culprit> culprits() {
    return culprits;
  }
}
