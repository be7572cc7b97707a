package io.github.trtrace.examples.gpucheck;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.examples.stats.Ratios;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import io.github.trtrace.tensorrt.engine.KernelRecordPolicy;
import io.github.trtrace.tensorrt.engine.TracedEngine;
import io.github.trtrace.tensorrt.internal.cupti.CuptiRecorder;
import io.github.trtrace.tensorrt.internal.cupti.KernelJoiner;
import io.github.trtrace.tensorrt.internal.cupti.RecorderStats;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;

/**
 * The kernel-record checks of {@link GpuCheck} (issue 21), on {@link BatchedChecks}' engine: with kernel records on
 * for every launch, each recorded launch's GPU activities add up to its CUDA-event time within a stated tolerance,
 * and every launch got its kernels line; the cost of records at 1 %, 10 % and 100 % of launches against off (ABBA);
 * the same with CUPTI already taken by another subscriber (a child JVM that subscribes first); and, when {@code ncu}
 * is there, that Nsight Compute filtered by one launch's NVTX range profiles exactly that launch's kernels (a child
 * JVM under {@code ncu}). The launch log with kernels lines is written to the artifacts for fixtures.
 */
final class KernelChecks {
  static final int PAST = 128;
  private final BatchedChecks batched;
  private final Path artifacts;
  /** Kernels of one B = 8, P = 128 decode launch, as recorded by {@link #sums()}: what ncu must profile. */
  private int decodeKernels = -1;
  /** ABBA blocks of the overhead table (runs 3-10: 40), and launches per block. */
  static final int BLOCKS = 100;
  /**
   * gpu_ms - (lead_in_ms + lead_out_ms + span_ms), in us: at least minus this and at most {@code start_call_ms +
   * end_call_ms} plus this. Stated before run 17 as |gpu_ms - lead_in_ms - span_ms| at most 25 us; runs 17-19 put 3 of
   * 417 launches 29-55 us above it, and runs 20-22 (the start event's call bracketed) 4 of 417 at +47 to +89 us with
   * start calls of 3-16 us: what was missing is the end event's side, the device waiting for the host to record it
   * (lead-out), carried since run 23.
   */
  static final int WINDOW_TOLERANCE_US = 25;
  static final int PER_BLOCK = 100;

  KernelChecks(BatchedChecks batched, Path artifacts) {
    this.batched = batched;
    this.artifacts = artifacts;
  }

  private ICudaEngine engine() throws GpuCheck.Skip {
    if (batched.engine() == null) {
      throw new GpuCheck.Skip("no batched engine (see the batched build)");
    }
    return batched.engine();
  }

  /**
   * Records every launch of a small mixed load (decode at B = 1, 8, 32 and prefill of 4 x 64 tokens) and checks each
   * kernels line against its launch line. What is compared: the activities' span (first start to last end), which
   * the CUDA events must contain: span <= gpu_ms + 2 us; and the window they leave over: since run 15's lines carry
   * the lead-in (from the end of the launch's first API call, the start event's record, to the first activity, on
   * CUPTI's clock), the CUDA-event time must be the lead-in plus the span within {@value #WINDOW_TOLERANCE_US} us
   * (what is left: the events' own execution, the clocks), in every launch after the process's first recorded one,
   * the first ones of each shape included (runs 17 and 18 held every launch to it: the first recorded launch came out
   * at +55 us in run 18, the only one over; it carries CUPTI's start-up and is held to the span only, as before run 15;
   * run 19, on a slower host, had 3 of 139 over, by up to 53 us: GPU-RESULTS.md, "Runs 11 to 19").
   * Runs 7-14 held gpu_ms - span to 100 us without the lead-in, and one to nine launches a run went over (by up to
   * 570 us: host work, CUPTI's and TensorRT's, between the start event and the first kernel); that figure is still
   * printed. The activities' summed durations (busy) and the host-bound wait are reported,
   * not required to fill the span: with CUPTI recording, each kernel launch costs the host more than the kernel
   * runs, so the stream idles between kernels (the first H200 run: busy 0.59 of the span at p50, with the span
   * within 37-60 us of gpu_ms). The first recorded launch of the process also carries CUPTI's start-up (20 ms in
   * that run): it is reported and not held to the 100 us, nor is the first launch after each change of input shape
   * (TensorRT's enqueue does the new shapes' host work inside the events: +111 and +992 us in run 7). Every line must also say it is complete (the recorder saw
   * all its launch's records come, {@code "complete": true}) and list at least one activity: lines marked incomplete
   * and lines written empty are counted and fail the check. Before the final (forced) flush the check waits for the
   * recorder to write the lines itself (at most its maximum wait and 3 s more), so that the forced flush does not
   * cut the last launches short. Printed too: how often the recorder toggled CUPTI's activity kinds and the time
   * that took per recorded launch (issue 21: the suspect for the ~2 ms a recorded launch costs).
   */
  String sums() throws Exception {
    ICudaEngine engine = engine();
    Path records = artifacts.resolve("kernels-records.jsonl");
    Path launches = artifacts.resolve("kernels-launches.jsonl");
    Files.deleteIfExists(records);
    Files.deleteIfExists(launches);
    SplittableRandom rnd = new SplittableRandom(21);
    int launched = 0;
    RecorderStats stats;
    try (InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(records).launchLog(launches).build();
        TracedEngine traced = TracedEngine.builder(engine).buildReport(batched.report())
            .kernelRecords(KernelRecordPolicy.builder().sampleRate(1.0).build()).build();
        BatchRows rows = new BatchRows(BatchedChecks.CONFIG, BatchedChecks.EXTENTS)) {
      for (int b : new int[] {1, 8, 32}) {
        rows.stageDecode(b, PAST, rnd);
        launched += generation(tracer, traced, rows, b, 40, "dec" + b, 0);
      }
      int n = 4;
      int[] newLen = new int[n];
      int[] pastLen = new int[n];
      int[][] tokens = new int[n][64];
      for (int r = 0; r < n; r++) {
        newLen[r] = 64;
        for (int i = 0; i < 64; i++) {
          tokens[r][i] = 1 + rnd.nextInt(BatchedChecks.CONFIG.vocab() - 1);
        }
      }
      rows.stage(n, newLen, pastLen, tokens);
      launched += generation(tracer, traced, rows, n, 20, "pre", 64);
      long deadline = System.nanoTime() + KernelJoiner.MAX_WAIT_NANOS + 3_000_000_000L;
      for (RecorderStats s = CuptiRecorder.shared().stats();
          s.launches() + s.launchesDropped() < launched && System.nanoTime() < deadline;
          s = CuptiRecorder.shared().stats()) {
        Thread.sleep(20);
      }
      traced.flushKernelRecords().get(30, TimeUnit.SECONDS);
      stats = CuptiRecorder.shared().stats();
      tracer.flush().get(30, TimeUnit.SECONDS);
    }
    if (stats.launches() == 0 && stats.activities() == 0) {
      throw new GpuCheck.Fail("no kernels line written: CUPTI recording did not start (see the log above); " + stats);
    }
    Map<Long, Line> timed = new HashMap<>();
    Map<Long, Line> busy = new TreeMap<>(); // kernels lines by launch id: the lowest is the process's first
    int incomplete = 0;
    int unmatched = 0;
    int empty = 0;
    int notJudged = 0;
    for (Line l : Line.read(launches)) {
      if (l.kernels) {
        busy.put(l.id, l);
        if (l.complete == null) {
          notJudged++;
        } else if (!l.complete) {
          incomplete++;
          unmatched += l.unmatchedCalls;
        }
        if (l.activities == 0) {
          empty++;
        }
      } else {
        timed.put(l.id, l);
      }
    }
    int within = 0;
    double worstRel = 0;
    List<String> off = new ArrayList<>();
    List<Double> gaps = new ArrayList<>();
    List<Double> busyShare = new ArrayList<>();
    Map<Integer, Integer> countsAt8 = new TreeMap<>();
    String first = "";
    Integer lastBatch = null;
    List<String> firstOfShape = new ArrayList<>();
    List<Double> residues = new ArrayList<>();
    List<Double> startCalls = new ArrayList<>();
    List<Double> leadOuts = new ArrayList<>();
    int bracketed = 0;
    int outsideOldRule = 0;
    List<Double> hostShare = new ArrayList<>();
    List<String> outsideWindow = new ArrayList<>();
    int withoutLeadIn = 0;
    String firstResidue = "n/a";
    for (Map.Entry<Long, Line> e : busy.entrySet()) {
      Line k = e.getValue();
      Line t = timed.get(e.getKey());
      if (t == null || Double.isNaN(t.gpuMs)) {
        off.add("launch " + e.getKey() + ": kernels line without a timed launch line");
        continue;
      }
      double gpuMs = t.gpuMs;
      double busyMs = k.activityMs;
      double spanMs = k.spanMs;
      int activities = k.activities;
      double gap = gpuMs - spanMs;
      boolean firstRecorded = first.isEmpty(); // the lowest launch id: the process's first recorded launch
      double leadIn = k.leadInMs;
      double leadOut = k.leadOutMs;
      double residueUs = (gpuMs - leadIn - leadOut - spanMs) * 1000;
      double oldResidueUs = (gpuMs - leadIn - spanMs) * 1000;
      if (Double.isNaN(leadIn)) {
        withoutLeadIn++;
      } else if (firstRecorded) { // CUPTI's start-up: reported apart
        firstResidue = String.format(Locale.ROOT, "%+.0f us", residueUs);
      } else {
        residues.add(residueUs);
        hostShare.add(k.hostWaitMs / gpuMs);
        double startCallUs = k.startCallMs * 1000;
        double endCallUs = k.endCallMs * 1000;
        startCalls.add(startCallUs);
        leadOuts.add(leadOut * 1000);
        boolean inBracket = residueUs >= -WINDOW_TOLERANCE_US
            && residueUs <= startCallUs + endCallUs + WINDOW_TOLERANCE_US;
        if (inBracket) {
          bracketed++;
        }
        if (Math.abs(oldResidueUs) > WINDOW_TOLERANCE_US) {
          outsideOldRule++;
        }
        if ((Math.abs(oldResidueUs) > WINDOW_TOLERANCE_US || !inBracket) && outsideWindow.size() < 8) {
          outsideWindow.add(String.format(Locale.ROOT, "launch %d (B=%s): gpu_ms %.3f, lead-in %.3f, span %.3f,"
              + " lead-out %.3f ms: %+.0f us without the lead-out, %+.0f us with it; start call %.0f, end call %.0f us%s",
              e.getKey(), t.batchSize, gpuMs, leadIn, spanMs, leadOut, oldResidueUs, residueUs, startCallUs,
              endCallUs, inBracket ? "" : " OUTSIDE"));
        }
      }
      boolean ok = spanMs <= gpuMs + 0.002 && gap <= 0.100;
      Integer b = t.batchSize;
      boolean newShape = !java.util.Objects.equals(b, lastBatch);
      lastBatch = b;
      if (firstRecorded) {
        first = String.format(Locale.ROOT, "first recorded launch: gpu_ms %.3f, span %.3f ms (CUPTI's start-up)", gpuMs,
            spanMs);
        ok = spanMs <= gpuMs + 0.002;
      } else if (newShape) {
        // the first launch after the input shapes changed: TensorRT's enqueue does the new shapes' host work between
        // the start event and the first kernel (run 7: +111 us at B = 8, +992 us at the first prefill); reported,
        // held to the span only
        firstOfShape.add(String.format(Locale.ROOT, "B=%s %+.0f us", b, gap * 1000));
        ok = spanMs <= gpuMs + 0.002;
      } else {
        gaps.add(gap * 1000);
        busyShare.add(busyMs / spanMs);
        worstRel = Math.max(worstRel, Math.abs(gap) / gpuMs);
      }
      if (ok) {
        within++;
      } else if (off.size() < 5) {
        off.add(String.format(Locale.ROOT, "launch %d: gpu_ms %.4f, span %.4f ms, activities %d busy %.4f ms", e.getKey(),
            gpuMs, spanMs, activities, busyMs));
      }
      if (t.batchSize == 8) {
        countsAt8.merge(k.kernelCount, 1, Integer::sum);
      }
    }
    decodeKernels = countsAt8.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(-1);
    double[] gs = gaps.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] bs = busyShare.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] rs = residues.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] hs = hostShare.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] cs = startCalls.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    double[] os = leadOuts.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    String window = String.format(Locale.ROOT, "CUDA-event time - (lead-in + span + lead-out) between -%d us and the"
            + " event calls + %d us in %d of %d lines after the first (%d with gpu_ms - lead_in - span outside +-%d us,"
            + " the rule of runs 17-22; start call p50 %.1f, max %.1f us; lead-out p50 %.1f, max %.1f us; gpu_ms -"
            + " lead_in - lead_out - span: min %+.1f, p50 %+.1f, max %+.1f us; %d lines without a"
            + " lead-in; the process's first recorded launch, CUPTI's start-up, held to the span only: %s); the device"
            + " waited for the host %.2f of gpu_ms at p50 (max %.2f); %s", WINDOW_TOLERANCE_US, WINDOW_TOLERANCE_US,
        bracketed, residues.size(), outsideOldRule, WINDOW_TOLERANCE_US, cs.length == 0 ? Double.NaN : cs[cs.length / 2],
        cs.length == 0 ? Double.NaN : cs[cs.length - 1], os.length == 0 ? Double.NaN : os[os.length / 2],
        os.length == 0 ? Double.NaN : os[os.length - 1], rs.length == 0 ? Double.NaN : rs[0], rs.length == 0 ? Double.NaN : rs[rs.length / 2],
        rs.length == 0 ? Double.NaN : rs[rs.length - 1], withoutLeadIn, firstResidue, hs.length == 0 ? Double.NaN : hs[hs.length / 2],
        hs.length == 0 ? Double.NaN : hs[hs.length - 1], outsideWindow);
    System.out.println("   " + window);
    String summary = String.format(Locale.ROOT, "%d launches, %d kernels lines (%d activities); %d of them with gpu_ms - span <= 100 us (no lead-in);"
            + " %d marked incomplete (%d work calls without a record), %d written empty, %d without the complete field;"
            + " gpu_ms - span: min %.1f us, p50 %.1f us, max %.1f us, max rel %.3f; busy / span p50 %.2f; %s;"
            + " first launch of each later shape (span only) %s; B=8 decode kernels per launch %s; %s; recorder %s; %s",
        launched, busy.size(), stats.activities(), within, incomplete, unmatched, empty, notJudged,
        gs.length == 0 ? Double.NaN : gs[0],
        gs.length == 0 ? Double.NaN : gs[gs.length / 2], gs.length == 0 ? Double.NaN : gs[gs.length - 1], worstRel,
        bs.length == 0 ? Double.NaN : bs[bs.length / 2], first, firstOfShape, countsAt8, toggles(stats, stats.launches()),
        stats, CuptiRecorder.shared().bufferStats());
    System.out.println("   " + summary);
    if (busy.size() != launched) {
      throw new GpuCheck.Fail("kernels lines for " + busy.size() + " of " + launched + " recorded launches; " + summary);
    }
    if (incomplete > 0 || empty > 0 || notJudged > 0) {
      throw new GpuCheck.Fail(incomplete + " kernels lines marked incomplete, " + empty + " written empty, " + notJudged
          + " without the complete field; " + summary);
    }
    if (withoutLeadIn > 0 || bracketed != residues.size() || residues.isEmpty()) {
      throw new GpuCheck.Fail(window + "; " + summary);
    }
    return window + "; (without the lead-in, gpu_ms - span <= 100 us: " + (off.isEmpty() ? "all" : off.toString())
        + ") " + summary + "; launch log in " + launches;
  }

  /**
   * The p50 of each of {@code m}'s blocks over the p50 of {@code off}'s block of the same ABBA round (run next to it,
   * so the device's drift between rounds falls on both): the median of those ratios and a 95 % bootstrap interval of
   * that median (2,000 resamples, fixed seed): "1.0012 (95 % 0.9990-1.0031, 100 blocks)". The pooled p50 ratio beside
   * it moved by about 1.5 % from run to run (runs 3-9), more than the 0.5 % goal it is read against.
   */
  static String pairedBlocks(BatchedChecks.Mode m, BatchedChecks.Mode off) {
    int blocks = Math.min(m.blocks(PER_BLOCK), off.blocks(PER_BLOCK));
    if (blocks == 0) {
      return "n/a";
    }
    double[] r = new double[blocks];
    for (int k = 0; k < blocks; k++) {
      r[k] = m.blockP(k, PER_BLOCK, 0.50) / off.blockP(k, PER_BLOCK, 0.50);
    }
    SplittableRandom rnd = new SplittableRandom(2026);
    double[] medians = new double[2000];
    double[] sample = new double[blocks];
    for (int i = 0; i < medians.length; i++) {
      for (int k = 0; k < blocks; k++) {
        sample[k] = r[rnd.nextInt(blocks)];
      }
      medians[i] = Ratios.median(sample);
    }
    double[] ci = Ratios.central95(medians);
    return String.format(Locale.ROOT, "%.4f (95 %% %.4f-%.4f, %d blocks)", Ratios.median(r), ci[0], ci[1], blocks);
  }

  /**
   * The activity kinds' toggles over {@code recorded} recorded launches: "activity kinds toggled T times in X ms: Y us
   * per recorded launch, Z us per toggle".
   */
  static String toggles(RecorderStats s, long recorded) {
    long all = s.kindToggleNanos() + s.recorderToggleNanos();
    return String.format(Locale.ROOT, "activity kinds toggled %d times in %.3f ms (%.3f ms of it on the launching"
            + " threads: %.1f us per recorded launch (%d)), %.1f us per toggle", s.kindToggles(), all / 1e6,
        s.kindToggleNanos() / 1e6, recorded == 0 ? Double.NaN : s.kindToggleNanos() / 1e3 / recorded, recorded,
        s.kindToggles() == 0 ? Double.NaN : all / 1e3 / s.kindToggles());
  }

  /**
   * {@code steps} launches of the {@code b} staged rows, as b traces: decode rows, or prefill of {@code prefill}
   * tokens each when > 0 (each launch a new set of traces then); returns steps.
   */
  private static int generation(InferenceTracer tracer, TracedEngine traced, BatchRows rows, int b, int steps,
      String name, int prefill) throws Exception {
    InferenceTrace[] members = new InferenceTrace[b];
    for (int i = 0; i < b; i++) {
      members[i] = tracer.start(BatchedChecks.MODEL, "kern-" + name + "-" + i);
    }
    for (int s = 0; s < steps; s++) {
      try (SharedLaunch step = tracer.launch(traced.fingerprint())) {
        for (InferenceTrace t : members) {
          if (prefill > 0) {
            step.prefill(t, prefill);
          } else {
            step.decode(t);
          }
        }
        if (!traced.launch(step, (ctx, stream) -> rows.bind(ctx))) {
          throw new GpuCheck.Fail("launch refused at B=" + b);
        }
      }
      for (InferenceTrace t : members) {
        t.token();
      }
    }
    for (InferenceTrace t : members) {
      t.close();
    }
    return steps;
  }

  /**
   * Per-launch wall time (bind, enqueue, wait) of a B = 8 decode launch through one traced engine whose kernel-record
   * policy is switched launch by launch ({@link Switched}), full tracing, records off / off again (A/A) / 1 % / 10 % /
   * 100 %, ABBA blocks; besides the pooled p50 ratio, the median of the paired block ratios with a bootstrap
   * interval ({@link #pairedBlocks}). Off means the policy is off:
   * no CUPTI call; CUPTI's activity kinds are disabled between recorded launches, so "off" stays off in this
   * process after the other modes started the recorder.
   */
  String overhead() throws Exception {
    return overheadTable(engine(), batched.report(), artifacts.resolve("kernels-overhead.txt"), "");
  }

  static String overheadTable(ICudaEngine engine, io.github.trtrace.tensorrt.model.build.BuildReport report, Path out,
      String label) throws Exception {
    StringBuilder sb = new StringBuilder();
    Map<String, Double> rates = new LinkedHashMap<>();
    rates.put("records off", 0.0);
    rates.put("records off A/A", 0.0); // the estimator's null: the same mode twice
    rates.put("records 1 %", 0.01);
    rates.put("records 10 %", 0.10);
    rates.put("records 100 %", 1.0);
    Path dir = Files.createTempDirectory("trtrace-kernels-ovh");
    List<TracedEngine> engines = new ArrayList<>();
    RecorderStats before = CuptiRecorder.shared().stats();
    // One engine (same slots, contexts and memory) for every mode, its policy switched per launch: runs 3-12 gave
    // each mode its own engine, and in run 12's child whose CUPTI was taken (so no mode could record) the modes
    // still differed by +0.7 to +2.3 % at p50, the engines' own difference, larger than the 0.5 % looked for.
    Switched policy = new Switched();
    try (InferenceTracer full = InferenceTracer.builder().jsonLinesFile(dir.resolve("records.jsonl"))
            .launchLog(dir.resolve("launches.jsonl")).build();
        BatchRows rows = new BatchRows(BatchedChecks.CONFIG, BatchedChecks.EXTENTS)) {
      rows.stageDecode(8, PAST, new SplittableRandom(3));
      TracedEngine.Builder b = TracedEngine.builder(engine).kernelRecords(policy);
      if (report != null) {
        b.buildReport(report);
      }
      TracedEngine t = b.build();
      engines.add(t);
      Map<String, BatchedChecks.Mode> modes = new LinkedHashMap<>();
      for (Map.Entry<String, Double> r : rates.entrySet()) {
        double rate = r.getValue();
        modes.put(r.getKey(), new BatchedChecks.Mode(() -> {
          policy.rate = rate;
          try (SharedLaunch step = full.launch(t.fingerprint())) {
            t.launch(step, (ctx, stream) -> rows.bind(ctx));
          }
        }));
      }
      for (BatchedChecks.Mode m : modes.values()) {
        for (int i = 0; i < 200; i++) {
          m.once();
        }
      }
      List<String> names = new ArrayList<>(modes.keySet());
      for (int k = 0; k < BLOCKS; k++) {
        List<String> order = new ArrayList<>(names);
        if (k % 2 == 1) {
          java.util.Collections.reverse(order); // ABBA
        }
        for (String n : order) {
          modes.get(n).block(PER_BLOCK);
        }
      }
      BatchedChecks.Mode offMode = modes.get("records off");
      for (Map.Entry<String, BatchedChecks.Mode> e : modes.entrySet()) {
        BatchedChecks.Mode m = e.getValue();
        sb.append(String.format(Locale.ROOT, "%sB=8 %-14s p50 %.2f us  p99 %.2f us  mean %.2f us  p50/off %.4f  p99/off %.4f"
                + "  paired blocks p50/off %s%n", label, e.getKey(), m.p(0.50), m.p(0.99), m.mean(),
            m.p(0.50) / offMode.p(0.50), m.p(0.99) / offMode.p(0.99), pairedBlocks(m, offMode)));
      }
      for (TracedEngine e : engines) {
        e.flushKernelRecords().get(30, TimeUnit.SECONDS);
      }
    } finally {
      for (TracedEngine t : engines) {
        t.close();
      }
    }
    RecorderStats after = CuptiRecorder.shared().stats();
    RecorderStats delta = new RecorderStats(after.launches() - before.launches(), 0, 0, 0, 0, 0, 0, 0, 0, 0,
        after.launchesIncomplete() - before.launchesIncomplete(), after.kindToggles() - before.kindToggles(),
        after.kindToggleNanos() - before.kindToggleNanos(), after.recorderToggleNanos() - before.recorderToggleNanos());
    sb.append(label).append("recorder: ").append(after).append('\n');
    sb.append(label).append("these blocks: ").append(delta.launches()).append(" kernels lines (")
        .append(delta.launchesIncomplete()).append(" incomplete); ").append(toggles(delta, delta.launches())).append('\n');
    sb.append(label).append("buffers: ").append(CuptiRecorder.shared().bufferStats()).append('\n');
    Files.writeString(out, sb.toString());
    sb.toString().lines().forEach(l -> System.out.println("   " + l));
    return "see above (" + BLOCKS + " ABBA blocks x " + PER_BLOCK + " launches per mode, B=8 decode, P=" + PAST
        + ", full tracing)";
  }

  /** The overhead modes in a child JVM that took CUPTI first (its own subscriber): records must stay off, at no cost. */
  String taken() throws Exception {
    engine();
    Path out = artifacts.resolve("kernels-taken.txt");
    Process p = new ProcessBuilder(javaCommand(List.of(KernelProbe.class.getName(), "taken", batched.plan().toString(),
        artifacts.toString()))).redirectErrorStream(true).start();
    String text = drain(p, 300);
    Files.writeString(out, text);
    text.lines().filter(l -> l.contains("taken B=8") || l.contains("kernel records are off") || l.startsWith("PROBE")
            || l.startsWith("probe:"))
        .forEach(l -> System.out.println("   " + l));
    if (p.exitValue() != 0 || !text.contains("PROBE taken PASS")) {
      throw new GpuCheck.Fail("child (CUPTI taken first) exit " + p.exitValue() + ": " + tail(text));
    }
    if (!text.contains("another CUPTI subscriber is attached")) {
      throw new GpuCheck.Fail("the child did not say that CUPTI was taken: " + tail(text));
    }
    return "child JVM subscribed first: records said off once, no kernels line, the engine served; figures above";
  }

  /**
   * Nsight Compute filtered by one launch's NVTX range ({@code --nvtx-include "trtrace launch <id>/"}) profiles
   * exactly that launch's kernels: as many as the kernel records of a B = 8 decode launch; and a request's start/end
   * range ({@code "trtrace request <id>"}) selects the kernels of the launches that carried it.
   */
  String ncu() throws Exception {
    engine();
    String ncu = findNcu();
    if (ncu == null) {
      throw new GpuCheck.Skip("ncu not on PATH nor in /usr/local/cuda/bin or /opt/nvidia/nsight-compute");
    }
    if (decodeKernels <= 0) {
      throw new GpuCheck.Skip("no kernel count of a B=8 decode launch from the records check");
    }
    StringBuilder detail = new StringBuilder();
    long target = KernelProbe.launchId(KernelProbe.TARGET);
    int byLaunch = profiled(ncu, "trtrace launch " + target + "/", "kernels-ncu-launch.txt");
    // the probe's request "ncu-req" rides launches 2 and 5 (KernelProbe.REQUEST_LAUNCHES)
    int byRequest = profiled(ncu, "trtrace request " + KernelProbe.REQUEST, "kernels-ncu-request.txt");
    detail.append(String.format(Locale.ROOT, "ncu %s: range \"trtrace launch %d/\" profiled %d kernels (records: %d per B=8"
        + " decode launch); range \"trtrace request %s\" profiled %d (expected %d = %d launches)", ncu, target, byLaunch,
        decodeKernels, KernelProbe.REQUEST, byRequest, KernelProbe.REQUEST_LAUNCHES.length * decodeKernels,
        KernelProbe.REQUEST_LAUNCHES.length));
    System.out.println("   " + detail);
    if (byLaunch != decodeKernels || byRequest != KernelProbe.REQUEST_LAUNCHES.length * decodeKernels) {
      throw new GpuCheck.Fail(detail.toString());
    }
    return detail.toString();
  }

  private int profiled(String ncu, String range, String file) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(ncu, "--nvtx", "--nvtx-include", range, "--metrics",
        "gpu__time_duration.sum", "--target-processes", "all"));
    cmd.addAll(javaCommand(List.of("-Dtrtrace.nvtx=on", KernelProbe.class.getName(), "ncu", batched.plan().toString(),
        artifacts.toString())));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String text = drain(p, 240);
    Files.writeString(artifacts.resolve(file), String.join(" ", cmd) + "\n" + text);
    if (p.exitValue() != 0 || !text.contains("PROBE ncu PASS")) {
      throw new GpuCheck.Fail("ncu child exit " + p.exitValue() + " for " + range + ": " + tail(text));
    }
    return (int) text.lines().filter(l -> l.startsWith("==PROF== Profiling")).count();
  }

  static String findNcu() {
    List<String> candidates = new ArrayList<>();
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      candidates.add(d + "/ncu");
    }
    candidates.add("/usr/local/cuda/bin/ncu");
    File opt = new File("/opt/nvidia/nsight-compute");
    String[] versions = opt.list();
    if (versions != null) {
      Arrays.sort(versions);
      for (int i = versions.length - 1; i >= 0; i--) {
        candidates.add(opt + "/" + versions[i] + "/ncu");
      }
    }
    for (String c : candidates) {
      File f = new File(c);
      if (f.isFile() && f.canExecute()) {
        return f.getAbsolutePath();
      }
    }
    return null;
  }

  private static List<String> javaCommand(List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx4g");
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.addAll(args);
    return cmd;
  }

  private static String drain(Process p, int timeoutSeconds) throws Exception {
    StringBuilder sb = new StringBuilder();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String l; (l = r.readLine()) != null; ) {
          synchronized (sb) {
            sb.append(l).append('\n');
          }
        }
      } catch (IOException e) {
        synchronized (sb) {
          sb.append("(reading the child's output failed: ").append(e).append(")\n");
        }
      }
    });
    reader.start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    reader.join(10_000);
    synchronized (sb) {
      return sb.toString();
    }
  }

  private static String tail(String text) {
    List<String> lines = text.lines().toList();
    return String.join(" | ", lines.subList(Math.max(0, lines.size() - 12), lines.size()));
  }

  /** What the check reads of a launch-log line: a launch line or a kernels line. */
  static final class Line {
    long id = -1;
    boolean kernels;
    double gpuMs = Double.NaN;
    int batchSize;
    int kernelCount;
    int activities;
    double activityMs;
    double spanMs = Double.NaN;
    /** A kernels line's {@code complete} field; null when absent (a line of an older version). */
    Boolean complete;
    int unmatchedCalls;
    double leadInMs = Double.NaN;
    double hostWaitMs = Double.NaN;
    double startCallMs = Double.NaN;
    double leadOutMs = Double.NaN;
    double endCallMs = Double.NaN;

    static List<Line> read(Path file) throws IOException {
      JsonFactory f = new JsonFactory();
      List<Line> out = new ArrayList<>();
      for (String s : Files.readAllLines(file)) {
        Line l = new Line();
        try (JsonParser p = f.createParser(s)) {
          p.nextToken();
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            switch (name) {
              case "launch_id" -> l.id = p.getLongValue();
              case "gpu_ms" -> l.gpuMs = p.getDoubleValue();
              case "batch_size" -> l.batchSize = p.getIntValue();
              case "kernel_count" -> l.kernelCount = p.getIntValue();
              case "span_ms" -> l.spanMs = p.getDoubleValue();
              case "complete" -> l.complete = t == JsonToken.VALUE_TRUE;
              case "unmatched_calls" -> l.unmatchedCalls = p.getIntValue();
              case "lead_in_ms" -> l.leadInMs = p.getDoubleValue();
              case "host_wait_ms" -> l.hostWaitMs = p.getDoubleValue();
              case "start_call_ms" -> l.startCallMs = p.getDoubleValue();
              case "lead_out_ms" -> l.leadOutMs = p.getDoubleValue();
              case "end_call_ms" -> l.endCallMs = p.getDoubleValue();
              case "kernels" -> {
                l.kernels = true;
                while (p.nextToken() == JsonToken.START_OBJECT) {
                  while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String k = p.currentName();
                    p.nextToken();
                    if (k.equals("ms")) {
                      l.activityMs += p.getDoubleValue();
                      l.activities++;
                    } else {
                      p.skipChildren();
                    }
                  }
                }
              }
              default -> {
                if (t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) {
                  p.skipChildren();
                }
              }
            }
          }
        }
        out.add(l);
      }
      return out;
    }
  }

  /**
   * A kernel-record policy whose rate the overhead table sets before each launch, so that every mode runs on one
   * engine. Rate 0 is off as {@link KernelRecordPolicy#off()} is: {@code enabled()} false, nothing else asked.
   */
  static final class Switched implements KernelRecordPolicy {
    private final SplittableRandom random = new SplittableRandom(7); // one launching thread
    volatile double rate;

    @Override
    public boolean shouldRecord(SharedLaunch launch) {
      return random.nextDouble() < rate;
    }

    @Override
    public boolean enabled() {
      return rate > 0;
    }

    @Override
    public @org.jspecify.annotations.Nullable String requestId() {
      return null;
    }
  }
}
