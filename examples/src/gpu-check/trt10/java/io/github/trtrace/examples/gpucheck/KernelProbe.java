package io.github.trtrace.examples.gpucheck;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.tensorrt.engine.KernelRecordPolicy;
import io.github.trtrace.tensorrt.engine.TracedEngine;
import io.github.trtrace.tensorrt.internal.cupti.CuptiRecorder;
import io.github.trtrace.tensorrt.internal.cupti.LaunchRecorder;
import io.github.trtrace.tensorrt.internal.shim.Nvtx;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import io.github.trtrace.tensorrt.log.TensorRtLogger;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.bytedeco.cuda.cupti.CUpti_CallbackFunc;
import org.bytedeco.cuda.cupti.CUpti_Subscriber_st;
import org.bytedeco.cuda.global.cupti;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.nvinfer.IRuntime;

/**
 * The child JVMs of {@link KernelChecks}, on the batched plan {@link BatchedChecks} built:
 * <ul>
 *   <li>{@code taken <plan> <artifacts>}: subscribes to CUPTI itself first (as a profiler would), then runs the kernel
 *       records overhead modes; the recorder must refuse, say so once, and leave launches unrecorded;
 *   <li>{@code ncu <plan> <artifacts>}: run under {@code ncu --nvtx}: six B = 8 decode launches with launch IDs fixed
 *       by a fixed tracer clock ({@link #launchId}), request {@link #REQUEST} a member of launches {@link
 *       #REQUEST_LAUNCHES} (so its NVTX request range covers those), NVTX forced on.
 * </ul>
 * Prints {@code PROBE <mode> PASS} last when it did what it should.
 */
public final class KernelProbe {
  /** The tracer's wall clock in the ncu probe: launch IDs are this instant's epoch microseconds plus 1, 2, ... */
  static final Instant CLOCK = Instant.ofEpochSecond(1_000_000);
  static final int LAUNCHES = 6;
  /** The launch whose NVTX range ncu includes (1-based). */
  static final int TARGET = 4;
  static final String REQUEST = "ncu-req";
  static final int[] REQUEST_LAUNCHES = {2, 5};

  private KernelProbe() {}

  /** The ID of the probe's k-th launch (1-based). */
  static long launchId(int k) {
    return CLOCK.getEpochSecond() * 1_000_000L + k;
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Path plan = Path.of(args[1]);
    Path artifacts = Path.of(args[2]);
    Loader.load(nvinfer.class);
    TensorRtLogger logger = TensorRtLogger.create(TrtLogPipeline.builder().build());
    IRuntime runtime = nvinfer.createInferRuntime(logger);
    byte[] bytes = Files.readAllBytes(plan);
    ICudaEngine engine;
    try (BytePointer data = new BytePointer(bytes)) {
      engine = runtime.deserializeCudaEngine(data, bytes.length);
    }
    if (engine == null || engine.isNull()) {
      System.out.println("PROBE " + mode + " FAIL: the plan did not deserialise");
      System.exit(2);
    }
    boolean pass = switch (mode) {
      case "taken" -> taken(engine, artifacts);
      case "ncu" -> ncu(engine, artifacts);
      default -> throw new IllegalArgumentException("mode: taken or ncu, not " + mode);
    };
    TensorRtObjects.destroy(engine);
    TensorRtObjects.destroy(runtime);
    System.out.println("PROBE " + mode + (pass ? " PASS" : " FAIL"));
    System.exit(pass ? 0 : 1);
  }

  /** A subscriber of our own that never gets callbacks (no domain enabled): CUPTI is taken before trtrace asks. */
  private static final class Foreign extends CUpti_CallbackFunc {
    @Override
    public void call(Pointer userdata, int domain, int callbackId, Pointer data) {}
  }

  private static boolean taken(ICudaEngine engine, Path artifacts) throws Exception {
    Loader.load(cupti.class);
    Foreign callback = new Foreign();
    CUpti_Subscriber_st subscriber = new CUpti_Subscriber_st((Pointer) null);
    int rc = cupti.cuptiSubscribe(subscriber, callback, null);
    System.out.println("probe: own cuptiSubscribe rc=" + rc + (rc == cupti.CUPTI_SUCCESS ? " (CUPTI is now taken)" : ""));
    if (rc != cupti.CUPTI_SUCCESS) {
      return false;
    }
    KernelChecks.overheadTable(engine, null, artifacts.resolve("kernels-overhead-taken.txt"), "taken ");
    LaunchRecorder r = CuptiRecorder.shared();
    System.out.println("probe: recorder " + (r == LaunchRecorder.OFF ? "off" : "ON (should be off)"));
    cupti.cuptiUnsubscribe(subscriber);
    return r == LaunchRecorder.OFF;
  }

  private static boolean ncu(ICudaEngine engine, Path artifacts) throws Exception {
    System.out.println("probe: NVTX_INJECTION64_PATH=" + System.getenv("NVTX_INJECTION64_PATH") + ", ranges "
        + (Nvtx.enabled() ? "on" : "off"));
    if (!Nvtx.enabled()) {
      return false;
    }
    List<Long> ids = new ArrayList<>();
    Path launches = artifacts.resolve("kernels-ncu-probe-launches.jsonl");
    Files.deleteIfExists(launches);
    Files.deleteIfExists(artifacts.resolve("kernels-ncu-probe-records.jsonl"));
    try (InferenceTracer tracer = new TracerFactory().clocks(Clock.fixed(CLOCK, ZoneOffset.UTC), System::nanoTime)
            .jsonLinesFile(artifacts.resolve("kernels-ncu-probe-records.jsonl")).shutdownHook(false).launchLog(launches)
            .build();
        TracedEngine traced = TracedEngine.builder(engine)
            .kernelRecords(KernelRecordPolicy.builder().requestId(REQUEST).build()).build();
        BatchRows rows = new BatchRows(BatchedChecks.CONFIG, BatchedChecks.EXTENTS)) {
      rows.stageDecode(8, KernelChecks.PAST, new SplittableRandom(3));
      InferenceTrace[] others = new InferenceTrace[8];
      for (int i = 0; i < 8; i++) {
        others[i] = tracer.start(BatchedChecks.MODEL, "ncu-m" + i);
      }
      InferenceTrace req = tracer.start(BatchedChecks.MODEL, REQUEST);
      for (int k = 1; k <= LAUNCHES; k++) {
        int launch = k;
        boolean withRequest = Arrays.stream(REQUEST_LAUNCHES).anyMatch(x -> x == launch);
        try (SharedLaunch step = tracer.launch(traced.fingerprint())) {
          for (int i = 0; i < 7; i++) {
            step.decode(others[i]);
          }
          step.decode(withRequest ? req : others[7]);
          ids.add(step.id());
          traced.launch(step, (ctx, stream) -> rows.bind(ctx));
        }
      }
      for (InferenceTrace t : others) {
        t.close();
      }
      req.close();
    }
    System.out.println("probe: launch ids " + ids + " (expected " + launchId(1) + ".." + launchId(LAUNCHES) + ")");
    return ids.get(0) == launchId(1) && ids.get(LAUNCHES - 1) == launchId(LAUNCHES);
  }
}
