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
 * which another process on the machine does not inflate as it does wall time; see {@link BatchEngine}) against
 * its input length, and the third field case — requests whose decode steps also ran another request's prefill,
 * and who those neighbours were. Both are judged in the engine's CPU time, never in wall time: a victim's
 * "CPU-time TPOT" (the mean CPU time of the steps that each produced one of its tokens, what its TPOT would
 * be if the engine had its core alone) is a multiple of what its own decode-only steps cost, because its
 * steps beside a prefill cost far more. Its own decode-only steps are the baseline, not the other requests':
 * when most steps carry a prefill (one busy engine), the median request is itself slowed. On a busy machine the wall
 * time of a step also holds the time the engine thread waited for a core, which comes and goes with the other
 * processes; the CPU time does not. The wall-clock TPOT is printed beside it. Everything here is read from
 * the record file and the launch log; nothing comes from the load plan.
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
  /**
   * A victim's CPU-time TPOT (mean CPU ms of its decode steps) is at least this many times what its decode
   * steps without another request's prefill cost ({@link #baselineCpuMs}). 1.5, not 2: on the GPU, since a mixed
   * step runs in passes (decode rows no longer padded to the chunk), a step beside a prefill costs a median 2.4 to
   * 2.5 times one without, and the most-slowed request's TPOT came out 1.99, 2.64 and 2.93 times its baseline in
   * three runs (GPU-RESULTS.md, "Runs 35 to 38"): at 2 the finding appeared or not by a hair. A 1.5 times TPOT is
   * what a user notices, and {@link #VICTIM_STEP} still asks that the steps beside a prefill be what slowed it.
   */
  static final double VICTIM_TPOT = 1.5;
  /** And its decode steps beside a prefill cost at least this many times that too. */
  static final double VICTIM_STEP = 2;
  /** Decode steps a request needs at least to be judged (its TPOT is a mean over them). */
  static final int MIN_DECODE_STEPS = 4;
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One successful request's figures. The step figures are its decode steps' (launch log): {@code stepCpuMs*}
   * their measured time ({@code gpu_ms}: the engine thread's CPU time for the whole step), {@code stepWallMs*}
   * their host time; each a mean, -1 when it had no such step.
   */
  record Req(String id, long inputTokens, double latencyMs, double queueMs, double computeCpuMs, double tpotMs,
      long decodeSteps, long decodeStepsWithPrefill, double stepCpuMsWithPrefill, double stepCpuMsAlone,
      double stepWallMsWithPrefill, double stepWallMsAlone, List<Map.Entry<String, Long>> slowedBy) {
    /** Mean CPU ms of its decode steps: its TPOT in the engine's CPU time; -1 without decode steps. */
    double cpuTpotMs() {
      if (decodeSteps == 0) {
        return -1;
      }
      long alone = decodeSteps - decodeStepsWithPrefill;
      return (Math.max(0, stepCpuMsWithPrefill) * decodeStepsWithPrefill + Math.max(0, stepCpuMsAlone) * alone)
          / decodeSteps;
    }

    /** Its decode steps beside a prefill against those without, in CPU time; NaN without both kinds. */
    double stepCpuRatio() {
      return stepCpuMsWithPrefill > 0 && stepCpuMsAlone > 0 ? stepCpuMsWithPrefill / stepCpuMsAlone : Double.NaN;
    }
  }

  /** A request whose decode a neighbour's prefill slowed. */
  record Victim(Req req, String culprit, long culpritTokens) {}

  /** A neighbour named by victims, most victims first. */
  record Culprit(String id, long inputTokens, int victims) {}

  private final List<Req> requests;
  private final LogAnalysis.@Nullable KneeFit knee;
  private final double medianTpot;
  private final double medianCpuTpot;
  private final double medianAloneStep;
  private final double stepRatio;
  private final int stepRatioRequests;
  private final List<Victim> victims;
  private final List<Culprit> culprits;

  private BatchFindings(List<Req> requests, Map<String, Long> inputTokens) {
    this.requests = requests;
    this.knee = fitKnee(requests);
    this.medianTpot = median(requests.stream().filter(r -> r.decodeSteps() >= MIN_DECODE_STEPS && r.tpotMs() > 0)
        .mapToDouble(Req::tpotMs).toArray());
    this.medianCpuTpot = median(requests.stream().filter(r -> r.decodeSteps() >= MIN_DECODE_STEPS)
        .mapToDouble(Req::cpuTpotMs).toArray());
    double[] ratios = requests.stream().mapToDouble(Req::stepCpuRatio).filter(x -> !Double.isNaN(x)).toArray();
    this.stepRatio = median(ratios);
    this.stepRatioRequests = ratios.length;
    this.medianAloneStep = median(requests.stream().filter(r -> r.stepCpuMsAlone() > 0)
        .mapToDouble(Req::stepCpuMsAlone).toArray());
    List<Victim> v = new ArrayList<>();
    for (Req r : requests) {
      double base = baselineCpuMs(r);
      if (r.decodeSteps() >= MIN_DECODE_STEPS && !r.slowedBy().isEmpty() && r.decodeStepsWithPrefill() > 0
          && base > 0 && r.cpuTpotMs() >= VICTIM_TPOT * base && r.stepCpuMsWithPrefill() >= VICTIM_STEP * base) {
        Map.Entry<String, Long> top = r.slowedBy().get(0);
        v.add(new Victim(r, top.getKey(), top.getValue()));
      }
    }
    v.sort(Comparator.comparingDouble((Victim x) -> x.req().cpuTpotMs()).reversed()
        .thenComparing(x -> x.req().id()));
    this.victims = List.copyOf(v);
    Map<String, Integer> named = new LinkedHashMap<>();
    for (Victim x : victims) {
      named.merge(x.culprit(), 1, Integer::sum);
    }
    this.culprits = named.entrySet().stream()
        .map(e -> new Culprit(e.getKey(), inputTokens.getOrDefault(e.getKey(), -1L), e.getValue()))
        .sorted(Comparator.comparingInt(Culprit::victims).reversed().thenComparing(Culprit::id)).toList();
  }

  private static double median(double[] xs) {
    if (xs.length == 0) {
      return Double.NaN;
    }
    double[] s = xs.clone();
    java.util.Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  /** A request's decode steps, from the launch log: CPU ms ({@code gpu_ms}) and wall ms ({@code host_ms}). */
  private static final class Steps {
    long decode;
    long withPrefill;
    double cpuWithPrefill;
    double cpuAlone;
    double wallWithPrefill;
    double wallAlone;
  }

  /**
   * Reads the successful batched records of {@code log} (their SDK batching fields: {@code gpu_ms} with
   * {@code gpu_ms_method}, {@code tpot_ms}, {@code slowed_by}) and joins them to the tracer's launch log
   * beside it ({@link DemoService#launchLog}): each request's decode steps with and without another
   * request's prefill, and their CPU time ({@code gpu_ms}) and host time. Its {@code kernels} lines (kernel
   * records, when they are on) are not launches and are skipped.
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
        if (l.has("kernels")) {
          return; // a kernels line (CUPTI's GPU activities of a launch, with kernel records on) is not a launch
        }
        long prefill = l.path("prefill_tokens").asLong();
        double hostMs = l.path("host_ms").asDouble();
        double cpuMs = l.path("gpu_ms").asDouble(Double.NaN);
        if (Double.isNaN(cpuMs)) {
          return; // a launch without measured time says nothing about its cost
        }
        for (JsonNode m : l.path("members")) {
          String id = m.path("request_id").asText();
          if (m.path("decode_rows").asLong() > 0 && records.containsKey(id)) {
            Steps s = steps.computeIfAbsent(id, k -> new Steps());
            s.decode++;
            if (prefill - m.path("prefill_tokens").asLong() > 0) {
              s.withPrefill++;
              s.cpuWithPrefill += cpuMs;
              s.wallWithPrefill += hostMs;
            } else {
              s.cpuAlone += cpuMs;
              s.wallAlone += hostMs;
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
          s.decode, s.withPrefill, s.withPrefill > 0 ? s.cpuWithPrefill / s.withPrefill : -1,
          alone > 0 ? s.cpuAlone / alone : -1, s.withPrefill > 0 ? s.wallWithPrefill / s.withPrefill : -1,
          alone > 0 ? s.wallAlone / alone : -1, List.copyOf(slowedBy)));
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

  /** Median wall-clock TPOT of the requests with at least {@value #MIN_DECODE_STEPS} decode steps. */
  double medianTpotMs() {
    return medianTpot;
  }

  /**
   * What {@code r}'s decode steps cost without another request's prefill: its own such steps' mean CPU ms, or,
   * when it had none, the median of the other requests' ({@link #medianAloneStepMs()}).
   */
  double baselineCpuMs(Req r) {
    return r.stepCpuMsAlone() > 0 ? r.stepCpuMsAlone() : medianAloneStep;
  }

  /** The median over requests of their decode-only steps' mean CPU ms; NaN when none had such steps. */
  double medianAloneStepMs() {
    return medianAloneStep;
  }

  /** Median CPU-time TPOT ({@link Req#cpuTpotMs()}) of the requests with at least {@value #MIN_DECODE_STEPS} decode steps. */
  double medianCpuTpotMs() {
    return medianCpuTpot;
  }

  /**
   * The median, over requests that had both, of (mean CPU ms of their decode steps that also ran another
   * request's prefill) / (mean CPU ms of their decode steps without one).
   */
  double stepRatio() {
    return stepRatio;
  }

  int stepRatioRequests() {
    return stepRatioRequests;
  }

  /**
   * Requests with neighbours in {@code slowed_by} whose CPU-time TPOT is at least {@value #VICTIM_TPOT} times,
   * and whose decode steps beside another request's prefill cost at least {@value #VICTIM_STEP} times, what
   * their decode-only steps cost ({@link #baselineCpuMs}); the costliest first.
   */
  List<Victim> victims() {
    return victims;
  }

  /** The neighbours the victims name first, most victims first. */
  List<Culprit> culprits() {
    return culprits;
  }
}
