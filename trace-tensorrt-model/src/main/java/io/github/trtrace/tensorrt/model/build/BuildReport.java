// Over 400 lines: 25 documented one-line accessors and the builder's one-line setters; the logic lives in ReportValues, LayerQueries, BuildReportJson and BuildFingerprint.
package io.github.trtrace.tensorrt.model.build;

import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One engine build, as a structured, immutable report written as JSON (snake_case, stable field order; {@link
 * BuildReportJson} reads and writes it, {@link BuildFingerprint} makes its {@code engine_fingerprint}). Unknown
 * numbers are -1 ({@code NaN} for {@code build_ms}), unknown strings null. A final class with accessors (not a
 * record), so fields can be added without breaking callers; made by its {@link Builder}.
 *
 * <pre>{@code
 * BuildReport report = BuildReport.builder("llama-8b")
 *     .tensorrtVersion("10.15.1").gpu("NVIDIA H200", "9.0")
 *     .inspection(EngineInspection.parse(inspectorJson)).networkLayerCount(120)
 *     .build();
 * report.write(Path.of("build/llama-8b.build.json"));
 * boolean attnFused = report.allFused("attn");
 * }</pre>
 */
public final class BuildReport {

  /** Build outcome. */
  public enum Status {
    SUCCESS("success"),
    FAILED("failed");

    private final String wireName;

    Status(String wireName) {
      this.wireName = wireName;
    }

    /** JSON value. */
    public String wireName() {
      return wireName;
    }

    static Status fromWire(@Nullable String s) {
      for (Status v : values()) {
        if (v.wireName.equals(s)) {
          return v;
        }
      }
      throw new IllegalArgumentException("status must be success or failed, was " + (s == null ? "missing" : "'" + s + "'"));
    }
  }

  /** The GPU: name and compute capability ({@code "9.0"}); either may be null when unknown. */
  public record Gpu(@Nullable String name, @Nullable String computeCapability) {
    static final Gpu UNKNOWN = new Gpu(null, null);
  }

  /** An engine layer and the network layers it absorbed (two or more). */
  public record FusedGroup(String engineLayer, List<String> networkLayers) {
    public FusedGroup {
      Objects.requireNonNull(engineLayer, "engineLayer");
      networkLayers = List.copyOf(networkLayers);
    }
  }

  /**
   * One engine layer.
   *
   * @param name engine layer name
   * @param type layer type, e.g. {@code CaskConvolution}, or null
   * @param precision precision of its first output (first input when it has none), e.g. {@code fp16}
   * @param outputTypes data type of each output
   * @param tactic tactic (kernel) name, or null
   */
  public record Layer(
      String name, @Nullable String type, @Nullable String precision, List<String> outputTypes, @Nullable String tactic) {
    public Layer {
      Objects.requireNonNull(name, "name");
      outputTypes = List.copyOf(outputTypes);
    }
  }

  /** A build phase reported by the progress monitor. */
  public record Phase(String name, double ms) {
    public Phase {
      Objects.requireNonNull(name, "name");
    }
  }

  /** An error seen during the build: TensorRT error code (-1 unknown), category, message. */
  public record BuildError(int code, @Nullable String category, String message) {
    public BuildError {
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * What the report says about one engine layer (e.g. one a profiled request found slow): the layer
   * (type, precision, tactic; null when the report does not know it), the network layers it absorbed
   * (empty when it is one network layer or the report does not say), and the build warnings that name it
   * or a layer it absorbed.
   *
   * @param engineLayer the engine layer's name
   * @param layer the report's layer of that name, or null
   * @param networkLayers the network layers it absorbed (two or more), else empty
   * @param warnings build warnings naming it or an absorbed layer (as a whole name)
   */
  public record LayerExplanation(String engineLayer, @Nullable Layer layer, List<String> networkLayers, List<String> warnings) {
    public LayerExplanation {
      Objects.requireNonNull(engineLayer, "engineLayer");
      networkLayers = List.copyOf(networkLayers);
      warnings = List.copyOf(warnings);
    }

    /** Whether the engine layer absorbed two or more network layers. */
    public boolean fused() {
      return networkLayers.size() >= 2;
    }
  }

  private final ReportValues v;

  private BuildReport(ReportValues frozen) {
    this.v = frozen;
  }

  /** A builder for a report on {@code modelName}; status defaults to success, {@code createdAt} to now. */
  public static Builder builder(String modelName) {
    return new Builder(modelName);
  }

  /**
   * A failed report for {@code modelName}: warnings and errors taken from the build's log events and
   * recorded errors, and the {@link BuildFailureDiagnosis}. Use {@link #toBuilder()} to add the
   * environment fields.
   */
  public static BuildReport failed(String modelName, List<TrtLogEvent> events, List<RecordedError> recorded) {
    return builder(modelName).status(Status.FAILED).fromBuildLog(events, recorded)
        .diagnosis(BuildFailureDiagnosis.diagnose(events, recorded)).build();
  }

  /** A builder initialised with this report's values. */
  public Builder toBuilder() {
    return new Builder(new ReportValues(v));
  }

  /** Whether the build produced a plan. */
  public Status status() { return v.status; }

  /** Model or engine name. */
  public String modelName() { return v.modelName; }

  /** TensorRT version, e.g. {@code 10.15.1}, or null. */
  public @Nullable String tensorrtVersion() { return v.tensorrtVersion; }

  /** The GPU built on. */
  public Gpu gpu() { return v.gpu; }

  /** NVIDIA driver version, e.g. {@code 580.159.04}, or null. */
  public @Nullable String driverVersion() { return v.driverVersion; }

  /** CUDA runtime version, e.g. {@code 13.0}, or null. */
  public @Nullable String cudaRuntimeVersion() { return v.cudaRuntimeVersion; }

  /** Builder flags set, e.g. {@code FP16}, {@code STRONGLY_TYPED}. */
  public List<String> builderFlags() { return v.builderFlags; }

  /**
   * The precision the engine computes in ({@link EngineInspection#precision()}: the narrowest type among its
   * layers, never from builder flags): {@code fp32}, {@code fp16}, {@code bf16}, {@code fp8}, {@code int8},
   * {@code fp4}; null when unknown (failed build, no inspection).
   */
  public @Nullable String precision() { return v.precision; }

  /** Whether the network was strongly typed. */
  public boolean stronglyTyped() { return v.stronglyTyped; }

  /** Builder optimisation level, -1 unknown. */
  public int optimizationLevel() { return v.optimizationLevel; }

  /** Layers in the network definition, -1 unknown. */
  public int networkLayerCount() { return v.networkLayerCount; }

  /** Layers in the built engine, -1 unknown. */
  public int engineLayerCount() { return v.engineLayerCount; }

  /** Engine layers that absorbed two or more network layers. */
  public List<FusedGroup> fusedGroups() { return v.fusedGroups; }

  /** Engine layers in engine order. */
  public List<Layer> layers() { return v.layers; }

  /** Device memory the engine needs, -1 unknown. */
  public long deviceMemoryBytes() { return v.deviceMemoryBytes; }

  /** Serialized plan size, -1 unknown. */
  public long planBytes() { return v.planBytes; }

  /** Wall time of the build, NaN unknown. */
  public double buildMs() { return v.buildMs; }

  /** Build phases from the progress monitor. */
  public List<Phase> phases() { return v.phases; }

  /**
   * Progress-monitor events lost because its buffer was full (0: none; -1: unknown, e.g. a report written
   * before the field existed). When positive, {@link #phases()} may miss phases or end them late.
   */
  public long progressEventsDropped() { return v.progressEventsDropped; }

  /** Warning lines logged during the build. */
  public List<String> warnings() { return v.warnings; }

  /** Errors logged or recorded during the build. */
  public List<BuildError> errors() { return v.errors; }

  /**
   * Every TensorRT line of the build, VERBOSE included, as {@code SEVERITY kind: message} (after redaction);
   * captured into the report without being printed.
   */
  public List<String> log() { return v.log; }

  /** Why a failed build failed, null for a success. */
  public @Nullable BuildFailureDiagnosis diagnosis() { return v.diagnosis; }

  /** The engine fingerprint ({@link BuildFingerprint}), or null without a plan. */
  public @Nullable String engineFingerprint() { return v.engineFingerprint; }

  /** When the report was made. */
  public Instant createdAt() { return v.createdAt; }

  /**
   * Fraction of network layers absorbed into multi-layer engine layers: the distinct network layers
   * of {@link #fusedGroups()} (one that Myelin split over two engine layers counted once) divided by
   * {@link #networkLayerCount()}. NaN when the network layer count is unknown or zero. 0 means nothing
   * was fused.
   */
  public double fusionRate() {
    if (v.networkLayerCount <= 0) {
      return Double.NaN;
    }
    // a network layer split over two engine layers (Myelin) is in two groups: count it once
    long absorbed = v.fusedGroups.stream().flatMap(g -> g.networkLayers().stream()).distinct().count();
    return Math.min(1.0, (double) absorbed / v.networkLayerCount);
  }

  /** Engine layers whose name matches {@code regex} (find, not full match). */
  public List<Layer> layersMatching(String regex) {
    Pattern p = Pattern.compile(regex);
    return v.layers.stream().filter(l -> p.matcher(l.name()).find()).collect(Collectors.toList());
  }

  /**
   * "Were all layers matching {@code regex} fused?" True when at least one engine layer matches (by
   * its own name or a network layer it absorbed) and every matching engine layer absorbed two or more
   * network layers. Layers the builder inserted (reformat copies, no-ops) are ignored. False when
   * nothing matches.
   */
  public boolean allFused(String regex) {
    return LayerQueries.allFused(v.layers, v.fusedGroups, Pattern.compile(regex));
  }

  /** Engine layers with any of the given precisions ({@code "fp32"}, {@code "fp16"}, ...). */
  public List<Layer> layersWithPrecision(String... precisions) {
    List<String> wanted = List.of(precisions);
    // a layer may have no precision (e.g. a Myelin shape_call with no tensor output)
    return v.layers.stream().filter(l -> l.precision() != null && wanted.contains(l.precision()))
        .collect(Collectors.toList());
  }

  /**
   * "Did any layer fall back to FP32?" The FP32 layers when the build asked for a lower precision
   * (fp16, bf16, fp8, int8, fp4); empty for FP32 builds or unknown precision.
   */
  public List<Layer> fp32Fallbacks() {
    int requested = Precisions.rank(v.precision);
    if (requested <= 0 || requested >= Precisions.rank("fp32")) {
      return List.of();
    }
    // reformat copies and no-ops the builder inserts (e.g. to fp32 outputs) are no fallbacks
    return layersWithPrecision("fp32").stream()
        .filter(l -> !"Reformat".equals(l.type()) && !"NoOp".equals(l.type())).collect(Collectors.toList());
  }

  /**
   * Explains {@code engineLayer} from this report: "why is {@code attn_qkv} slow?" — its precision and
   * tactic, whether it was fused and with what, or the build warning about it.
   *
   * <pre>{@code
   * BuildReport.LayerExplanation x = report.explain("block0_attn_qkv_myl9_2");
   * x.fused();            // true: block0.attn_qkv + block0.attn_qkv_bias
   * }</pre>
   */
  public LayerExplanation explain(String engineLayer) {
    return LayerQueries.explain(this, Objects.requireNonNull(engineLayer, "engineLayer"));
  }

  /**
   * The engine layer that ran each kernel of one launch of this engine, from the kernels' names (CUPTI's, as in
   * a launch log's {@code kernels} line) in the order they started; null for a kernel no layer's tactic names.
   * The rule (tactic names against kernel names, walked in engine order) is in the implementation's javadoc; it
   * needs a report with tactics (detailed profiling verbosity at build).
   *
   * <pre>{@code
   * List<BuildReport.Layer> ran = report.layersOfKernels(List.of("sm80_xmma_gemm_..._execute_kernel_trt"));
   * ran.get(0).name();    // "block0_attn_qkv_myl9_2"
   * }</pre>
   */
  public List<@Nullable Layer> layersOfKernels(List<String> kernelsInLaunchOrder) {
    return KernelLayers.match(v.layers, Objects.requireNonNull(kernelsInLaunchOrder, "kernelsInLaunchOrder"));
  }

  /** What changed from {@code baseline} to this report, without thresholds. */
  public BuildDiff diff(BuildReport baseline) {
    return BuildDiff.compute(this, baseline, BuildGate.Thresholds.ZERO);
  }

  /** The report as pretty-printed JSON ({@link BuildReportJson#toJson}). */
  public String toJson() {
    return BuildReportJson.toJson(this);
  }

  /** Writes {@link #toJson()} to {@code file} (UTF-8), creating parent directories. */
  public void write(Path file) throws IOException {
    BuildReportJson.write(this, file);
  }

  /**
   * Reads a report written by {@link #write(Path)}.
   *
   * @throws IllegalArgumentException naming the file when it is not a build report
   */
  public static BuildReport read(Path file) throws IOException {
    return BuildReportJson.read(file);
  }

  /** Parses a report from JSON ({@link BuildReportJson#read(String)}). */
  public static BuildReport read(String json) {
    return BuildReportJson.read(json);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof BuildReport && ((BuildReport) o).v.valuesEqual(v);
  }

  @Override
  public int hashCode() {
    return v.valuesHash();
  }

  @Override
  public String toString() {
    return "BuildReport[" + v.status.wireName() + ", " + v.modelName + ", engine_fingerprint=" + v.engineFingerprint + "]";
  }

  /**
   * Builds a {@link BuildReport}. Not thread-safe. The engine fingerprint is not computed here: give it
   * ({@link BuildFingerprint}) with {@link #engineFingerprint}.
   *
   * <pre>{@code
   * BuildReport r = BuildReport.builder("llama-8b").tensorrtVersion("10.15.1").planBytes(plan.length)
   *     .engineFingerprint(BuildFingerprint.of(plan, "10.15.1", "9.0", "fp16", false, List.of("FP16")))
   *     .build();
   * }</pre>
   */
  public static final class Builder {
    private final ReportValues v;

    private Builder(String modelName) {
      this.v = new ReportValues(Objects.requireNonNull(modelName, "modelName"));
    }

    private Builder(ReportValues copy) {
      this.v = copy;
    }

    public Builder status(Status s) { v.status = Objects.requireNonNull(s, "status"); return this; }

    public Builder tensorrtVersion(@Nullable String version) { v.tensorrtVersion = version; return this; }

    public Builder gpu(@Nullable String name, @Nullable String computeCapability) { v.gpu = new Gpu(name, computeCapability); return this; }

    public Builder driverVersion(@Nullable String version) { v.driverVersion = version; return this; }

    public Builder cudaRuntimeVersion(@Nullable String version) { v.cudaRuntimeVersion = version; return this; }

    public Builder builderFlag(String flag) { v.builderFlags.add(Objects.requireNonNull(flag, "flag")); return this; }

    /** The engine's precision, normalised to lower case; {@link #inspection} sets it from the engine's layers. */
    public Builder precision(@Nullable String p) { v.precision = p == null ? null : Precisions.normalize(p); return this; }

    public Builder stronglyTyped(boolean strongly) { v.stronglyTyped = strongly; return this; }

    public Builder optimizationLevel(int level) { v.optimizationLevel = level; return this; }

    public Builder networkLayerCount(int count) { v.networkLayerCount = count; return this; }

    public Builder engineLayerCount(int count) { v.engineLayerCount = count; return this; }

    public Builder fusedGroup(FusedGroup g) { v.fusedGroups.add(Objects.requireNonNull(g, "group")); return this; }

    public Builder layer(Layer l) { v.layers.add(Objects.requireNonNull(l, "layer")); return this; }

    /** Takes layers, fused groups, the engine layer count and the precision from an inspector analysis. */
    public Builder inspection(EngineInspection inspection) { v.takeInspection(inspection); return this; }

    public Builder deviceMemoryBytes(long bytes) { v.deviceMemoryBytes = bytes; return this; }

    public Builder planBytes(long bytes) { v.planBytes = bytes; return this; }

    public Builder buildMs(double ms) { v.buildMs = ms; return this; }

    public Builder phase(String name, double ms) { v.phases.add(new Phase(name, ms)); return this; }

    /** Progress-monitor events lost to a full buffer (see {@link BuildReport#progressEventsDropped()}). */
    public Builder progressEventsDropped(long count) { v.progressEventsDropped = count; return this; }

    public Builder warning(String w) { v.warnings.add(Objects.requireNonNull(w, "warning")); return this; }

    public Builder error(BuildError e) { v.errors.add(Objects.requireNonNull(e, "error")); return this; }

    /** Adds one line to {@link BuildReport#log()}. */
    public Builder logLine(String line) { v.log.add(Objects.requireNonNull(line, "line")); return this; }

    public Builder diagnosis(@Nullable BuildFailureDiagnosis d) { v.diagnosis = d; return this; }

    public Builder engineFingerprint(@Nullable String fingerprint) { v.engineFingerprint = fingerprint; return this; }

    public Builder createdAt(Instant t) { v.createdAt = Objects.requireNonNull(t, "createdAt"); return this; }

    /**
     * Adds the build's log lines, warnings (WARNING lines) and errors (ERROR/INTERNAL_ERROR lines and recorded
     * errors; a recorded error whose description was also logged is kept once).
     */
    public Builder fromBuildLog(List<TrtLogEvent> events, List<RecordedError> recorded) { v.takeBuildLog(events, recorded); return this; }

    /** Builds the report; the engine layer count defaults to the number of layers given. */
    public BuildReport build() {
      return new BuildReport(v.frozen());
    }
  }
}
