package io.github.trtrace.examples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What an operator concludes from the records alone (the JSON Lines log): where latency goes, whether it
 * follows input length and where the knee is, which outputs were flagged and what their inputs had in
 * common, and when requests were rejected.
 *
 * <p>{@code trtrace stats} computes these statistics (and more) for any log; the demo also runs it and writes
 * the HTML report (see {@link Demo}). This class is the demo's own, small analysis: it turns the figures into
 * the sentences an operator would conclude, and the end-to-end test asserts them.
 */
final class Analysis {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final int LONG_INPUT = 1024;
  static final long PEAK_BUCKET_MS = 250;

  /** One record, the fields the analysis uses. */
  record Rec(String id, Instant timestamp, String status, double latencyMs, int inputTokens, double queueMs,
      Map<String, Double> stages, List<String> inputFlags, List<String> outputFlags, String sampledReason,
      String rejectedHeader, Map<String, String> gpu) {
    Rec(String id, Instant timestamp, String status, double latencyMs, int inputTokens, double queueMs,
        Map<String, Double> stages, List<String> inputFlags, List<String> outputFlags, String sampledReason,
        String rejectedHeader) {
      this(id, timestamp, status, latencyMs, inputTokens, queueMs, stages, inputFlags, outputFlags, sampledReason,
          rejectedHeader, Map.of());
    }

    /**
     * The GPU line of a record served on the GPU: the roofline attributes ({@code gpu.bound}, arithmetic
     * intensity, achieved bandwidth and FLOP rate as shares of the peaks, overall and for the decode steps)
     * and NVML's memory-bandwidth utilisation; null for a CPU record.
     */
    @Nullable String gpuSummary() {
      String bound = gpu.get("gpu.bound");
      if (bound == null) {
        return null;
      }
      StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
          "GPU %s ms: %s-bound by the roofline (%s FLOP/B), %s GB/s = %.0f%% of peak bandwidth, %.1f%% of peak FLOP/s",
          gpu.getOrDefault("gpu_ms", "?"), bound, gpu.get("gpu.arith_intensity"), gpu.get("gpu.mem_bw_gbs"),
          100 * num("gpu.mem_bw_util"), 100 * num("gpu.flops_util")));
      if (gpu.containsKey("gpu.decode.bound")) {
        sb.append(String.format(Locale.ROOT, "; decode steps %s-bound at %.0f%% of peak bandwidth",
            gpu.get("gpu.decode.bound"), 100 * num("gpu.decode.mem_bw_util")));
      }
      if (gpu.containsKey("gpu.prefill.bound")) {
        sb.append(String.format(Locale.ROOT, "; prefill %s-bound at %.0f%% of peak FLOP/s",
            gpu.get("gpu.prefill.bound"), 100 * num("gpu.prefill.flops_util")));
      }
      if (gpu.containsKey("gpu_mem_util_mean")) {
        sb.append("; NVML gpu_mem_util mean ").append(gpu.get("gpu_mem_util_mean")).append(" % max ")
            .append(gpu.getOrDefault("gpu_mem_util_max", "?")).append(" %");
      }
      return sb.toString();
    }

    private double num(String key) {
      try {
        return Double.parseDouble(gpu.getOrDefault(key, "NaN"));
      } catch (NumberFormatException e) {
        return Double.NaN;
      }
    }

    double computeMs() {
      return latencyMs - queueMs;
    }

    String dominantStage() {
      return stages.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("-");
    }
  }

  /** A two-segment fit of compute time against input tokens. */
  record Knee(int tokens, double slopeBelow, double slopeAbove, double r2, double lineR2, int below, int above) {
    /** A knee worth reporting: the slope at least 1.5 times steeper after it, and the fit clearly better. */
    boolean found() {
      return below >= 5 && above >= 5 && slopeAbove >= 1.5 * slopeBelow && r2 >= 0.8 && r2 > lineR2;
    }
  }

  /** Everything the demo prints, and the end-to-end test checks. */
  record Report(int records, Map<String, Integer> byStatus, double p50, double p90, double p99, double max,
      double queueP50, double latencyP50OfSuccess, double correlation, double correlationComputeBound,
      int queueBound, Knee knee, List<Rec> slowest,
      int slowestLong, List<Rec> garbled, int garbledWithBidi, int bidiInputs, List<Rec> rejected,
      Duration peakAt, int peakArrivals, int medianArrivals, int rejectedNearPeak, String rejectedExample,
      double overallRate,
      int slowP99, double firstToLastSeconds, List<Rec> hostile, Map<String, int[]> buckets) {}

  private Analysis() {}

  static List<Rec> read(Path log) throws IOException {
    List<Rec> out = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode n = JSON.readTree(line);
        Map<String, Double> stages = new TreeMap<>();
        for (String s : List.of("queue_ms", "preprocess_ms", "infer_ms", "decode_ms", "postprocess_ms")) {
          if (n.has(s)) {
            stages.put(s, n.get(s).asDouble());
          }
        }
        out.add(new Rec(n.path("request_id").asText(), Instant.parse(n.path("timestamp").asText()),
            n.path("status").asText(), n.path("latency_ms").asDouble(), n.path("input_tokens").asInt(0),
            n.path("queue_ms").asDouble(0), stages, strings(n.path("input_flags")),
            strings(n.path("output_flags")), n.path("sampled_reason").asText(""),
            n.path("attributes").path("rejected_request_id").asText(null), gpu(n)));
      }
    }
    return out;
  }

  /** The record's GPU figures: {@code gpu_ms}, NVML's {@code gpu_mem_util_*} and the {@code gpu.*} attributes. */
  private static Map<String, String> gpu(JsonNode n) {
    Map<String, String> g = new TreeMap<>();
    for (String f : List.of("gpu_ms", "gpu_mem_util_mean", "gpu_mem_util_max", "gpu_util_mean")) {
      if (n.has(f)) {
        g.put(f, n.get(f).asText());
      }
    }
    n.path("attributes").fields().forEachRemaining(e -> {
      if (e.getKey().startsWith("gpu.")) {
        g.put(e.getKey(), e.getValue().asText());
      }
    });
    return g;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(e -> out.add(e.asText()));
    return out;
  }

  static Report analyse(List<Rec> recs) {
    Map<String, Integer> byStatus = new TreeMap<>();
    recs.forEach(r -> byStatus.merge(r.status(), 1, Integer::sum));
    List<Rec> ok = recs.stream().filter(r -> r.status().equals("success")).toList();
    double[] lat = recs.stream().mapToDouble(Rec::latencyMs).sorted().toArray();
    double[] okLat = ok.stream().mapToDouble(Rec::latencyMs).sorted().toArray();
    double[] queue = ok.stream().mapToDouble(Rec::queueMs).sorted().toArray();

    double[] x = ok.stream().mapToDouble(Rec::inputTokens).toArray();
    double[] y = ok.stream().mapToDouble(Rec::computeMs).toArray();
    double corr = pearson(x, ok.stream().mapToDouble(Rec::latencyMs).toArray());
    Knee knee = knee(x, y);

    // Requests that waited longer than they computed are explained by the queue (a burst's backlog): the
    // question "which inputs are slow" is about the others.
    List<Rec> computeBound = ok.stream().filter(r -> r.queueMs() < r.computeMs()).toList();
    double corrComputeBound = pearson(computeBound.stream().mapToDouble(Rec::inputTokens).toArray(),
        computeBound.stream().mapToDouble(Rec::latencyMs).toArray());
    List<Rec> slowest = computeBound.stream().sorted(Comparator.comparingDouble(Rec::latencyMs).reversed())
        .limit(10).toList();
    int slowestLong = (int) slowest.stream().filter(r -> r.inputTokens() >= LONG_INPUT).count();

    List<Rec> garbled = recs.stream().filter(r -> !r.outputFlags().isEmpty()).toList();
    int garbledWithBidi = (int) garbled.stream().filter(r -> r.inputFlags().contains("bidi_control")).count();
    int bidiInputs = (int) recs.stream().filter(r -> r.inputFlags().contains("bidi_control")).count();

    Instant first = recs.stream().map(Rec::timestamp).min(Comparator.naturalOrder()).orElse(Instant.EPOCH);
    Instant last = recs.stream().map(Rec::timestamp).max(Comparator.naturalOrder()).orElse(Instant.EPOCH);
    List<Rec> rejected = recs.stream().filter(r -> r.status().equals("rejected"))
        .sorted(Comparator.comparing(Rec::timestamp)).toList();
    // When did arrivals peak? Quarter-second buckets of arrival time, every record counted.
    Map<Long, Integer> perBucket = new TreeMap<>();
    for (Rec r : recs) {
      perBucket.merge(Duration.between(first, r.timestamp()).toMillis() / PEAK_BUCKET_MS, 1, Integer::sum);
    }
    long peak = perBucket.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(0L);
    int peakArrivals = perBucket.getOrDefault(peak, 0);
    int[] counts = perBucket.values().stream().mapToInt(Integer::intValue).sorted().toArray();
    int medianArrivals = counts.length == 0 ? 0 : counts[counts.length / 2];
    Duration peakAt = Duration.ofMillis(peak * PEAK_BUCKET_MS);
    // Rejected while the peak's backlog lasted: from the peak bucket to a second after it.
    List<Rec> nearPeak = rejected.stream().filter(r -> {
      Duration d = Duration.between(first, r.timestamp());
      return d.compareTo(peakAt) >= 0 && d.compareTo(peakAt.plusMillis(PEAK_BUCKET_MS + 1000)) < 0;
    }).toList();
    double span = Duration.between(first, last).toNanos() / 1e9;
    int slowP99 = (int) recs.stream().filter(r -> r.sampledReason().equals("slow_p99")).count();
    List<Rec> hostile = recs.stream().filter(r -> r.rejectedHeader() != null).toList();

    Map<String, int[]> buckets = new TreeMap<>(Comparator.comparingInt(Analysis::bucketStart));
    for (int[] b : new int[][] {{0, 128}, {128, 512}, {512, 1024}, {1024, 2048}, {2048, 4096}}) {
      double[] ms = ok.stream().filter(r -> r.inputTokens() >= b[0] && r.inputTokens() < b[1])
          .mapToDouble(Rec::computeMs).sorted().toArray();
      if (ms.length > 0) {
        buckets.put(b[0] + "-" + (b[1] - 1), new int[] {ms.length, (int) Math.round(quantile(ms, 0.5)),
            (int) Math.round(quantile(ms, 0.9))});
      }
    }
    return new Report(recs.size(), byStatus, quantile(lat, 0.5), quantile(lat, 0.9), quantile(lat, 0.99),
        lat.length == 0 ? 0 : lat[lat.length - 1], quantile(queue, 0.5), quantile(okLat, 0.5), corr,
        corrComputeBound, ok.size() - computeBound.size(), knee,
        slowest, slowestLong, garbled, garbledWithBidi, bidiInputs, rejected, peakAt, peakArrivals, medianArrivals,
        nearPeak.size(), (nearPeak.isEmpty() ? rejected : nearPeak).stream().findFirst().map(Rec::id).orElse(null),
        span > 0 ? recs.size() / span : 0, slowP99, span, hostile, buckets);
  }

  private static int bucketStart(String bucket) {
    return Integer.parseInt(bucket.substring(0, bucket.indexOf('-')));
  }

  /** Width of the input-length bins whose medians the knee is fitted to. */
  static final int BIN_TOKENS = 256;
  /** Bins with fewer requests are left out of the fit. */
  static final int MIN_BIN = 2;

  /**
   * The hinge {@code y = a + b*n + c*max(0, n - k)} with the least squared error over candidate knees
   * {@code k} (at least three bins on each side), against a straight line. Fitted to the median compute time
   * of each {@value #BIN_TOKENS}-token bin of input length that has at least {@value #MIN_BIN} requests, one
   * point per bin, as an operator reads a chart of
   * latency against length: the many short requests do not outvote the few long ones, and one request that
   * lost its core to another process moves a median little, where it would move a fit to raw points a lot.
   */
  static Knee knee(double[] x, double[] y) {
    Map<Integer, List<double[]>> bins = new TreeMap<>();
    for (int i = 0; i < x.length; i++) {
      bins.computeIfAbsent((int) (x[i] / BIN_TOKENS), b -> new ArrayList<>()).add(new double[] {x[i], y[i]});
    }
    bins.values().removeIf(bin -> bin.size() < MIN_BIN);
    int m = bins.size();
    double[] bx = new double[m];
    double[] by = new double[m];
    double[] w = new double[m];
    int j = 0;
    for (List<double[]> bin : bins.values()) {
      bx[j] = quantile(bin.stream().mapToDouble(p -> p[0]).sorted().toArray(), 0.5);
      by[j] = quantile(bin.stream().mapToDouble(p -> p[1]).sorted().toArray(), 0.5);
      w[j] = 1;
      j++;
    }
    if (m < 6) {
      return new Knee(0, 0, 0, 0, 0, 0, 0);
    }
    double total = 0;
    double mean = 0;
    for (int i = 0; i < m; i++) {
      total += w[i];
      mean += w[i] * by[i];
    }
    mean /= total;
    double sst = 0;
    for (int i = 0; i < m; i++) {
      sst += w[i] * (by[i] - mean) * (by[i] - mean);
    }
    double[] line = fit(bx, by, w, Double.NaN);
    double bestSse = Double.POSITIVE_INFINITY;
    double[] best = null;
    double bestK = 0;
    for (int i = 2; i < m - 3; i++) { // at least three bins on each side
      double[] f = fit(bx, by, w, bx[i]);
      if (f != null && f[3] < bestSse) {
        bestSse = f[3];
        best = f;
        bestK = bx[i];
      }
    }
    if (best == null || line == null || sst == 0) {
      return new Knee(0, 0, 0, 0, 0, 0, 0);
    }
    final double k = bestK;
    int below = (int) java.util.Arrays.stream(x).filter(v -> v <= k).count();
    return new Knee((int) k, best[1], best[1] + best[2], 1 - bestSse / sst, 1 - line[3] / sst, below,
        x.length - below);
  }

  /** Weighted least squares of a + b*x (+ c*max(0, x - k) unless k is NaN): {a, b, c, sse}; null if singular. */
  private static double[] fit(double[] x, double[] y, double[] w, double k) {
    int p = Double.isNaN(k) ? 2 : 3;
    double[][] ata = new double[p][p];
    double[] aty = new double[p];
    double[] row = new double[p];
    for (int i = 0; i < x.length; i++) {
      row[0] = 1;
      row[1] = x[i];
      if (p == 3) {
        row[2] = Math.max(0, x[i] - k);
      }
      for (int a = 0; a < p; a++) {
        aty[a] += w[i] * row[a] * y[i];
        for (int b = 0; b < p; b++) {
          ata[a][b] += w[i] * row[a] * row[b];
        }
      }
    }
    double[] beta = solve(ata, aty);
    if (beta == null) {
      return null;
    }
    double sse = 0;
    for (int i = 0; i < x.length; i++) {
      double pred = beta[0] + beta[1] * x[i] + (p == 3 ? beta[2] * Math.max(0, x[i] - k) : 0);
      sse += w[i] * (y[i] - pred) * (y[i] - pred);
    }
    return new double[] {beta[0], beta[1], p == 3 ? beta[2] : 0, sse};
  }

  /** Gaussian elimination with partial pivoting; null when singular. */
  private static double[] solve(double[][] a, double[] b) {
    int n = b.length;
    double[][] m = new double[n][];
    double[] v = b.clone();
    for (int i = 0; i < n; i++) {
      m[i] = a[i].clone();
    }
    for (int c = 0; c < n; c++) {
      int piv = c;
      for (int r = c + 1; r < n; r++) {
        if (Math.abs(m[r][c]) > Math.abs(m[piv][c])) {
          piv = r;
        }
      }
      if (Math.abs(m[piv][c]) < 1e-9) {
        return null;
      }
      double[] t = m[c];
      m[c] = m[piv];
      m[piv] = t;
      double tv = v[c];
      v[c] = v[piv];
      v[piv] = tv;
      for (int r = c + 1; r < n; r++) {
        double f = m[r][c] / m[c][c];
        for (int cc = c; cc < n; cc++) {
          m[r][cc] -= f * m[c][cc];
        }
        v[r] -= f * v[c];
      }
    }
    double[] x = new double[n];
    for (int r = n - 1; r >= 0; r--) {
      double s = v[r];
      for (int cc = r + 1; cc < n; cc++) {
        s -= m[r][cc] * x[cc];
      }
      x[r] = s / m[r][r];
    }
    return x;
  }

  static double pearson(double[] x, double[] y) {
    int n = x.length;
    if (n < 2) {
      return 0;
    }
    double mx = 0;
    double my = 0;
    for (int i = 0; i < n; i++) {
      mx += x[i];
      my += y[i];
    }
    mx /= n;
    my /= n;
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (int i = 0; i < n; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
      syy += (y[i] - my) * (y[i] - my);
    }
    return sxx == 0 || syy == 0 ? 0 : sxy / Math.sqrt(sxx * syy);
  }

  static double quantile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  }

  /** Prints the operator's conclusions, each with a command that shows one example. */
  static void print(Report r, Path log, PrintStream out) {
    String file = display(log);
    out.println();
    out.println("== What the records say (" + r.records() + " records in " + file + ") ==");
    out.printf(Locale.ROOT, "status: %s; latency p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms%n",
        r.byStatus(), r.p50(), r.p90(), r.p99(), r.max());
    out.printf(Locale.ROOT, "arrivals spread over %.1f s (%.1f requests/s on average)%n",
        r.firstToLastSeconds(), r.overallRate());

    out.println();
    // The heading states the conclusion only when the figures below support it (on the GPU backend they
    // may not: its latency grows about linearly with the input, and the slowest requests can be queue-bound).
    out.println(r.knee().found() && r.slowestLong() >= 5
        ? "1. Slow answers are the long inputs, and the time is compute, not queueing."
        : "1. Latency against input length (no clear knee in these records: see the figures).");
    out.printf(Locale.ROOT, "   queue_ms p50 %.1f ms of a successful request's p50 latency %.0f ms (%.0f%%)%n",
        r.queueP50(), r.latencyP50OfSuccess(),
        r.latencyP50OfSuccess() == 0 ? 0 : 100 * r.queueP50() / r.latencyP50OfSuccess());
    out.printf(Locale.ROOT, "   input_tokens vs latency_ms: Pearson r = %.2f; %.2f without the %d requests that waited"
        + " longer than they computed (the burst's backlog, see 3)%n", r.correlation(), r.correlationComputeBound(),
        r.queueBound());
    out.println("   compute time (latency - queue) by input length:  tokens  requests  p50 ms  p90 ms");
    r.buckets().forEach((k, v) -> out.printf(Locale.ROOT, "   %49s %9d %7d %7d%n", k, v[0], v[1], v[2]));
    Knee k = r.knee();
    if (k.found()) {
      out.printf(Locale.ROOT,
          "   knee at %,d input tokens: %.3f ms/token below, %.3f ms/token above (%.1fx); two-segment fit to"
              + " 256-token bin medians R^2 %.2f (one line: %.2f)%n",
          k.tokens(), k.slopeBelow(), k.slopeAbove(), k.slopeAbove() / Math.max(1e-9, k.slopeBelow()), k.r2(),
          k.lineR2());
    } else {
      out.printf(Locale.ROOT, "   no clear knee (best break at %d tokens, slopes %.3f / %.3f ms/token, R^2 %.2f)%n",
          k.tokens(), k.slopeBelow(), k.slopeAbove(), k.r2());
    }
    out.printf(Locale.ROOT, "   %d of the 10 slowest of those had %,d+ input tokens:%n",
        r.slowestLong(), LONG_INPUT);
    r.slowest().stream().limit(3).forEach(s -> {
      out.printf(Locale.ROOT, "     %s  %,d tokens  %.0f ms  (queue %.0f ms, most time in %s)%n",
          s.id(), s.inputTokens(), s.latencyMs(), s.queueMs(), s.dominantStage());
      String g = s.gpuSummary();
      if (g != null) {
        out.println("       " + g);
      }
    });
    if (!r.slowest().isEmpty()) {
      find(out, r.slowest().get(0).id(), file);
    }

    out.println();
    out.println("2. Garbled answers all had bidirectional controls in their input.");
    Map<String, Integer> outFlags = new TreeMap<>();
    r.garbled().forEach(g -> g.outputFlags().forEach(f -> outFlags.merge(f, 1, Integer::sum)));
    out.printf(Locale.ROOT, "   %d records have output_flags %s; %d of them have input_flags bidi_control%n",
        r.garbled().size(), outFlags, r.garbledWithBidi());
    out.printf(Locale.ROOT, "   %d inputs had bidi_control; the other %d came out clean (their overrides were"
        + " closed: U+202C/U+2069)%n", r.bidiInputs(), r.bidiInputs() - r.garbledWithBidi());
    if (!r.garbled().isEmpty()) {
      find(out, r.garbled().get(0).id(), file);
    }

    out.println();
    out.println("3. The 429s happened during the burst.");
    if (r.rejected().isEmpty()) {
      out.println("   no request was rejected");
    } else {
      out.printf(Locale.ROOT, "   arrivals peaked at +%.2f s: %d in %d ms, against a median of %d per %d ms%n",
          r.peakAt().toMillis() / 1e3, r.peakArrivals(), PEAK_BUCKET_MS, r.medianArrivals(), PEAK_BUCKET_MS);
      out.printf(Locale.ROOT, "   %s of the %d rejected (HTTP 429, status rejected) arrived in that peak or the"
          + " second after it, while its backlog filled the queue%n",
          r.rejectedNearPeak() == r.rejected().size() ? "all" : String.valueOf(r.rejectedNearPeak()),
          r.rejected().size());
      find(out, r.rejectedExample(), file);
    }

    out.println();
    out.printf(Locale.ROOT, "4. Hostile X-Request-IDs: %d were replaced by generated IDs (the value is kept only"
        + " sanitized, in attributes.rejected_request_id)%n", r.hostile().size());
    r.hostile().stream().limit(2).forEach(h -> out.printf(Locale.ROOT, "     %s  sent as '%s'%n", h.id(),
        h.rejectedHeader().length() > 40 ? h.rejectedHeader().substring(0, 40) + "..." : h.rejectedHeader()));
    out.printf(Locale.ROOT, "5. sampled_reason slow_p99 marks %d records (%.1f%%)%n", r.slowP99(),
        r.records() == 0 ? 0 : 100.0 * r.slowP99() / r.records());
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
