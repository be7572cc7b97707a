package io.github.trtrace.examples.gpucheck;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.examples.tensorrt.Generation;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import io.github.trtrace.tensorrt.build.TracedBuilder;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.cuda.GpuTimer;
import io.github.trtrace.tensorrt.engine.ProfilingPolicy;
import io.github.trtrace.tensorrt.engine.TracedEngine;
import io.github.trtrace.tensorrt.internal.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import io.github.trtrace.tensorrt.log.TensorRtLogger;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.IBuilder;
import org.bytedeco.tensorrt.nvinfer.IBuilderConfig;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;
import org.bytedeco.tensorrt.nvinfer.INetworkDefinition;
import org.bytedeco.tensorrt.nvinfer.IRuntime;

/**
 * The batched checks of {@link GpuCheck}: the transformer built with a batch dimension
 * ({@link TransformerNetwork#defineBatched}) and served through {@link TracedEngine#launch(SharedLaunch,
 * TracedEngine.Binder)} — one launch for many requests' rows, timed once with CUDA events, each member's
 * share attributed by the core. Checks: batched rows equal single launches; a served load by continuous
 * batching (prefill rows of arriving requests mixed into the running requests' decode launches, padded) whose
 * launch log and records conserve every launch's measured GPU time; decode and prefill tokens/s by batch
 * size; a failing launch marking exactly its members under concurrent launches on four contexts; and the
 * per-launch cost of tracing against a raw context. Artifacts (launch log, records) go to {@code artifacts}.
 */
final class BatchedChecks implements AutoCloseable {
  static final TransformerNetwork.Config CONFIG = TransformerNetwork.DEFAULT;
  static final TransformerNetwork.Batch EXTENTS = new TransformerNetwork.Batch(64, 128, 512);
  static final String MODEL = "transformer-batched";
  private static final int BYTES_PER_PAST_POSITION = CONFIG.heads() * CONFIG.headDim() * 4;

  private final TensorRtLogger logger;
  private final Path artifacts;
  private final Path dir;
  private IRuntime runtime;
  private ShimErrorRecorder runtimeRecorder;
  private ICudaEngine engine;
  private BuildReport report;

  BatchedChecks(TensorRtLogger logger, Path artifacts) throws IOException {
    this.logger = logger;
    this.artifacts = Files.createDirectories(artifacts);
    this.dir = Files.createTempDirectory("trtrace-batched");
  }

  /** Builds the batched network (FP16, optimisation level 1) through TracedBuilder and deserialises it. */
  String build() throws Exception {
    Path plan = dir.resolve(MODEL + ".plan");
    long t0 = System.nanoTime();
    try (TracedBuilder tb = TracedBuilder.create(logger)) {
      IBuilder builder = tb.builder();
      INetworkDefinition net = builder.createNetworkV2(0);
      TransformerNetwork t = TransformerNetwork.defineBatched(net, CONFIG, TransformerChecks.SEED, EXTENTS);
      IBuilderConfig config = builder.createBuilderConfig();
      config.setFlag(nvinfer.BuilderFlag.kFP16);
      config.setBuilderOptimizationLevel(1);
      t.addProfile(builder, config);
      TracedBuilder.Result r = tb.build(MODEL, net, config, plan);
      t.releaseWeights();
      TensorRtObjects.destroy(config);
      TensorRtObjects.destroy(net);
      report = r.report();
      Files.copy(TracedBuilder.reportPath(plan), artifacts.resolve(MODEL + ".plan.build.json"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      if (!r.succeeded()) {
        throw new GpuCheck.Fail("batched build failed: " + report.errors());
      }
    }
    double buildS = (System.nanoTime() - t0) / 1e9;
    runtime = nvinfer.createInferRuntime(logger);
    runtimeRecorder = ShimErrorRecorder.create();
    runtime.setErrorRecorder(runtimeRecorder.asTensorRt());
    byte[] bytes = Files.readAllBytes(plan);
    try (BytePointer data = new BytePointer(bytes)) {
      engine = runtime.deserializeCudaEngine(data, bytes.length);
    }
    if (engine == null || engine.isNull()) {
      throw new GpuCheck.Fail("the batched plan did not deserialise: " + runtimeRecorder.drain());
    }
    return String.format(Locale.ROOT, "built in %.1f s, %d engine layers, plan %.1f MB, fingerprint %.19s; profile B 1..%d,"
        + " S 1..%d, P 0..%d", buildS, report.layers().size(), report.planBytes() / 1e6, report.engineFingerprint(),
        EXTENTS.maxRows(), EXTENTS.maxStep(), EXTENTS.maxPast());
  }

  /** The built engine, or null before {@link #build()} or when it failed (for {@link KernelChecks}). */
  ICudaEngine engine() {
    return engine;
  }

  BuildReport report() {
    return report;
  }

  /** Where {@link #build()} wrote the plan (a child process deserialises it). */
  Path plan() {
    return dir.resolve(MODEL + ".plan");
  }

  private void needEngine() throws GpuCheck.Skip {
    if (engine == null) {
      throw new GpuCheck.Skip("no batched engine (see the batched build)");
    }
  }

  /**
   * Eight decode rows with their own caches in one launch give, row by row, the logits of eight launches of
   * one row each (the same cache bytes bound at the row's offset).
   */
  String rowsMatchSingles() throws Exception {
    needEngine();
    int n = 8;
    int p = 64;
    SplittableRandom rnd = new SplittableRandom(7);
    IExecutionContext ctx = engine.createExecutionContext();
    try (BatchRows rows = new BatchRows(CONFIG, EXTENTS); CudaStream stream = CudaStream.createNonBlocking()) {
      int perTensor = n * CONFIG.heads() * p * CONFIG.headDim();
      for (int i = 0; i < 2 * CONFIG.blocks(); i++) {
        float[] v = new float[perTensor];
        for (int k = 0; k < v.length; k++) {
          v[k] = (float) ((rnd.nextDouble() * 2 - 1) * 0.5);
        }
        rows.fillPast(i, v);
      }
      int[] newLen = new int[n];
      int[] pastLen = new int[n];
      int[][] tok = new int[n][1];
      for (int r = 0; r < n; r++) {
        newLen[r] = 1;
        pastLen[r] = p;
        tok[r][0] = 1 + rnd.nextInt(CONFIG.vocab() - 1);
      }
      rows.stage(n, newLen, pastLen, tok);
      rows.bind(ctx);
      run(ctx, stream);
      float[][] batched = new float[n][];
      for (int r = 0; r < n; r++) {
        batched[r] = rows.logits(r, 0);
      }
      double worst = 0;
      double scale = 0;
      for (int r = 0; r < n; r++) {
        rows.stage(1, new int[] {1}, new int[] {p}, new int[][] {tok[r]});
        rows.bind(ctx, r, p * BYTES_PER_PAST_POSITION);
        run(ctx, stream);
        float[] single = rows.logits(0, 0);
        worst = Math.max(worst, Generation.maxAbsDiff(batched[r], single));
        scale = Math.max(scale, Generation.maxAbs(single));
        if (Generation.argmax(batched[r]) != Generation.argmax(single)) {
          throw new GpuCheck.Fail("row " + r + ": argmax " + Generation.argmax(batched[r]) + " batched vs "
              + Generation.argmax(single) + " alone");
        }
      }
      if (worst > 0.02 * Math.max(1, scale)) {
        throw new GpuCheck.Fail(String.format(Locale.ROOT, "rows differ from singles by %.4g (logits up to %.3g)", worst, scale));
      }
      return String.format(Locale.ROOT, "8 rows after 64 cached positions: same argmax as 8 single launches, max |diff| %.3g"
          + " (FP16; logits up to %.3g)", worst, scale);
    } finally {
      TensorRtObjects.destroy(ctx);
    }
  }

  private static void run(IExecutionContext ctx, CudaStream stream) throws GpuCheck.Fail {
    if (!ctx.enqueueV3(stream.handle())) {
      throw new GpuCheck.Fail("enqueueV3 refused");
    }
    stream.synchronize();
  }

  /** One request of the served load. */
  private static final class Req {
    final InferenceTrace trace;
    final int promptLen;
    final int outLen;
    final long arrivalNanos;
    int past;
    int produced;

    Req(InferenceTrace trace, int promptLen, int outLen, long arrivalNanos) {
      this.trace = trace;
      this.promptLen = promptLen;
      this.outLen = outLen;
      this.arrivalNanos = arrivalNanos;
    }
  }

  /**
   * A served load by continuous batching on one context, with the third field case in it: short requests
   * (prompts of 8-31 tokens, 24-39 new tokens) arrive every 5 ms; between 250 and 450 ms a 128-token prompt also
   * arrives every 5 ms, so the requests decoding then share their steps with long prefills. At most 32 run;
   * each launch carries every running request's decode row and up to 4 arriving prompts (whole), padded to the
   * launch's longest row and split by rows (a padded launch computes every row over S positions). Then, from
   * the files alone: every launch's member shares add up to its CUDA-event time; every record's {@code gpu_ms}
   * is the sum of its shares in the launch log. {@code trtrace explain} on the two files names the culprits
   * (run it on the artifacts).
   */
  String servedLoad() throws Exception {
    needEngine();
    Path records = artifacts.resolve("batched-records.jsonl");
    Path launches = artifacts.resolve("batched-launches.jsonl");
    Files.deleteIfExists(records);
    Files.deleteIfExists(launches);
    int shortCount = 240;
    long gapNanos = 5_000_000L;
    long longFrom = 250_000_000L;
    long longTo = 450_000_000L;
    int longCount = (int) ((longTo - longFrom) / gapNanos);
    int total = shortCount + longCount;
    int maxRunning = 32;
    int admitPerLaunch = 4;
    SplittableRandom rnd = new SplittableRandom(11);
    int launchCount = 0;
    int mixed = 0;
    long wallStart;
    long wallEnd;
    try (InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(records).launchLog(launches).build();
        TracedEngine traced = TracedEngine.builder(engine).logPipeline(logger.pipeline()).buildReport(report).build();
        BatchRows rows = new BatchRows(CONFIG, EXTENTS)) {
      long start = System.nanoTime();
      wallStart = start;
      Deque<Req> waiting = new ArrayDeque<>();
      List<Req> running = new ArrayList<>();
      // the arrival schedule: short requests every 5 ms; long prompts every 5 ms (offset 2.5 ms) in the window
      long[] due = new long[total];
      boolean[] isLong = new boolean[total];
      {
        int i = 0;
        int k = 0;
        for (int sIdx = 0; sIdx < shortCount; sIdx++) {
          long at = sIdx * gapNanos;
          while (k < longCount && longFrom + k * gapNanos + gapNanos / 2 < at) {
            due[i] = start + longFrom + k * gapNanos + gapNanos / 2;
            isLong[i++] = true;
            k++;
          }
          due[i++] = start + at;
        }
        while (k < longCount) {
          due[i] = start + longFrom + k * gapNanos + gapNanos / 2;
          isLong[i++] = true;
          k++;
        }
      }
      int arrived = 0;
      int finished = 0;
      while (finished < total) {
        long now = System.nanoTime();
        while (arrived < total && due[arrived] <= now) {
          int len = isLong[arrived] ? 128 : 8 + rnd.nextInt(24);
          InferenceTrace t = tracer.start(MODEL, String.format(Locale.ROOT, isLong[arrived] ? "req-long%03d" : "req-b%03d", arrived));
          t.inputTokens(len);
          t.waitingForSlot();
          waiting.add(new Req(t, len, isLong[arrived] ? 4 : 24 + rnd.nextInt(16), now));
          arrived++;
        }
        List<Req> admitted = new ArrayList<>();
        while (!waiting.isEmpty() && running.size() + admitted.size() < maxRunning && admitted.size() < admitPerLaunch) {
          admitted.add(waiting.poll());
        }
        if (running.isEmpty() && admitted.isEmpty()) {
          Thread.onSpinWait();
          continue;
        }
        int n = running.size() + admitted.size();
        int[] newLen = new int[n];
        int[] pastLen = new int[n];
        int[][] tok = new int[n][];
        List<Req> members = new ArrayList<>(running);
        members.addAll(admitted);
        try (SharedLaunch step = tracer.launch(traced.fingerprint())) {
          for (int r = 0; r < n; r++) {
            Req q = members.get(r);
            if (r < running.size()) {
              step.decode(q.trace);
              newLen[r] = 1;
            } else {
              step.prefill(q.trace, q.promptLen);
              newLen[r] = q.promptLen;
            }
            pastLen[r] = Math.min(q.past, EXTENTS.maxPast());
            tok[r] = new int[newLen[r]];
            for (int i = 0; i < newLen[r]; i++) {
              tok[r][i] = 1 + rnd.nextInt(CONFIG.vocab() - 1);
            }
          }
          step.shareBy(SharedLaunch.ShareMethod.ROWS);
          rows.stage(n, newLen, pastLen, tok);
          if (!traced.launch(step, (ctx, stream) -> rows.bind(ctx))) {
            throw new GpuCheck.Fail("launch " + step.id() + " failed");
          }
        }
        launchCount++;
        if (!admitted.isEmpty() && !running.isEmpty()) {
          mixed++;
        }
        for (int r = 0; r < n; r++) {
          Req q = members.get(r);
          q.past += newLen[r];
          q.produced++;
          q.trace.token();
        }
        running.addAll(admitted);
        for (int r = running.size() - 1; r >= 0; r--) {
          Req q = running.get(r);
          if (q.produced >= q.outLen) {
            q.trace.outputTokens(q.produced);
            q.trace.close();
            running.remove(r);
            finished++;
          }
        }
      }
      wallEnd = System.nanoTime();
      tracer.flush().get(30, TimeUnit.SECONDS);
    }
    return verifyConservation(records, launches, total, launchCount, mixed, (wallEnd - wallStart) / 1e9);
  }

  /** Reads the two files back and checks every launch and every record. */
  private String verifyConservation(Path records, Path launches, int total, int launchCount, int mixed, double wallS)
      throws Exception {
    JsonFactory json = new JsonFactory();
    Map<String, Double> sharesByRequest = new HashMap<>();
    int lines = 0;
    double worstLaunch = 0;
    double gpuTotal = 0;
    int maxBatch = 0;
    for (String line : Files.readAllLines(launches)) {
      lines++;
      double gpu = Double.NaN;
      double sum = 0;
      int members = 0;
      try (JsonParser p = json.createParser(line)) {
        p.nextToken();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String f = p.currentName();
          p.nextToken();
          if (f.equals("gpu_ms")) {
            gpu = p.getDoubleValue();
          } else if (f.equals("members")) {
            while (p.nextToken() == JsonToken.START_OBJECT) {
              String id = null;
              double share = 0;
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String g = p.currentName();
                p.nextToken();
                if (g.equals("request_id")) {
                  id = p.getText();
                } else if (g.equals("share_ms")) {
                  share = p.getDoubleValue();
                } else {
                  p.skipChildren();
                }
              }
              sum += share;
              members++;
              sharesByRequest.merge(id, share, Double::sum);
            }
          } else {
            p.skipChildren();
          }
        }
      }
      if (Double.isNaN(gpu)) {
        throw new GpuCheck.Fail("launch line without gpu_ms: " + line);
      }
      gpuTotal += gpu;
      maxBatch = Math.max(maxBatch, members);
      double off = Math.abs(sum - gpu);
      worstLaunch = Math.max(worstLaunch, off);
      if (off > 0.0005 * (members + 1)) {
        throw new GpuCheck.Fail("launch shares add up to " + sum + ", not its gpu_ms " + gpu + ": " + line);
      }
    }
    if (lines != launchCount) {
      throw new GpuCheck.Fail(lines + " launch lines for " + launchCount + " launches");
    }
    double worstRecord = 0;
    int recs = 0;
    for (String line : Files.readAllLines(records)) {
      recs++;
      String id = null;
      double gpu = Double.NaN;
      int launchesOf = 0;
      try (JsonParser p = json.createParser(line)) {
        p.nextToken();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String f = p.currentName();
          p.nextToken();
          switch (f) {
            case "request_id" -> id = p.getText();
            case "gpu_ms" -> gpu = p.getDoubleValue();
            case "launch_count" -> launchesOf = p.getIntValue();
            default -> p.skipChildren();
          }
        }
      }
      Double shares = sharesByRequest.get(id);
      if (shares == null || Double.isNaN(gpu)) {
        throw new GpuCheck.Fail("record " + id + " has no launches in the log or no gpu_ms: " + line);
      }
      double off = Math.abs(shares - gpu);
      worstRecord = Math.max(worstRecord, off);
      if (off > 0.0005 * (launchesOf + 1)) {
        throw new GpuCheck.Fail("record " + id + " gpu_ms " + gpu + " but its shares in the launch log add up to " + shares);
      }
    }
    if (recs != total) {
      throw new GpuCheck.Fail(recs + " records for " + total + " requests");
    }
    return String.format(Locale.ROOT, "%d requests, %d launches (%d mixed prefill+decode, batch up to %d) in %.2f s,"
        + " GPU %.1f ms: every launch's shares = its gpu_ms (worst |diff| %.4f ms), every record's gpu_ms = its shares"
        + " in the launch log (worst %.4f ms)", total, launchCount, mixed, maxBatch, wallS, gpuTotal, worstLaunch, worstRecord);
  }

  /** Decode rows/s and prefill tokens/s by batch size, from CUDA-event times of raw launches (no tracing). */
  String throughput() throws Exception {
    needEngine();
    StringBuilder out = new StringBuilder();
    SplittableRandom rnd = new SplittableRandom(3);
    IExecutionContext ctx = engine.createExecutionContext();
    try (BatchRows rows = new BatchRows(CONFIG, EXTENTS); CudaStream stream = CudaStream.createNonBlocking();
        GpuTimer timer = GpuTimer.create(stream)) {
      double base = 0;
      for (int b : new int[] {1, 8, 32, 64}) {
        rows.stageDecode(b, 256, rnd);
        double ms = medianGpuMs(ctx, stream, timer, rows, 200);
        double perS = b / (ms / 1e3);
        if (b == 1) {
          base = perS;
        }
        out.append(String.format(Locale.ROOT, "decode B=%d (P=256): %.3f ms/launch, %.0f tokens/s (x%.1f of B=1)%n",
            b, ms, perS, perS / base));
      }
      for (int[] bs : new int[][] {{1, 128}, {8, 128}, {32, 128}}) {
        int b = bs[0];
        int s = bs[1];
        int[] newLen = new int[b];
        int[] pastLen = new int[b];
        int[][] tok = new int[b][s];
        Arrays.fill(newLen, s);
        for (int[] t : tok) {
          for (int i = 0; i < s; i++) {
            t[i] = 1 + rnd.nextInt(CONFIG.vocab() - 1);
          }
        }
        rows.stage(b, newLen, pastLen, tok);
        double ms = medianGpuMs(ctx, stream, timer, rows, 50);
        out.append(String.format(Locale.ROOT, "prefill B=%d x S=%d: %.3f ms/launch, %.0f tokens/s%n", b, s, ms, b * s / (ms / 1e3)));
      }
    } finally {
      TensorRtObjects.destroy(ctx);
    }
    Files.writeString(artifacts.resolve("batched-throughput.txt"), out.toString());
    out.toString().lines().forEach(l -> System.out.println("   " + l));
    return "see above (CUDA-event median of 200 decode / 50 prefill launches each)";
  }

  /** One launch between the timer's CUDA events, waited for; its device time in ms. */
  static float timedRun(IExecutionContext ctx, CudaStream stream, GpuTimer timer) throws GpuCheck.Fail {
    timer.start();
    if (!ctx.enqueueV3(stream.handle())) {
      throw new GpuCheck.Fail("enqueueV3 refused");
    }
    timer.stop();
    stream.synchronize();
    return timer.elapsedMsCompleted();
  }

  private static double medianGpuMs(IExecutionContext ctx, CudaStream stream, GpuTimer timer, BatchRows rows, int n)
      throws GpuCheck.Fail {
    rows.bind(ctx);
    for (int i = 0; i < 10; i++) {
      run(ctx, stream);
    }
    double[] ms = new double[n];
    for (int i = 0; i < n; i++) {
      ms[i] = timedRun(ctx, stream, timer);
    }
    Arrays.sort(ms);
    return ms[n / 2];
  }

  /**
   * Four scheduler threads, one context each, 40 launches of 8 decode rows each; one launch of thread 2 asks
   * for more rows than the profile allows. Exactly that launch's 8 members carry TensorRT's error and the
   * launch's id; the other 1,272 records are successes.
   */
  String failingLaunch() throws Exception {
    needEngine();
    int threads = 4;
    int steps = 40;
    int b = 8;
    Path records = artifacts.resolve("batched-failure-records.jsonl");
    Files.deleteIfExists(records);
    long[] failedId = {-1};
    try (InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(records).build();
        TracedEngine traced = TracedEngine.builder(engine).contexts(threads).logPipeline(logger.pipeline())
            .buildReport(report).build()) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> fs = new ArrayList<>();
      for (int th = 0; th < threads; th++) {
        int thread = th;
        fs.add(pool.submit(() -> {
          SplittableRandom rnd = new SplittableRandom(100 + thread);
          try (BatchRows rows = new BatchRows(CONFIG, new TransformerNetwork.Batch(b, 1, 128))) {
            for (int s = 0; s < steps; s++) {
              List<InferenceTrace> members = new ArrayList<>();
              for (int m = 0; m < b; m++) {
                members.add(tracer.start(MODEL, String.format(Locale.ROOT, "req-t%d-s%02d-m%d", thread, s, m)));
              }
              boolean bad = thread == 2 && s == 17;
              try (SharedLaunch step = tracer.launch(traced.fingerprint())) {
                members.forEach(step::decode);
                rows.stageDecode(b, 64, rnd);
                if (bad) {
                  rows.stageOutOfProfile(EXTENTS.maxRows() + 1);
                  synchronized (failedId) {
                    failedId[0] = step.id();
                  }
                }
                boolean ok;
                try {
                  ok = traced.launch(step, (ctx, stream) -> rows.bind(ctx));
                } catch (IllegalArgumentException refused) {
                  ok = false;
                }
                if (ok == bad) {
                  throw new IllegalStateException("launch " + step.id() + " ok=" + ok + " but bad=" + bad);
                }
              }
              members.forEach(InferenceTrace::close);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();
      tracer.flush().get(30, TimeUnit.SECONDS);
    }
    JsonFactory json = new JsonFactory();
    int errors = 0;
    int ok = 0;
    String errorType = null;
    for (String line : Files.readAllLines(records)) {
      String id = null;
      String status = null;
      String type = null;
      long failedLaunch = -1;
      try (JsonParser p = json.createParser(line)) {
        p.nextToken();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String f = p.currentName();
          p.nextToken();
          switch (f) {
            case "request_id" -> id = p.getText();
            case "status" -> status = p.getText();
            case "error_type" -> type = p.getText();
            case "failed_launch_id" -> failedLaunch = p.getLongValue();
            default -> p.skipChildren();
          }
        }
      }
      boolean member = id.startsWith("req-t2-s17-");
      if (member) {
        if (!"error".equals(status) || failedLaunch != failedId[0] || type == null) {
          throw new GpuCheck.Fail("member of the failed launch " + failedId[0] + " not marked: " + line);
        }
        errorType = type;
        errors++;
      } else {
        if (!"success".equals(status) || type != null) {
          throw new GpuCheck.Fail("a request outside the failed launch was marked: " + line);
        }
        ok++;
      }
    }
    if (errors != b || ok != threads * steps * b - b) {
      throw new GpuCheck.Fail(errors + " marked and " + ok + " clean records, expected " + b + " and " + (threads * steps * b - b));
    }
    return String.format(Locale.ROOT, "launch %d (thread 2, 65 rows > profile max 64): its %d members %s with failed_launch_id;"
        + " the other %d records of 4 threads x 4 contexts clean", failedId[0], errors, errorType, ok);
  }

  /**
   * Per-launch wall time of one decode launch (bind, enqueue, wait) in five modes taking turns block by block:
   * a raw context; a raw context with a CUDA event pair read back (what timing alone costs); the traced engine
   * with the no-op tracer; with full tracing; and the single-request form with full tracing (B = 1 only).
   */
  String overhead() throws Exception {
    needEngine();
    StringBuilder out = new StringBuilder();
    Path records = dir.resolve("overhead-records.jsonl");
    try (InferenceTracer full = InferenceTracer.builder().jsonLinesFile(records).launchLog(dir.resolve("overhead-launches.jsonl")).build();
        InferenceTracer noop = InferenceTracer.noop();
        TracedEngine traced = TracedEngine.builder(engine).buildReport(report).build();
        BatchRows rows = new BatchRows(CONFIG, EXTENTS);
        CudaStream rawStream = CudaStream.createNonBlocking();
        GpuTimer rawTimer = GpuTimer.create(rawStream)) {
      IExecutionContext raw = engine.createExecutionContext();
      // what TracedEngine's slots use: a context over activation memory it allocated (shared by the slot's
      // plain and profiled contexts)
      IExecutionContext rawUser = engine.createExecutionContext(nvinfer.ExecutionContextAllocationStrategy.kUSER_MANAGED);
      io.github.trtrace.tensorrt.cuda.DeviceMemory activations =
          io.github.trtrace.tensorrt.cuda.DeviceMemory.allocate(engine.getDeviceMemorySizeV2());
      rawUser.setDeviceMemoryV2(activations.pointer(), activations.bytes());
      // Ablations of a slot without TracedEngine's Java path (issue 18 item 4: where the engine path's cost is):
      // a second context over the same activation block, as a slot's plain and profiled contexts share one;
      // a raw context with the slot's error recorder attached and drained after each launch; and both with the
      // CUDA event pair, which is everything a slot does around an unprofiled launch.
      io.github.trtrace.tensorrt.cuda.DeviceMemory pairMemory =
          io.github.trtrace.tensorrt.cuda.DeviceMemory.allocate(engine.getDeviceMemorySizeV2());
      IExecutionContext pairA = engine.createExecutionContext(nvinfer.ExecutionContextAllocationStrategy.kUSER_MANAGED);
      IExecutionContext pairB = engine.createExecutionContext(nvinfer.ExecutionContextAllocationStrategy.kUSER_MANAGED);
      pairA.setDeviceMemoryV2(pairMemory.pointer(), pairMemory.bytes());
      pairB.setDeviceMemoryV2(pairMemory.pointer(), pairMemory.bytes());
      ShimErrorRecorder rawRecorder = ShimErrorRecorder.create();
      IExecutionContext rawRecorded = engine.createExecutionContext();
      rawRecorded.setErrorRecorder(rawRecorder.asTensorRt());
      pairA.setErrorRecorder(rawRecorder.asTensorRt());
      pairB.setErrorRecorder(rawRecorder.asTensorRt());
      SplittableRandom rnd = new SplittableRandom(5);
      for (int b : new int[] {1, 8}) {
        rows.stageDecode(b, 128, rnd);
        Map<String, Mode> modes = new LinkedHashMap<>();
        modes.put("raw", new Mode(() -> {
          rows.bind(raw);
          run(raw, rawStream);
        }));
        modes.put("raw + CUDA events", new Mode(() -> {
          rows.bind(raw);
          timedRun(raw, rawStream, rawTimer);
        }));
        modes.put("raw, user-managed memory", new Mode(() -> {
          rows.bind(rawUser);
          run(rawUser, rawStream);
        }));
        modes.put("raw, user-managed + CUDA events", new Mode(() -> {
          rows.bind(rawUser);
          timedRun(rawUser, rawStream, rawTimer);
        }));
        modes.put("raw + error recorder drained", new Mode(() -> {
          rows.bind(rawRecorded);
          run(rawRecorded, rawStream);
          if (!rawRecorder.drain().isEmpty()) {
            throw new GpuCheck.Fail("the raw recorded context reported an error");
          }
        }));
        modes.put("raw, 2 contexts on 1 memory block", new Mode(() -> {
          rows.bind(pairA);
          run(pairA, rawStream);
        }));
        modes.put("raw, slot-like (2 ctx, recorder, events)", new Mode(() -> {
          rows.bind(pairA);
          timedRun(pairA, rawStream, rawTimer);
          if (!rawRecorder.drain().isEmpty()) {
            throw new GpuCheck.Fail("the raw slot-like context reported an error");
          }
        }));
        modes.put("traced, noop tracer", new SharedMode(noop, traced, rows, b));
        modes.put("traced, full tracing", new SharedMode(full, traced, rows, b));
        if (b == 1) {
          modes.put("traced request form, full tracing", new RequestMode(full, traced, rows));
        }
        for (Mode m : modes.values()) {
          for (int i = 0; i < 200; i++) {
            m.once();
          }
        }
        List<String> names = new ArrayList<>(modes.keySet());
        int blocks = 60;
        int perBlock = 100;
        for (int k = 0; k < blocks; k++) {
          List<String> order = new ArrayList<>(names);
          if (k % 2 == 1) {
            java.util.Collections.reverse(order); // ABBA: each mode as often early as late in a pair of blocks
          }
          for (String name : order) {
            modes.get(name).block(perBlock);
          }
        }
        Mode rawMode = modes.get("raw");
        Mode noopMode = modes.get("traced, noop tracer");
        Mode fullMode = modes.get("traced, full tracing");
        for (Map.Entry<String, Mode> e : modes.entrySet()) {
          Mode m = e.getValue();
          out.append(String.format(Locale.ROOT, "B=%d %-34s p50 %.2f us  p99 %.2f us  mean %.2f us  launches/s %.0f  p50/raw %.4f%n",
              b, e.getKey(), m.p(0.50), m.p(0.99), m.mean(), m.perSecond(), m.p(0.50) / rawMode.p(0.50)));
        }
        out.append(String.format(Locale.ROOT, "B=%d full/noop p50 %.4f p99 %.4f throughput %.4f; full/raw p50 %.4f p99 %.4f throughput %.4f%n",
            b, fullMode.p(0.5) / noopMode.p(0.5), fullMode.p(0.99) / noopMode.p(0.99), fullMode.perSecond() / noopMode.perSecond(),
            fullMode.p(0.5) / rawMode.p(0.5), fullMode.p(0.99) / rawMode.p(0.99), fullMode.perSecond() / rawMode.perSecond()));
        for (Mode m : modes.values()) {
          m.close();
        }
      }
      TensorRtObjects.destroy(raw);
      TensorRtObjects.destroy(rawUser);
      TensorRtObjects.destroy(rawRecorded);
      TensorRtObjects.destroy(pairA);
      TensorRtObjects.destroy(pairB);
      rawRecorder.close();
      pairMemory.close();
      activations.close();
    }
    Files.writeString(artifacts.resolve("batched-overhead.txt"), out.toString());
    out.toString().lines().forEach(l -> System.out.println("   " + l));
    return "see above (60 ABBA blocks x 100 launches per mode; P=128 decode)";
  }

  interface Launch {
    void run() throws Exception;
  }

  /** One mode of the overhead comparison: its launches' wall times. */
  static class Mode implements AutoCloseable {
    private final Launch launch;
    private double[] ns = new double[8192];
    private int count;
    private long totalNanos;

    Mode(Launch launch) {
      this.launch = launch;
    }

    Mode() {
      this.launch = null;
    }

    void once() throws Exception {
      launch.run();
    }

    void block(int n) throws Exception {
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        once();
        long d = System.nanoTime() - t0;
        if (count == ns.length) {
          ns = Arrays.copyOf(ns, count * 2);
        }
        ns[count++] = d;
        totalNanos += d;
      }
    }

    double p(double q) {
      return quantileUs(0, count, q);
    }

    double mean() {
      return totalNanos / 1e3 / count;
    }

    /** Whole blocks of {@code perBlock} launches timed so far. */
    int blocks(int perBlock) {
      return count / perBlock;
    }

    /** Quantile {@code q} (us) of the {@code k}-th block of {@code perBlock} launches, in the order they ran. */
    double blockP(int k, int perBlock, double q) {
      return quantileUs(k * perBlock, (k + 1) * perBlock, q);
    }

    /** Quantile {@code q} (us) of the launches {@code from} (inclusive) to {@code to} (exclusive). */
    private double quantileUs(int from, int to, double q) {
      double[] s = Arrays.copyOfRange(ns, from, to);
      Arrays.sort(s);
      int n = to - from;
      return s[Math.min(n - 1, (int) (q * n))] / 1e3;
    }

    double perSecond() {
      return count / (totalNanos / 1e9);
    }

    @Override
    public void close() throws Exception {}
  }

  /** B traces (a generation of 32 tokens each) riding one shared launch per decode step. */
  private static final class SharedMode extends Mode {
    private final SharedStep step;

    SharedMode(InferenceTracer tracer, TracedEngine traced, BatchRows rows, int b) {
      this.step = new SharedStep(tracer, traced, rows, b, true, "ovh-");
    }

    @Override
    void once() throws Exception {
      step.run();
    }

    @Override
    public void close() {
      step.closeMembers();
    }
  }

  /** One trace (a generation of 32 tokens) using the single-request form, one launch per step. */
  private static final class RequestMode extends Mode {
    private final InferenceTracer tracer;
    private final TracedEngine traced;
    private final BatchRows rows;
    private InferenceTrace trace;
    private TracedEngine.Request request;
    private int steps;

    RequestMode(InferenceTracer tracer, TracedEngine traced, BatchRows rows) {
      this.tracer = tracer;
      this.traced = traced;
      this.rows = rows;
    }

    @Override
    void once() throws Exception {
      if (steps % 32 == 0) {
        close();
        trace = tracer.start(MODEL);
        request = traced.request(trace);
      }
      steps++;
      request.launch((ctx, stream) -> rows.bind(ctx));
      trace.token();
    }

    @Override
    public void close() {
      if (request != null) {
        request.close();
        trace.close();
      }
    }
  }

  @Override
  public void close() {
    if (engine != null) {
      TensorRtObjects.destroy(engine);
    }
    if (runtime != null) {
      TensorRtObjects.destroy(runtime);
      runtimeRecorder.close();
    }
  }
}
