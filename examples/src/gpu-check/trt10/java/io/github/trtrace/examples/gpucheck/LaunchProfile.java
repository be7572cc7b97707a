package io.github.trtrace.examples.gpucheck;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.cuda.DeviceMemory;
import io.github.trtrace.tensorrt.cuda.GpuTimer;
import io.github.trtrace.tensorrt.engine.ProfilingPolicy;
import io.github.trtrace.tensorrt.engine.TracedEngine;
import io.github.trtrace.tensorrt.internal.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;

/**
 * Where the launching thread's time goes per launch (issue 18 item 4: the engine path's remaining per-launch cost),
 * measured apart from the device time: the ratio of two modes' p50 wall time moved 2-3 % between runs, as much as the
 * cost looked for, and in run 6 (the first run of this class) the same raw launch took 484 to 530 us by mode run one
 * after the other, so wall-time ratios mostly measure the device. Here, per mode, in ABBA-interleaved blocks on one
 * thread: wall time, the launching thread's CPU time ({@code ThreadMXBean}; the host work of the launch: binding,
 * enqueue, events, the tracer; the stream's synchronise blocks in this driver, so the wait costs little CPU) and,
 * where it is known, the CUDA-event device time (raw + events: the timer's; full tracing: the launch log's {@code
 * gpu_ms}). Then one pass per mode under async-profiler (4.0, from Maven Central, loaded through reflection so that
 * nothing else needs it; {@code event=ctimer}) sorts the thread's samples into what the launch did: the wait, TensorRT's
 * enqueue, binding, the CUDA events, the error recorder, the context pool, the tracer, the rest of the engine path,
 * as shares of the samples (the CPU-time timer fires at most once per scheduler tick, so the sample counts are not
 * absolute times). The collapsed stacks go to the artifacts ({@code profile-<mode>.collapsed}).
 */
final class LaunchProfile {
  private static final int INTERVAL_US = 20;
  private static final int LAUNCHES = 10_000;

  /** Category and the frame substrings that put a sample in it, tried in this order (the first that matches). */
  private static final Map<String, List<String>> CATEGORIES = new LinkedHashMap<>();

  static {
    CATEGORIES.put("GPU wait (stream synchronise)", List.of("CudaStream.synchronize", "cudaStreamSynchronize",
        "cudaEventSynchronize"));
    CATEGORIES.put("TensorRT enqueueV3", List.of("enqueueV3"));
    CATEGORIES.put("binding (shapes, addresses)", List.of("BatchRows.bind", "setInputShape", "setTensorAddress"));
    CATEGORIES.put("CUDA events (record, elapsed)", List.of("GpuTimer", "cudaEventRecord", "cudaEventElapsedTime",
        "CudaEvent"));
    CATEGORIES.put("error recorder (drain)", List.of("ErrorRecorder", "drainErrors", "recordErrors"));
    CATEGORIES.put("context pool (borrow, return)", List.of("ContextPool"));
    CATEGORIES.put("NVTX / kernel records", List.of("Nvtx", "LaunchRecorder", "KernelRecordPolicy"));
    CATEGORIES.put("tracer (trace-core)", List.of("io/github/trtrace/core/", "io.github.trtrace.core."));
    CATEGORIES.put("engine path, the rest (trace-tensorrt)", List.of("io/github/trtrace/tensorrt/engine/",
        "io.github.trtrace.tensorrt.engine."));
  }

  private final BatchedChecks batched;
  private final Path artifacts;

  LaunchProfile(BatchedChecks batched, Path artifacts) {
    this.batched = batched;
    this.artifacts = artifacts;
  }

  /** The profiler, or a Skip saying why there is none. */
  private static Object profiler() throws GpuCheck.Skip {
    try {
      return Class.forName("one.profiler.AsyncProfiler").getMethod("getInstance").invoke(null);
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new GpuCheck.Skip("no async-profiler on the class path (stage-app.sh copies it): " + e);
    }
  }

  private static String execute(Object profiler, String command) throws Exception {
    Method m = profiler.getClass().getMethod("execute", String.class);
    return (String) m.invoke(profiler, command);
  }

  String profile() throws Exception {
    ICudaEngine engine = batched.engine();
    if (engine == null) {
      throw new GpuCheck.Skip("no batched engine (see the batched build)");
    }
    Object profiler = profiler();
    StringBuilder out = new StringBuilder();
    Path records = Files.createTempDirectory("trtrace-profile");
    java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
    boolean pairsOnly = Boolean.getBoolean("trtrace.profile.pairsOnly");
    try (InferenceTracer noop = InferenceTracer.noop();
        TracedEngine traced = TracedEngine.builder(engine).buildReport(batched.report()).build();
        // slots that can profile (a policy that would profile after an hour-long request, so never here): two
        // user-managed contexts over one activation block a slot, against the default policy's one plain context
        TracedEngine profilable = TracedEngine.builder(engine).buildReport(batched.report())
            .profiling(ProfilingPolicy.builder().slowThreshold(java.time.Duration.ofHours(1)).build()).build();
        BatchRows rows = new BatchRows(BatchedChecks.CONFIG, BatchedChecks.EXTENTS);
        CudaStream stream = CudaStream.createNonBlocking();
        GpuTimer timer = GpuTimer.create(stream)) {
      IExecutionContext raw = engine.createExecutionContext();
      // A/A: a second plain context (its own activation memory) for the alternating pairs only: how far two raw
      // contexts of one engine differ, which bounds what "traced / raw" (a different context) can resolve
      IExecutionContext raw2 = engine.createExecutionContext();
      // ablations of what a slot adds around a raw launch, each against "raw + CUDA events" launch by launch
      IExecutionContext rawUser = engine.createExecutionContext(nvinfer.ExecutionContextAllocationStrategy.kUSER_MANAGED);
      DeviceMemory userBlock = DeviceMemory.allocate(engine.getDeviceMemorySizeV2());
      rawUser.setDeviceMemoryV2(userBlock.pointer(), userBlock.bytes());
      ShimErrorRecorder recorder = ShimErrorRecorder.create();
      IExecutionContext rawRecorded = engine.createExecutionContext();
      rawRecorded.setErrorRecorder(recorder.asTensorRt());
      SplittableRandom rnd = new SplittableRandom(11);
      for (int b : new int[] {1, 8}) {
        rows.stageDecode(b, 128, rnd);
        Path launchLog = records.resolve("launches-B" + b + ".jsonl");
        double[] eventMs = {0};
        try (InferenceTracer full = InferenceTracer.builder().jsonLinesFile(records.resolve("records-B" + b + ".jsonl"))
            .launchLog(launchLog).build()) {
          Map<String, BatchedChecks.Launch> modes = new LinkedHashMap<>();
          modes.put("raw", () -> {
            rows.bind(raw);
            if (!raw.enqueueV3(stream.handle())) {
              throw new GpuCheck.Fail("enqueueV3 refused");
            }
            stream.synchronize();
          });
          modes.put("raw + CUDA events", () -> {
            rows.bind(raw);
            timer.start();
            if (!raw.enqueueV3(stream.handle())) {
              throw new GpuCheck.Fail("enqueueV3 refused");
            }
            timer.stop();
            stream.synchronize();
            eventMs[0] += timer.elapsedMsCompleted();
          });
          modes.put("traced, noop tracer", shared(noop, traced, rows, b));
          modes.put("traced, full tracing", shared(full, traced, rows, b));
          // -Dtrtrace.profile.events=true: the event calls' host costs and the event pair part by part, then the rest;
          // =calls: the host costs only
          if (Boolean.getBoolean("trtrace.profile.tail")) {
            out.append(tail(b, traced, rows, records, noop));
            continue;
          }
          String events = System.getProperty("trtrace.profile.events", "");
          if (events.equals("calls")) {
            out.append(eventCallCosts(stream, timer));
            break;
          }
          if (events.equals("true")) {
            if (b == 1) {
              out.append(eventCallCosts(stream, timer));
            }
            eventAnatomy(out, b, rows, raw, stream);
          }
          if (pairsOnly) {
            pairs(out, b, modes, rows, stream, timer, rawUser, rawRecorded, recorder, shared(noop, profilable, rows, b));
            continue;
          }
          Map<String, Times> times = new LinkedHashMap<>();
          for (Map.Entry<String, BatchedChecks.Launch> m : modes.entrySet()) {
            for (int i = 0; i < 2_000; i++) {
              m.getValue().run();
            }
            times.put(m.getKey(), new Times());
          }
          eventMs[0] = 0;
          List<String> names = new java.util.ArrayList<>(modes.keySet());
          for (int k = 0; k < BLOCKS; k++) {
            List<String> order = new java.util.ArrayList<>(names);
            if (k % 2 == 1) {
              java.util.Collections.reverse(order); // ABBA
            }
            for (String name : order) {
              times.get(name).block(modes.get(name), cpu);
            }
          }
          double blockEventMs = eventMs[0]; // the raw + events launches of the blocks only (more follow below)
          full.flush().get();
          Map<String, Map<String, Double>> shares = new LinkedHashMap<>();
          for (Map.Entry<String, BatchedChecks.Launch> m : modes.entrySet()) {
            shares.put(m.getKey(), sampled(profiler, m.getValue(), "B" + b + "-" + m.getKey().replaceAll("[^a-z0-9]+", "-")));
          }
          double fullGpuUs = meanGpuUs(launchLog, 2_000);
          int n = BLOCKS * PER_BLOCK;
          out.append(String.format(Locale.ROOT, "B=%d decode (P=128), %d ABBA blocks x %d launches a mode; us per launch:%n",
              b, BLOCKS, PER_BLOCK));
          out.append(String.format(Locale.ROOT, "%-40s", "mode"));
          for (String mode : names) {
            out.append(String.format(Locale.ROOT, " %22s", mode));
          }
          out.append('\n');
          row(out, "wall, p50", names, m -> times.get(m).p50());
          row(out, "wall, mean", names, m -> times.get(m).wallNs / 1e3 / n);
          row(out, "launching thread's CPU, mean", names, m -> times.get(m).cpuNs / 1e3 / n);
          row(out, "device (CUDA events), mean", names, m -> m.equals("raw + CUDA events") ? blockEventMs * 1e3 / n
              : m.equals("traced, full tracing") ? fullGpuUs : Double.NaN);
          row(out, "CPU - raw's CPU", names, m -> (times.get(m).cpuNs - times.get("raw").cpuNs) / 1e3 / n);
          row(out, "(CPU - raw's CPU) / raw's p50 wall, %", names,
              m -> 100 * (times.get(m).cpuNs - times.get("raw").cpuNs) / 1e3 / n / times.get("raw").p50());
          out.append("share of the thread's profiler samples (ctimer), %:\n");
          List<String> cats = new java.util.ArrayList<>(CATEGORIES.keySet());
          cats.add(OTHER);
          for (String c : cats) {
            row(out, "  " + c, names, m -> 100 * shares.get(m).getOrDefault(c, 0.0));
          }
          row(out, "  samples", names, m -> shares.get(m).getOrDefault(SAMPLES, 0.0));
          // launch by launch, two modes taking turns (so that the device's drift falls on both alike); first two A/A
          // pairs: the same raw launch against itself (the estimator's null) and against a second raw context
          modes.put("raw, second context", () -> {
            rows.bind(raw2);
            if (!raw2.enqueueV3(stream.handle())) {
              throw new GpuCheck.Fail("enqueueV3 refused");
            }
            stream.synchronize();
          });
          for (int i = 0; i < 2_000; i++) {
            modes.get("raw, second context").run();
          }
          out.append(alternating(modes.get("raw"), modes.get("raw"), "raw", "raw (A/A)"));
          out.append(alternating(modes.get("raw"), modes.get("raw, second context"), "raw", "raw, second context"));
          for (String[] pair : new String[][] {{"traced, noop tracer", "traced, full tracing"},
              {"raw", "traced, full tracing"}, {"raw + CUDA events", "traced, full tracing"}}) {
            out.append(alternating(modes.get(pair[0]), modes.get(pair[1]), pair[0], pair[1]));
          }
        }
      }
      TensorRtObjects.destroy(raw);
      TensorRtObjects.destroy(raw2);
      TensorRtObjects.destroy(rawUser);
      TensorRtObjects.destroy(rawRecorded);
      recorder.close();
      userBlock.close();
    }
    Files.writeString(artifacts.resolve("launch-profile.txt"), out.toString());
    out.toString().lines().forEach(l -> System.out.println("   " + l));
    return "see above (wall, CPU and device time per launch by mode; where the thread's samples fell)";
  }

  /** Pairs a comparison ({@code -Dtrtrace.profile.pairs}, default 10,000). */
  private static final int PAIRS = Integer.getInteger("trtrace.profile.pairs", 10_000);

  /**
   * {@code -Dtrtrace.profile.pairsOnly=true}: launch-by-launch pairs only (no blocks, no sampling), each against
   * "raw + CUDA events", which times the launch as the engine does: the A/A null first, then each part a slot adds
   * on its own (TensorRT's user-managed activation memory; an error recorder attached and drained), the traced
   * engine with the default policy's slots and with profilable ones, and full tracing; then full tracing against noop
   * and against a raw launch with no events.
   */
  private static void pairs(StringBuilder out, int b, Map<String, BatchedChecks.Launch> modes, BatchRows rows,
      CudaStream stream, GpuTimer timer, IExecutionContext rawUser, IExecutionContext rawRecorded,
      ShimErrorRecorder recorder, BatchedChecks.Launch profilableNoop) throws Exception {
    modes.put("raw, user-managed + CUDA events", () -> {
      rows.bind(rawUser);
      BatchedChecks.timedRun(rawUser, stream, timer);
    });
    modes.put("raw + CUDA events + error recorder", () -> {
      rows.bind(rawRecorded);
      BatchedChecks.timedRun(rawRecorded, stream, timer);
      if (!recorder.drain().isEmpty()) {
        throw new GpuCheck.Fail("the recorded raw context reported an error");
      }
    });
    modes.put("traced, noop tracer, profilable slots", profilableNoop);
    for (BatchedChecks.Launch m : modes.values()) {
      for (int i = 0; i < 2_000; i++) {
        m.run();
      }
    }
    out.append(String.format(Locale.ROOT, "B=%d decode (P=128), launch by launch:%n", b));
    String base = "raw + CUDA events";
    out.append(alternating(modes.get(base), modes.get(base), base, base + " (A/A)"));
    for (String m : List.of("raw", "raw, user-managed + CUDA events", "raw + CUDA events + error recorder",
        "traced, noop tracer", "traced, noop tracer, profilable slots", "traced, full tracing")) {
      out.append(alternating(modes.get(base), modes.get(m), base, m));
    }
    out.append(alternating(modes.get("traced, noop tracer"), modes.get("traced, full tracing"), "traced, noop tracer",
        "traced, full tracing"));
    // the goal as it is put: full tracing against a raw context with no timing at all
    out.append(alternating(modes.get("raw"), modes.get("traced, full tracing"), "raw", "traced, full tracing"));
  }

  /**
   * {@code -Dtrtrace.profile.events=true}: what the CUDA event pair costs a launch, part by part, each part against a
   * raw launch in alternating pairs: the start event alone (recorded before the enqueue, so its host call delays the
   * first kernel), the stop event alone (recorded after the enqueue, while the device may still be busy), both, both
   * with the elapsed time read (as {@link GpuTimer} does), the same through the driver API ({@code cuEventRecord},
   * {@code cuEventElapsedTime} into native memory); then three calibrations, 5 us of host work before the enqueue,
   * after it (before the wait) and after the wait, which show where host work costs a launch its full time and where
   * the device's remaining work hides it.
   */
  private static void eventAnatomy(StringBuilder out, int b, BatchRows rows, IExecutionContext raw, CudaStream stream)
      throws Exception {
    CUevent_st e0 = new CUevent_st();
    CUevent_st e1 = new CUevent_st();
    check(cudart.cudaEventCreate(e0), "cudaEventCreate");
    check(cudart.cudaEventCreate(e1), "cudaEventCreate");
    float[] ms = new float[1];
    org.bytedeco.javacpp.FloatPointer nativeMs = new org.bytedeco.javacpp.FloatPointer(1);
    try {
      Map<String, BatchedChecks.Launch> modes = new LinkedHashMap<>();
      // each mode spelled out as a user would write that launch: no shared helper, no indirection in what is timed
      BatchedChecks.Launch plain = () -> {
        rows.bind(raw);
        enqueue(raw, stream);
        stream.synchronize();
      };
      modes.put("raw + start event", () -> {
        rows.bind(raw);
        check(cudart.cudaEventRecord(e0, stream.handle()), "cudaEventRecord");
        enqueue(raw, stream);
        stream.synchronize();
      });
      modes.put("raw + stop event", () -> {
        rows.bind(raw);
        enqueue(raw, stream);
        check(cudart.cudaEventRecord(e1, stream.handle()), "cudaEventRecord");
        stream.synchronize();
      });
      modes.put("raw + both events", () -> {
        rows.bind(raw);
        check(cudart.cudaEventRecord(e0, stream.handle()), "cudaEventRecord");
        enqueue(raw, stream);
        check(cudart.cudaEventRecord(e1, stream.handle()), "cudaEventRecord");
        stream.synchronize();
      });
      modes.put("raw + both + elapsed (runtime API)", () -> {
        rows.bind(raw);
        check(cudart.cudaEventRecord(e0, stream.handle()), "cudaEventRecord");
        enqueue(raw, stream);
        check(cudart.cudaEventRecord(e1, stream.handle()), "cudaEventRecord");
        stream.synchronize();
        check(cudart.cudaEventElapsedTime(ms, e0, e1), "cudaEventElapsedTime");
      });
      modes.put("raw + both + elapsed (driver API)", () -> {
        rows.bind(raw);
        check(cudart.cuEventRecord(e0, stream.handle()), "cuEventRecord");
        enqueue(raw, stream);
        check(cudart.cuEventRecord(e1, stream.handle()), "cuEventRecord");
        stream.synchronize();
        check(cudart.cuEventElapsedTime(nativeMs, e0, e1), "cuEventElapsedTime");
      });
      modes.put("raw + 5 us host work before enqueue", () -> {
        rows.bind(raw);
        spin(5_000);
        enqueue(raw, stream);
        stream.synchronize();
      });
      modes.put("raw + 5 us host work after enqueue", () -> {
        rows.bind(raw);
        enqueue(raw, stream);
        spin(5_000);
        stream.synchronize();
      });
      modes.put("raw + 5 us host work after the wait", () -> {
        rows.bind(raw);
        enqueue(raw, stream);
        stream.synchronize();
        spin(5_000);
      });
      for (BatchedChecks.Launch m : modes.values()) {
        for (int i = 0; i < 1_000; i++) {
          m.run();
        }
      }
      out.append(String.format(Locale.ROOT, "B=%d decode (P=128), the event pair part by part, launch by launch:%n", b));
      for (Map.Entry<String, BatchedChecks.Launch> m : modes.entrySet()) {
        out.append(alternating(plain, m.getValue(), "raw", m.getKey()));
      }
    } finally {
      nativeMs.close();
      cudart.cudaEventDestroy(e0);
      cudart.cudaEventDestroy(e1);
    }
  }

  /**
   * The host cost of each event call on an idle stream, ns per call (median of 20 blocks of 1,000 calls): what the
   * start event's record adds before the first kernel can be queued, and what reading the elapsed time adds after
   * the wait.
   */
  private static String eventCallCosts(CudaStream stream, GpuTimer timer) throws Exception {
    CUevent_st e0 = new CUevent_st();
    CUevent_st e1 = new CUevent_st();
    check(cudart.cudaEventCreate(e0), "cudaEventCreate");
    check(cudart.cudaEventCreate(e1), "cudaEventCreate");
    float[] ms = new float[1];
    org.bytedeco.javacpp.FloatPointer nativeMs = new org.bytedeco.javacpp.FloatPointer(1);
    try {
      check(cudart.cudaEventRecord(e0, stream.handle()), "cudaEventRecord");
      check(cudart.cudaEventRecord(e1, stream.handle()), "cudaEventRecord");
      stream.synchronize();
      Map<String, BatchedChecks.Launch> calls = new LinkedHashMap<>();
      calls.put("cudaEventRecord", () -> check(cudart.cudaEventRecord(e0, stream.handle()), "cudaEventRecord"));
      calls.put("cuEventRecord (driver API)", () -> check(cudart.cuEventRecord(e0, stream.handle()), "cuEventRecord"));
      calls.put("cudaEventElapsedTime (float[])", () -> check(cudart.cudaEventElapsedTime(ms, e0, e1),
          "cudaEventElapsedTime"));
      java.nio.FloatBuffer direct = java.nio.ByteBuffer.allocateDirect(4).order(java.nio.ByteOrder.nativeOrder())
          .asFloatBuffer();
      calls.put("cudaEventElapsedTime (direct FloatBuffer)", () -> check(cudart.cudaEventElapsedTime(direct, e0, e1),
          "cudaEventElapsedTime"));
      calls.put("cuEventElapsedTime (FloatPointer)", () -> check(cudart.cuEventElapsedTime(nativeMs, e0, e1),
          "cuEventElapsedTime"));
      calls.put("cudaEventQuery (completed)", () -> check(cudart.cudaEventQuery(e1), "cudaEventQuery"));
      calls.put("cudaStreamSynchronize (idle stream)", stream::synchronize);
      calls.put("GpuTimer: start, stop, synchronize, elapsedMsCompleted", () -> {
        timer.start();
        timer.stop();
        stream.synchronize();
        timer.elapsedMsCompleted();
      });
      StringBuilder out = new StringBuilder("host cost per call on an idle stream (median of 20 blocks x 1,000), ns:\n");
      for (Map.Entry<String, BatchedChecks.Launch> c : calls.entrySet()) {
        long[] blocks = new long[20];
        for (int round = -3; round < blocks.length; round++) {
          long t0 = System.nanoTime();
          for (int i = 0; i < 1_000; i++) {
            c.getValue().run();
          }
          long d = System.nanoTime() - t0;
          stream.synchronize();
          // the record calls move the event: keep the pair read by the elapsed calls in order
          check(cudart.cudaEventRecord(e0, stream.handle()), "cudaEventRecord");
          check(cudart.cudaEventRecord(e1, stream.handle()), "cudaEventRecord");
          stream.synchronize();
          if (round >= 0) {
            blocks[round] = d;
          }
        }
        java.util.Arrays.sort(blocks);
        out.append(String.format(Locale.ROOT, "  %-40s %8.0f%n", c.getKey(), blocks[blocks.length / 2] / 1_000.0));
      }
      return out.toString();
    } finally {
      nativeMs.close();
      cudart.cudaEventDestroy(e0);
      cudart.cudaEventDestroy(e1);
    }
  }

  private static void enqueue(IExecutionContext ctx, CudaStream stream) throws GpuCheck.Fail {
    if (!ctx.enqueueV3(stream.handle())) {
      throw new GpuCheck.Fail("enqueueV3 refused");
    }
  }

  private static void check(int rc, String call) throws GpuCheck.Fail {
    if (rc != 0) {
      throw new GpuCheck.Fail(call + " returned " + rc);
    }
  }

  /** Busy host work for {@code nanos}. */
  private static void spin(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() - end < 0) {
      Thread.onSpinWait();
    }
  }

  /**
   * {@code -Dtrtrace.profile.tail=true}: where full tracing's p99 over the noop tracer comes from (runs 39, 43, 44:
   * +1 to +23 % at B = 1 against +2 to +3.4 % for the noop tracer over raw + events). Each mode against the noop
   * tracer in alternating pairs, each launch's time kept with whether that step closed and started its members (every
   * 32 steps, as {@link #shared}): full tracing as the pairs run it; the same with the members' close and start
   * taken out of the timed launch; records to a file without the launch log; records discarded, no launch log.
   */
  private static String tail(int b, TracedEngine traced, BatchRows rows, Path records, InferenceTracer noop)
      throws Exception {
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
        "B=%d decode (P=128), full tracing's tail against the noop tracer, launch by launch:%n", b));
    io.github.trtrace.core.sink.RecordSink discard =
        io.github.trtrace.core.sink.RecordSink.named("discard", batch -> { });
    try (InferenceTracer full = InferenceTracer.builder().jsonLinesFile(records.resolve("tail-records-B" + b + ".jsonl"))
            .launchLog(records.resolve("tail-launches-B" + b + ".jsonl")).build();
        InferenceTracer fileOnly = InferenceTracer.builder()
            .jsonLinesFile(records.resolve("tail-records-only-B" + b + ".jsonl")).build();
        InferenceTracer discarding = InferenceTracer.builder().sink(discard).build()) {
      SharedStep base = new SharedStep(noop, traced, rows, b, true, "tail-");
      Map<String, SharedStep> modes = new LinkedHashMap<>();
      modes.put("full (file records + launch log)", new SharedStep(full, traced, rows, b, true, "tail-"));
      modes.put("full, members' close/start untimed", new SharedStep(full, traced, rows, b, false, "tail-"));
      modes.put("file records, no launch log", new SharedStep(fileOnly, traced, rows, b, true, "tail-"));
      modes.put("records discarded, no launch log", new SharedStep(discarding, traced, rows, b, true, "tail-"));
      for (int i = 0; i < 2_000; i++) {
        base.run();
        for (SharedStep m : modes.values()) {
          m.run();
        }
      }
      for (Map.Entry<String, SharedStep> m : modes.entrySet()) {
        long[] ta = new long[PAIRS];
        long[] tb = new long[PAIRS];
        boolean[] closing = new boolean[PAIRS];
        for (int i = 0; i < PAIRS; i++) {
          boolean baseFirst = i % 2 == 0;
          for (int k = 0; k < 2; k++) {
            boolean runBase = (k == 0) == baseFirst;
            if (runBase) {
              ta[i] = base.timed();
            } else {
              tb[i] = m.getValue().timed();
              closing[i] = m.getValue().closedNow;
            }
          }
        }
        long[] sa = ta.clone();
        long[] sb = tb.clone();
        java.util.Arrays.sort(sa);
        java.util.Arrays.sort(sb);
        long baseP99 = sa[PAIRS * 99 / 100];
        int over = 0;
        int overClosing = 0;
        int closingN = 0;
        for (int i = 0; i < PAIRS; i++) {
          closingN += closing[i] ? 1 : 0;
          if (tb[i] > baseP99 + 50_000) {
            over++;
            overClosing += closing[i] ? 1 : 0;
          }
        }
        out.append(String.format(Locale.ROOT, "%-40s / noop: p50 %.4f, p99 %.4f, p99.9 %.4f (us: p50 %.1f / %.1f, p99 %.1f"
            + " / %.1f, p99.9 %.1f / %.1f); launches over the noop p99 + 50 us: %d, of them closing members: %d (closing"
            + " steps %d of %d)%n", m.getKey(), (double) sb[PAIRS / 2] / sa[PAIRS / 2],
            (double) sb[PAIRS * 99 / 100] / sa[PAIRS * 99 / 100], (double) sb[PAIRS * 999 / 1000] / sa[PAIRS * 999 / 1000],
            sb[PAIRS / 2] / 1e3, sa[PAIRS / 2] / 1e3, sb[PAIRS * 99 / 100] / 1e3, sa[PAIRS * 99 / 100] / 1e3,
            sb[PAIRS * 999 / 1000] / 1e3, sa[PAIRS * 999 / 1000] / 1e3, over, overClosing, closingN, PAIRS));
        out.append(String.format(Locale.ROOT, "  %-38s closing steps p50 %.1f p99 %.1f us; other steps p50 %.1f p99 %.1f us%n",
            "", percentile(tb, closing, true, 50), percentile(tb, closing, true, 99), percentile(tb, closing, false, 50),
            percentile(tb, closing, false, 99)));
      }
    }
    return out.toString();
  }

  private static double percentile(long[] t, boolean[] which, boolean want, int pct) {
    long[] v = java.util.stream.IntStream.range(0, t.length).filter(i -> which[i] == want).mapToLong(i -> t[i]).sorted()
        .toArray();
    return v.length == 0 ? Double.NaN : v[Math.min(v.length - 1, v.length * pct / 100)] / 1e3;
  }

  /** {@link #PAIRS} launches of each of two modes, one of each in turn (which first alternates); their ratios. */
  private static String alternating(BatchedChecks.Launch a, BatchedChecks.Launch b, String aName, String bName)
      throws Exception {
    long[] ta = new long[PAIRS];
    long[] tb = new long[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
      boolean aFirst = i % 2 == 0;
      for (int k = 0; k < 2; k++) {
        boolean runA = (k == 0) == aFirst;
        long t0 = System.nanoTime();
        (runA ? a : b).run();
        long d = System.nanoTime() - t0;
        if (runA) {
          ta[i] = d;
        } else {
          tb[i] = d;
        }
      }
    }
    double sa = java.util.Arrays.stream(ta).sum();
    double sb = java.util.Arrays.stream(tb).sum();
    java.util.Arrays.sort(ta);
    java.util.Arrays.sort(tb);
    return String.format(Locale.ROOT, "alternating %,d pairs: %s / %s: p50 %.4f (%.2f / %.2f us), p99 %.4f, mean %.4f"
        + " (throughput %.4f)%n", PAIRS, bName, aName, (double) tb[PAIRS / 2] / ta[PAIRS / 2], tb[PAIRS / 2] / 1e3,
        ta[PAIRS / 2] / 1e3, (double) tb[PAIRS * 99 / 100] / ta[PAIRS * 99 / 100], sb / sa, sa / sb);
  }

  private static final int BLOCKS = 40;
  private static final int PER_BLOCK = 250;
  private static final String OTHER = "check loop, JIT, other";
  private static final String SAMPLES = "samples";

  private static void row(StringBuilder out, String label, List<String> modes,
      java.util.function.ToDoubleFunction<String> value) {
    out.append(String.format(Locale.ROOT, "%-40s", label));
    for (String m : modes) {
      double v = value.applyAsDouble(m);
      out.append(Double.isNaN(v) ? String.format(Locale.ROOT, " %22s", "-") : String.format(Locale.ROOT, " %22.2f", v));
    }
    out.append('\n');
  }

  /** One mode's wall and CPU time over its blocks, and each launch's wall time. */
  private static final class Times {
    long wallNs;
    long cpuNs;
    final long[] each = new long[BLOCKS * PER_BLOCK];
    int count;

    void block(BatchedChecks.Launch launch, java.lang.management.ThreadMXBean cpu) throws Exception {
      long c0 = cpu.getCurrentThreadCpuTime();
      long w0 = System.nanoTime();
      for (int i = 0; i < PER_BLOCK; i++) {
        long t0 = System.nanoTime();
        launch.run();
        each[count++] = System.nanoTime() - t0;
      }
      wallNs += System.nanoTime() - w0;
      cpuNs += cpu.getCurrentThreadCpuTime() - c0;
    }

    double p50() {
      long[] s = java.util.Arrays.copyOf(each, count);
      java.util.Arrays.sort(s);
      return s[count / 2] / 1e3;
    }
  }

  /** Mean {@code gpu_ms} (in us) of the launch log's launch lines after the first {@code skip} (the warm-up). */
  private static double meanGpuUs(Path launchLog, int skip) throws java.io.IOException {
    double sum = 0;
    int n = 0;
    int seen = 0;
    java.util.regex.Pattern gpu = java.util.regex.Pattern.compile("\"gpu_ms\":([0-9.eE+-]+)");
    for (String line : Files.readAllLines(launchLog)) {
      java.util.regex.Matcher m = gpu.matcher(line);
      if (m.find() && seen++ >= skip) {
        sum += Double.parseDouble(m.group(1));
        n++;
      }
    }
    return n == 0 ? Double.NaN : 1e3 * sum / n;
  }

  private static BatchedChecks.Launch shared(InferenceTracer tracer, TracedEngine traced, BatchRows rows, int b) {
    SharedStep step = new SharedStep(tracer, traced, rows, b, true, "prof-");
    return step::run;
  }


  /**
   * Profiles {@value #LAUNCHES} launches of a warm mode on a thread of its own; the share of its samples in each
   * category (and the sample count under {@link #SAMPLES}).
   */
  private Map<String, Double> sampled(Object profiler, BatchedChecks.Launch launch, String name) throws Exception {
    Exception[] failed = new Exception[1];
    String threadName = "trtrace-profiled-" + name;
    Thread t = new Thread(() -> {
      try {
        execute(profiler, "start,event=ctimer,interval=" + INTERVAL_US + "us,threads");
        for (int i = 0; i < LAUNCHES; i++) {
          launch.run();
        }
        execute(profiler, "stop");
      } catch (Exception e) {
        failed[0] = e;
      }
    }, threadName);
    t.start();
    t.join();
    if (failed[0] != null) {
      throw failed[0];
    }
    String collapsed = execute(profiler, "collapsed");
    Files.writeString(artifacts.resolve("profile-" + name + ".collapsed"), collapsed);
    Map<String, Long> samples = new LinkedHashMap<>();
    long all = 0;
    for (String line : collapsed.split("\n")) {
      int sp = line.lastIndexOf(' ');
      if (sp < 0 || !line.startsWith("[" + threadName + " ")) {
        continue; // another thread's samples
      }
      long n = Long.parseLong(line.substring(sp + 1).trim());
      String stack = line.substring(0, sp);
      String cat = OTHER;
      for (Map.Entry<String, List<String>> c : CATEGORIES.entrySet()) {
        if (c.getValue().stream().anyMatch(stack::contains)) {
          cat = c.getKey();
          break;
        }
      }
      samples.merge(cat, n, Long::sum);
      all += n;
    }
    Map<String, Double> share = new LinkedHashMap<>();
    for (Map.Entry<String, Long> e : samples.entrySet()) {
      share.put(e.getKey(), all == 0 ? 0.0 : e.getValue() / (double) all);
    }
    share.put(SAMPLES, (double) all);
    return share;
  }
}
