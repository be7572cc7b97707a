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
 * What the records' batching fields and the tracer's launch log say, beside {@code trtrace stats}: the
 * knee of each request's compute share ({@code gpu_ms}, its weighted share of its engine steps' CPU time,
 * which another process on the machine does not inflate as it does wall time; see {@link BatchEngine}) against its input length, and the third field case —
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

  /** A request's decode steps, from the launch log. */
  private static final class Steps {
    long decode;
    long withPrefill;
    double msWithPrefill;
    double msAlone;
  }

  /**
   * Reads the successful batched records of {@code log} (their SDK batching fields: {@code gpu_ms} with
   * {@code gpu_ms_method}, {@code tpot_ms}, {@code slowed_by}) and joins them to the tracer's launch log
   * beside it ({@link DemoService#launchLog}): each request's decode steps with and without another
   * request's prefill, and their host time.
   */
  static BatchFindings read(Path log) throws IOException {
    Map<String, JsonNode> records = new LinkedHashMap<>();
    Map<String, Long> tokens = new HashMap<>();
    forEachLine(log, n -> {
      String id = n.path("request_id").asText();
      tokens.put(id, n.path("input_tokens").asLong(-1));
      if ("success".equals(n.path("status").asText()) && n.has("gpu_ms_method") && n.path("launch_count").asLong() > 0) {
        records.put(id, n);
      }
    });
    Map<String, Steps> steps = new HashMap<>();
    Path launches = DemoService.launchLog(log);
    if (Files.exists(launches)) {
      forEachLine(launches, l -> {
        long prefill = l.path("prefill_tokens").asLong();
        double hostMs = l.path("host_ms").asDouble();
        for (JsonNode m : l.path("members")) {
          String id = m.path("request_id").asText();
          if (m.path("decode_rows").asLong() > 0 && records.containsKey(id)) {
            Steps s = steps.computeIfAbsent(id, k -> new Steps());
            s.decode++;
            if (prefill - m.path("prefill_tokens").asLong() > 0) {
              s.withPrefill++;
              s.msWithPrefill += hostMs;
            } else {
              s.msAlone += hostMs;
            }
          }
        }
      });
    }
    List<Req> out = new ArrayList<>();
    records.forEach((id, n) -> {
      Steps s = steps.getOrDefault(id, new Steps());
      long alone = s.decode - s.withPrefill;
      List<Map.Entry<String, Long>> slowedBy = new ArrayList<>();
      for (JsonNode x : n.path("slowed_by")) {
        slowedBy.add(Map.entry(x.path("request_id").asText(), x.path("prefill_tokens").asLong()));
      }
      out.add(new Req(id, n.path("input_tokens").asLong(-1), n.path("latency_ms").asDouble(),
          n.path("queue_ms").asDouble(0), n.path("gpu_ms").asDouble(), n.path("tpot_ms").asDouble(-1),
          s.decode, s.withPrefill, s.withPrefill > 0 ? s.msWithPrefill / s.withPrefill : -1,
          alone > 0 ? s.msAlone / alone : -1, List.copyOf(slowedBy)));
    });
    return new BatchFindings(out, tokens);
  }

  private static void forEachLine(Path file, java.util.function.Consumer<JsonNode> each) throws IOException {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        JsonNode n;
        try {
          n = JSON.readTree(line);
        } catch (IOException e) {
          continue; // not a JSON line: trtrace stats counts those
        }
        if (n != null && n.isObject()) {
          each.accept(n);
        }
      }
    }
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

  /** Successful records of batched requests (with {@code gpu_ms_method}). */
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
