package io.github.trtrace.tensorrt.build;

import io.github.trtrace.tensorrt.model.build.BuildFingerprint;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.model.build.BuildFailureDiagnosis;
import io.github.trtrace.tensorrt.doctor.DoctorFacts;
import io.github.trtrace.tensorrt.doctor.TensorRtDoctor;
import io.github.trtrace.tensorrt.model.build.EngineInspection;
import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.log.TensorRtLogger;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.internal.shim.ShimErrorRecorder;
import io.github.trtrace.tensorrt.internal.shim.ShimProgressMonitor;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.tensorrt.global.nvinfer;
import org.bytedeco.tensorrt.nvinfer.IBuilder;
import org.bytedeco.tensorrt.nvinfer.IBuilderConfig;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.bytedeco.tensorrt.nvinfer.IEngineInspector;
import org.bytedeco.tensorrt.nvinfer.IHostMemory;
import org.bytedeco.tensorrt.nvinfer.INetworkDefinition;
import org.bytedeco.tensorrt.nvinfer.IRuntime;
import org.jspecify.annotations.Nullable;

/**
 * An {@link IBuilder} whose builds leave a {@link BuildReport}: TensorRT's log during the build
 * (VERBOSE included, captured into the report without being printed), errors from an error
 * recorder attached to the builder (with a recorder attached TensorRT reports errors there and
 * not to the logger), phases from a progress monitor (optionally drawn as a console progress bar;
 * {@link #cancel()} stops a running build), the engine read back with {@code IEngineInspector} at
 * {@code DETAILED} profiling verbosity, and the environment from {@link TensorRtDoctor}. A failed
 * build yields a report with {@code status: failed} and a {@link BuildFailureDiagnosis}. Where TensorRT
 * already fails to create the builder (10.6 and 11.x without the builder resource), {@link #create}
 * throws a {@link BuilderCreationException} carrying such a report. The report's precision is what the
 * engine's layers use (from the inspector), never inferred from builder flags (TensorRT 11 has none).
 *
 * <pre>{@code
 * TensorRtLogger logger = TensorRtLogger.create(TrtLogPipeline.builder().build()); // one per process
 * try (TracedBuilder tb = TracedBuilder.create(logger)) {
 *   IBuilder builder = tb.builder();
 *   INetworkDefinition network = builder.createNetworkV2(0);   // ... populate, or parse ONNX
 *   IBuilderConfig config = builder.createBuilderConfig();
 *   config.setFlag(nvinfer.BuilderFlag.kFP16);
 *   BuildReport report = tb.build("llama-8b", network, config, Path.of("llama-8b.plan")).report();
 *   // llama-8b.plan and llama-8b.plan.build.json are written; report.status() says how it went
 * }
 * }</pre>
 */
public final class TracedBuilder implements AutoCloseable {

  /**
   * What a build produced: the report, and on success the plan — in {@code planFile} when a plan path
   * was given (streamed there, never held in memory), else in {@code plan} (when it fits a Java array;
   * a larger one is reported as a warning and dropped: give a plan path for those).
   */
  public record Result(BuildReport report, @Nullable Path planFile, byte @Nullable [] plan) {
    public boolean succeeded() {
      return report.status() == BuildReport.Status.SUCCESS;
    }
  }

  /** The largest plan handed back as a {@code byte[]} (the JVM's array limit). */
  static final long MAX_ARRAY_PLAN = Integer.MAX_VALUE - 8;

  private final TrtLogPipeline pipeline;
  private final TensorRtLogger logger;
  private final ShimErrorRecorder recorder;
  private final IBuilder builder;
  private final DoctorFacts environment;
  private volatile @Nullable ShimProgressMonitor running;
  private @Nullable PrintStream progressOut;

  private TracedBuilder(TensorRtLogger logger) {
    this.logger = logger;
    this.pipeline = logger.pipeline();
    this.environment = TensorRtDoctor.probe();
    this.recorder = ShimErrorRecorder.create();
    List<TrtLogEvent> events = Collections.synchronizedList(new ArrayList<>());
    IBuilder b;
    long t0 = System.nanoTime();
    try (TrtLogPipeline.Capture scope = pipeline.openCapture(CREATE_SCOPE, events::add)) {
      b = nvinfer.createInferBuilder(logger);
    }
    if (b == null || b.isNull()) {
      recorder.close();
      List<TrtLogEvent> log = List.copyOf(events);
      throw new BuilderCreationException(environment(CREATE_SCOPE).status(BuildReport.Status.FAILED)
          .buildMs((System.nanoTime() - t0) / 1e6).fromBuildLog(log, List.of())
          .diagnosis(BuildFailureDiagnosis.diagnose(log, List.of())).build());
    }
    this.builder = b;
    builder.setErrorRecorder(recorder.asTensorRt());
  }

  /** The scope (and the failed report's model name) of the {@code createInferBuilder} call. */
  static final String CREATE_SCOPE = "builder:create";

  /**
   * Creates the TensorRT builder with {@code logger} (the process's one {@link TensorRtLogger}; it
   * stays yours and must outlive this object) and an error recorder.
   *
   * @throws BuilderCreationException when TensorRT returns no builder (10.6 and 11.x without the builder
   *     resource for this GPU): its report holds the captured lines and the diagnosis
   */
  public static TracedBuilder create(TensorRtLogger logger) {
    return new TracedBuilder(Objects.requireNonNull(logger, "logger"));
  }

  /** The TensorRT builder, for creating networks and configs. Owned by this object. */
  public IBuilder builder() {
    return builder;
  }

  /** Draws a one-line progress bar on {@code out} while a build runs (e.g. {@code System.err}). */
  public TracedBuilder progressBar(@Nullable PrintStream out) {
    this.progressOut = out;
    return this;
  }

  /** Asks the running build to stop at its next step; the build then fails (cancelled). */
  public void cancel() {
    ShimProgressMonitor m = running;
    if (m != null) {
      m.cancel();
    }
  }

  /**
   * Builds {@code network} with {@code config} and reports on it. When {@code planPath} is given,
   * the plan (on success) and {@code <planPath>.build.json} (always) are written.
   *
   * @throws IOException when the plan or the report cannot be written
   */
  public Result build(String modelName, INetworkDefinition network, IBuilderConfig config, @Nullable Path planPath)
      throws IOException {
    List<TrtLogEvent> events = Collections.synchronizedList(new ArrayList<>());
    ShimProgressMonitor monitor = ShimProgressMonitor.create();
    config.setProfilingVerbosity(nvinfer.ProfilingVerbosity.kDETAILED);
    config.setProgressMonitor(monitor.asTensorRt());
    recorder.drain(); // errors of earlier calls are not this build's
    recorder.clear(); // no TensorRT call runs now: empty TensorRT's view so each build has the full capacity
    running = monitor;
    BuildProgress progress = new BuildProgress(monitor, progressOut, progressOut == null ? 20 : 200);
    long t0 = System.nanoTime();
    long t1;
    IHostMemory plan;
    try (TrtLogPipeline.Capture scope = pipeline.openCapture("build:" + modelName, events::add)) {
      progress.start();
      plan = builder.buildSerializedNetwork(network, config);
    } finally {
      t1 = System.nanoTime();
      progress.finish();
      running = null;
      config.setProgressMonitor(null);
      monitor.close();
    }
    List<RecordedError> errors = recorder.drain();
    BuildReport.Builder r = environment(modelName, config, network).buildMs((t1 - t0) / 1e6);
    progress.topLevel(t1).forEach(p -> r.phase(p.name(), p.ms()));
    r.progressEventsDropped(progress.dropped());
    List<TrtLogEvent> log = List.copyOf(events);
    byte[] bytes = null;
    Path written = null;
    BuildReport report;
    if (plan == null || plan.isNull() || plan.size() == 0) {
      TensorRtObjects.destroy(plan); // an empty plan is still TensorRT's object to free
      BuildReport failed = BuildReport.failed(modelName, log, errors);
      report = r.status(BuildReport.Status.FAILED).fromBuildLog(log, errors).diagnosis(failed.diagnosis()).build();
    } else {
      MessageDigest digest;
      // The plan stays in TensorRT's memory: streamed to its file and hashed in chunks, inspected in
      // place, copied to a Java array only when no file was asked for (and it fits one).
      try {
        long size = plan.size();
        Pointer data = plan.data();
        PlanWriter.Written w = PlanWriter.write(nativeSource(data, size), planPath);
        written = planPath;
        r.fromBuildLog(log, errors).planBytes(w.bytes());
        inspect(data, size, r);
        digest = w.digest();
        if (planPath == null) {
          if (size <= MAX_ARRAY_PLAN) {
            bytes = new byte[(int) size];
            new BytePointer(data).capacity(size).get(bytes);
          } else {
            r.warning("trtrace: the plan (" + size + " bytes) is larger than a Java array and was not kept;"
                + " pass a plan path to TracedBuilder.build to have it written");
          }
        }
      } finally {
        TensorRtObjects.destroy(plan);
      }
      BuildReport unsigned = r.build(); // the fingerprint covers the precision the inspection found
      report = unsigned.toBuilder().engineFingerprint(BuildFingerprint.of(digest, unsigned)).build();
    }
    if (planPath != null) {
      report.write(reportPath(planPath));
    }
    return new Result(report, written, bytes);
  }

  /** Slices of TensorRT's plan memory as direct buffers over it (no copy). */
  private static PlanWriter.Source nativeSource(Pointer data, long size) {
    return PlanWriter.Source.of(size, (offset, length) -> {
      BytePointer p = new BytePointer(data);
      p.position(offset).limit(offset + length);
      return p.asByteBuffer();
    });
  }

  /** {@code <plan>.build.json} beside the plan. */
  public static Path reportPath(Path planPath) {
    return planPath.resolveSibling(planPath.getFileName() + ".build.json");
  }

  /** TensorRT version, GPU, driver and CUDA of this process, for a report named {@code modelName}. */
  private BuildReport.Builder environment(String modelName) {
    // The builder works on the current CUDA device; trtrace does not switch devices, so that is the
    // first visible GPU unless the application changed it (then the report names GPU 0 regardless).
    DoctorFacts.Gpu gpu = environment.gpus().isEmpty() ? null : environment.gpus().get(0);
    return BuildReport.builder(modelName).createdAt(Instant.now())
        .tensorrtVersion(environment.tensorrtVersion())
        .gpu(gpu == null ? null : gpu.name(), gpu == null ? null : gpu.computeCapability())
        .driverVersion(environment.driverVersion())
        .cudaRuntimeVersion(environment.cudaRuntime())
        .stronglyTyped(alwaysStronglyTyped());
  }

  /**
   * TensorRT 11 always builds strongly typed networks; its kSTRONGLY_TYPED creation flag is deprecated and
   * ignored, so reading it would report false. The major version comes from the loaded library.
   */
  private static boolean alwaysStronglyTyped() {
    return nvinfer.getInferLibVersion() / 10000 >= 11;
  }

  private BuildReport.Builder environment(String modelName, IBuilderConfig config, INetworkDefinition network) {
    BuildReport.Builder r = environment(modelName)
        .optimizationLevel(config.getBuilderOptimizationLevel())
        .networkLayerCount(network.getNbLayers())
        .stronglyTyped(alwaysStronglyTyped() || network.getFlag(nvinfer.NetworkDefinitionCreationFlag.kSTRONGLY_TYPED));
    // The flags this preset knows, by name: their numbers differ between TensorRT 10 and 11.
    for (nvinfer.BuilderFlag f : nvinfer.BuilderFlag.values()) {
      if (config.getFlag(f)) {
        r.builderFlag(f.name().substring(1)); // kTF32 -> TF32
      }
    }
    return r; // the precision comes from the engine's layers (inspect), not from the flags
  }

  /** Deserialises the plan where it lies and reads the engine back with the inspector. */
  private void inspect(Pointer data, long size, BuildReport.Builder r) {
    IRuntime runtime = nvinfer.createInferRuntime(logger);
    if (runtime == null || runtime.isNull()) {
      r.warning("trtrace: the plan could not be inspected: createInferRuntime returned null");
      return;
    }
    ICudaEngine engine = null;
    IEngineInspector inspector = null;
    try {
      runtime.setErrorRecorder(recorder.asTensorRt());
      engine = runtime.deserializeCudaEngine(data, size);
      if (engine == null || engine.isNull()) {
        r.warning("trtrace: the plan could not be deserialised for inspection: "
            + recorder.drain().stream().map(RecordedError::description).reduce((a, b) -> a + "; " + b).orElse("no error reported"));
        return;
      }
      r.deviceMemoryBytes(engine.getDeviceMemorySizeV2());
      inspector = engine.createEngineInspector();
      String json = inspector.getEngineInformation(nvinfer.LayerInformationFormat.kJSON);
      if (json != null) {
        r.inspection(EngineInspection.parse(json));
      }
    } finally {
      TensorRtObjects.destroy(inspector);
      TensorRtObjects.destroy(engine);
      TensorRtObjects.destroy(runtime);
    }
  }

  /** Releases the builder, then its error recorder (reverse order of creation); not the logger. */
  @Override
  public void close() {
    TensorRtObjects.destroy(builder);
    recorder.close();
  }
}
