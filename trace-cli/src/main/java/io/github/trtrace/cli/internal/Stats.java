package io.github.trtrace.cli.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Everything {@code stats} and {@code report} show, aggregated one record at a time in bounded
 * memory: histograms instead of latency lists, a bounded heap for the slowest requests, a fixed
 * reservoir sample for the scatter plot, fixed input-length buckets, capped key maps (further keys
 * are counted under {@link #OTHER}).
 */
final class Stats {
  static final String OTHER = "(other)";
  static final String NONE = "-";
  static final int MAX_KEYS = 500;
  static final int SAMPLE_SIZE = 3000;
  static final String SUCCESS = "success";
  static final String REJECTED = "rejected";

  /** Per model and status. */
  static final class Group {
    final Hist latency = new Hist();
  }

  /** One input-length bucket: successful requests only. */
  static final class Bucket {
    final long lo;
    final long hi;
    long count;
    double tokenSum;
    final Hist latency = new Hist();
    /** Latency less queue time: what input length drives (queueing follows load, not length). */
    final Hist compute = new Hist();
    /** Latency of the requests that waited longer in the queue than they computed (a backlog, not their input). */
    final Hist queueBound = new Hist();
    final double[] stageSum = new double[Stages.COUNT];

    Bucket(long lo, long hi) {
      this.lo = lo;
      this.hi = hi;
    }

    double meanTokens() {
      return tokenSum / count;
    }
  }

  /** One of the slowest requests. */
  record Slow(String requestId, String model, String status, double latencyMs, long inputTokens, long outputTokens,
      String dominantStage, double dominantMs, double queueMs, String inputFlags, String outputFlags,
      @Nullable String errorType) {
    /** Latency less queue time (all of the latency when the queue time is unknown). */
    double computeMs() {
      return queueMs >= 0 && queueMs <= latencyMs ? latencyMs - queueMs : latencyMs;
    }
  }

  /** One scatter point. */
  record Point(long tokens, double latencyMs, boolean outputFlagged, boolean failed, boolean bidi) {}

  /** Counts of one input flag: records carrying it and of those, records with an output flag. */
  static final class FlagCount {
    long records;
    long withOutputFlags;
    /** The first request (in reading order) with this input flag and a flagged output: one to look at. */
    @Nullable String flaggedExample;
  }

  final int topN;
  long records;
  final Hist all = new Hist();
  final Hist success = new Hist();
  final Map<String, Map<String, Group>> groups = new TreeMap<>();
  final Map<String, Long> statusCounts = new TreeMap<>();
  final double[] stageSum = new double[Stages.COUNT];
  final long[] stageSeen = new long[Stages.COUNT];
  final long[] dominant = new long[Stages.COUNT];
  double gpuSum;
  long gpuSeen;
  double latencySumWithStages;
  long withStages;
  final Bucket[] buckets = TokenBuckets.create();
  long withTokens;
  private final PriorityQueue<Slow> slow =
      new PriorityQueue<>(Comparator.comparingDouble(Slow::latencyMs).thenComparing(Slow::requestId, Comparator.reverseOrder()));
  /** The slowest successful requests by compute time: slow for their own input, not for a backlog ahead of them. */
  private final PriorityQueue<Slow> slowCompute =
      new PriorityQueue<>(Comparator.comparingDouble(Slow::computeMs).thenComparing(Slow::requestId, Comparator.reverseOrder()));
  final Map<String, Long> errorTypes = new TreeMap<>();
  /** Key: input flags, output flags, status (tab separated). */
  final Map<String, Long> flagTable = new TreeMap<>();
  final Map<String, FlagCount> inputFlags = new TreeMap<>();
  final Map<String, Long> outputFlags = new TreeMap<>();
  long outputFlagged;
  long firstMicros = Long.MAX_VALUE;
  long lastMicros = Long.MIN_VALUE;
  long firstRejectedMicros = Long.MAX_VALUE;
  long lastRejectedMicros = Long.MIN_VALUE;
  /** The earliest rejected request: one to look at. */
  @Nullable String firstRejectedId;
  final TimeBins time = new TimeBins();
  private final List<Point> sample = new ArrayList<>();
  private final SplittableRandom random = new SplittableRandom(42);
  private long sampleSeen;
  private final Map<String, String> names = new HashMap<>();

  Stats(int topN) {
    this.topN = topN;
  }

  void add(Rec r) {
    records++;
    String model = key(r.modelName);
    String status = key(r.status);
    double lat = r.latencyMs;
    all.record(lat);
    boolean ok = SUCCESS.equals(status);
    if (ok) {
      success.record(lat);
    }
    Map<String, Group> byStatus = groups.get(model);
    if (byStatus == null) {
      if (groups.size() >= MAX_KEYS) {
        model = OTHER;
        byStatus = groups.computeIfAbsent(OTHER, k -> new TreeMap<>());
      } else {
        byStatus = new TreeMap<>();
        groups.put(model, byStatus);
      }
    }
    byStatus.computeIfAbsent(status, k -> new Group()).latency.record(lat);
    bump(statusCounts, status);

    boolean anyStage = false;
    for (int i = 0; i < Stages.COUNT; i++) {
      double v = r.stageMs[i];
      if (v >= 0) {
        stageSum[i] += v;
        stageSeen[i]++;
        anyStage = true;
      }
    }
    int dom = Stages.dominant(r);
    if (anyStage) {
      withStages++;
      latencySumWithStages += lat;
      dominant[dom]++;
    }
    if (r.gpuMs >= 0) {
      gpuSum += r.gpuMs;
      gpuSeen++;
    }

    if (ok && r.inputTokens >= 0) {
      Bucket b = buckets[TokenBuckets.index(r.inputTokens)];
      b.count++;
      b.tokenSum += r.inputTokens;
      b.latency.record(lat);
      double queue = r.queueMs();
      double compute = queue >= 0 && queue <= lat ? lat - queue : lat;
      b.compute.record(compute);
      if (queue > compute) {
        b.queueBound.record(lat);
      }
      for (int i = 0; i < Stages.COUNT; i++) {
        if (r.stageMs[i] >= 0) {
          b.stageSum[i] += r.stageMs[i];
        }
      }
    }

    String in = join(r.inputFlags);
    String out = join(r.outputFlags);
    if (r.errorType != null || !(ok || REJECTED.equals(status))) {
      bump(errorTypes, r.errorType == null ? "(" + status + ", no error_type)" : key(r.errorType));
    }
    bump(flagTable, in + '\t' + out + '\t' + status);
    boolean flaggedOut = !r.outputFlags.isEmpty();
    if (flaggedOut) {
      outputFlagged++;
      for (String f : r.outputFlags) {
        bump(outputFlags, f);
      }
    }
    for (String f : r.inputFlags) {
      String k = key(f);
      FlagCount c = inputFlags.get(k);
      if (c == null) {
        c = inputFlags.computeIfAbsent(inputFlags.size() >= MAX_KEYS ? OTHER : k, x -> new FlagCount());
      }
      c.records++;
      if (flaggedOut) {
        c.withOutputFlags++;
        if (c.flaggedExample == null && r.requestId != null) {
          c.flaggedExample = r.requestId;
        }
      }
    }

    boolean rejected = REJECTED.equals(status);
    boolean failed = !ok && !rejected;
    time.add(r.timestampMicros, rejected, failed, r.queueMs(), lat);
    if (r.timestampMicros != Rec.NO_TIME) {
      firstMicros = Math.min(firstMicros, r.timestampMicros);
      lastMicros = Math.max(lastMicros, r.timestampMicros);
      if (rejected) {
        if (r.timestampMicros < firstRejectedMicros && r.requestId != null) {
          firstRejectedId = r.requestId;
        }
        firstRejectedMicros = Math.min(firstRejectedMicros, r.timestampMicros);
        lastRejectedMicros = Math.max(lastRejectedMicros, r.timestampMicros);
      }
    }

    if (r.inputTokens >= 0) {
      withTokens++;
      Point p = new Point(r.inputTokens, lat, flaggedOut, failed || rejected, r.inputFlags.contains("bidi_control"));
      sampleSeen++;
      if (sample.size() < SAMPLE_SIZE) {
        sample.add(p);
      } else {
        long j = random.nextLong(sampleSeen);
        if (j < SAMPLE_SIZE) {
          sample.set((int) j, p);
        }
      }
    }

    if (topN > 0 && (slow.size() < topN || lat > slow.peek().latencyMs())) {
      keep(slow, slow(r, model, status, dom, in, out));
    }
    if (topN > 0 && ok) {
      Slow x = slow(r, model, status, dom, in, out);
      if (slowCompute.size() < topN || x.computeMs() > slowCompute.peek().computeMs()) {
        keep(slowCompute, x);
      }
    }
  }

  private static Slow slow(Rec r, String model, String status, int dom, String in, String out) {
    return new Slow(r.requestId == null ? "?" : r.requestId, model, status, r.latencyMs, r.inputTokens, r.outputTokens,
        dom < 0 ? NONE : Stages.NAMES[dom], dom < 0 ? Double.NaN : r.stageMs[dom], r.queueMs(), in, out, r.errorType);
  }

  private void keep(PriorityQueue<Slow> q, Slow x) {
    q.add(x);
    if (q.size() > topN) {
      q.poll();
    }
  }

  /** The slowest requests, slowest first. */
  List<Slow> slowest() {
    List<Slow> l = new ArrayList<>(slow);
    l.sort(Comparator.comparingDouble(Slow::latencyMs).reversed().thenComparing(Slow::requestId));
    return l;
  }

  /** The slowest successful requests by compute time (latency less queue), slowest first. */
  List<Slow> slowestByCompute() {
    List<Slow> l = new ArrayList<>(slowCompute);
    l.sort(Comparator.comparingDouble(Slow::computeMs).reversed().thenComparing(Slow::requestId));
    return l;
  }

  List<Point> sample() {
    return sample;
  }

  /** Share of the summed latency (of records with stage times) spent in stage {@code i}. */
  double share(int i) {
    return latencySumWithStages > 0 ? stageSum[i] / latencySumWithStages : Double.NaN;
  }

  /** Buckets with at least {@code minCount} successful requests. */
  List<Bucket> usedBuckets(int minCount) {
    List<Bucket> l = new ArrayList<>();
    for (Bucket b : buckets) {
      if (b.count >= Math.max(1, minCount)) {
        l.add(b);
      }
    }
    return l;
  }

  /**
   * The knee of median compute time (latency less {@code queue_ms}) against mean input tokens. Each point of
   * the fit is one input-length bucket, or where a bucket has fewer than {@code minCount} requests the
   * smallest run of adjacent buckets that has that many (a short last run joins the one before it). Queue
   * time is left out: it follows the load at the moment (a burst's backlog), not the input length, and would
   * hide the knee under noise.
   */
  Knee.Result knee(int minCount) {
    List<Hist> medians = new ArrayList<>();
    List<double[]> sums = new ArrayList<>(); // {requests, token sum} per point
    Hist run = new Hist();
    double[] sum = {0, 0};
    for (Bucket b : buckets) {
      if (b.count == 0) {
        continue;
      }
      run.add(b.compute);
      sum[0] += b.count;
      sum[1] += b.tokenSum;
      if (sum[0] >= Math.max(1, minCount)) {
        medians.add(run);
        sums.add(sum);
        run = new Hist();
        sum = new double[] {0, 0};
      }
    }
    if (sum[0] > 0 && !medians.isEmpty()) {
      medians.get(medians.size() - 1).add(run);
      sums.get(sums.size() - 1)[0] += sum[0];
      sums.get(sums.size() - 1)[1] += sum[1];
    }
    double[] x = new double[medians.size()];
    double[] y = new double[medians.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = sums.get(i)[1] / sums.get(i)[0];
      y[i] = medians.get(i).percentile(50);
    }
    return Knee.fit(x, y);
  }

  /** Successful requests' latency below and above {@code tokens} (bucket means decide). */
  Hist[] splitAt(double tokens) {
    Hist below = new Hist();
    Hist above = new Hist();
    for (Bucket b : buckets) {
      if (b.count > 0) {
        (b.meanTokens() > tokens ? above : below).add(b.latency);
      }
    }
    return new Hist[] {below, above};
  }

  private String key(@Nullable String s) {
    if (s == null) {
      return "(unknown)";
    }
    String k = names.get(s);
    if (k == null) {
      if (names.size() >= 4 * MAX_KEYS) {
        return s;
      }
      names.put(s, s);
      k = s;
    }
    return k;
  }

  private void bump(Map<String, Long> m, String k) {
    Long v = m.get(k);
    if (v == null && m.size() >= MAX_KEYS) {
      k = OTHER;
      v = m.get(k);
    }
    m.put(k, v == null ? 1L : v + 1);
  }

  private static String join(List<String> flags) {
    if (flags.isEmpty()) {
      return NONE;
    }
    if (flags.size() == 1) {
      return flags.get(0);
    }
    List<String> l = new ArrayList<>(flags);
    l.sort(null);
    return String.join(",", l);
  }
}
