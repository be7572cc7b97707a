package io.github.trtrace.tensorrt.build;

import com.fasterxml.jackson.core.JsonGenerator;
import io.github.trtrace.tensorrt.internal.build.EngineInspection;
import io.github.trtrace.tensorrt.internal.build.Json;
import io.github.trtrace.tensorrt.internal.build.Precisions;
import io.github.trtrace.tensorrt.log.RecordedError;
import io.github.trtrace.tensorrt.internal.log.TrtLogClassifier;
import io.github.trtrace.tensorrt.log.TrtLogEvent;
import io.github.trtrace.tensorrt.log.TrtSeverity;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One engine build, as a structured, immutable report written as JSON (snake_case, stable field
 * order). Unknown numbers are -1 ({@code NaN} for {@code build_ms}), unknown strings null.
 *
 * <pre>{@code
 * BuildReport report = BuildReport.builder("llama-8b")
 *     .tensorrtVersion("10.15.1").gpu("NVIDIA H200", "9.0").precision("fp16")
 *     .inspection(EngineInspection.parse(inspectorJson)).plan(planBytes)
 *     .build();
 * report.write(Path.of("build/llama-8b.build.json"));
 * boolean attnFused = report.allFused("attn");
 * }</pre>
 *
 * @param status whether the build produced a plan
 * @param modelName model or engine name
 * @param tensorrtVersion e.g. {@code 10.15.1}
 * @param gpu the GPU built on
 * @param driverVersion NVIDIA driver version, e.g. {@code 580.159.04}
 * @param cudaRuntimeVersion e.g. {@code 13.0}
 * @param builderFlags builder flags set, e.g. {@code FP16}, {@code STRONGLY_TYPED}
 * @param precision the precision the engine computes in ({@link EngineInspection#precision()}: the narrowest
 *     type among its layers, from the inspector, never from builder flags): {@code fp32}, {@code fp16},
 *     {@code bf16}, {@code fp8}, {@code int8}, {@code fp4}; null when unknown (failed build, no inspection)
 * @param stronglyTyped whether the network was strongly typed
 * @param optimizationLevel builder optimisation level, -1 unknown
 * @param networkLayerCount layers in the network definition, -1 unknown
 * @param engineLayerCount layers in the built engine, -1 unknown
 * @param fusedGroups engine layers that absorbed two or more network layers
 * @param layers engine layers in engine order
 * @param deviceMemoryBytes device memory the engine needs, -1 unknown
 * @param planBytes serialized plan size, -1 unknown
 * @param buildMs wall time of the build, NaN unknown
 * @param phases build phases from the progress monitor
 * @param warnings warning lines logged during the build
 * @param errors errors logged or recorded during the build
 * @param log every TensorRT line of the build, VERBOSE included, as {@code SEVERITY kind: message}
 *     (after redaction); captured into the report without being printed
 * @param diagnosis why a failed build failed, null for a success
 * @param engineFingerprint see {@link #fingerprint}
 * @param createdAt when the report was made
 */
public record BuildReport(
    Status status,
    String modelName,
    @Nullable String tensorrtVersion,
    Gpu gpu,
    @Nullable String driverVersion,
    @Nullable String cudaRuntimeVersion,
    List<String> builderFlags,
    @Nullable String precision,
    boolean stronglyTyped,
    int optimizationLevel,
    int networkLayerCount,
    int engineLayerCount,
    List<FusedGroup> fusedGroups,
    List<Layer> layers,
    long deviceMemoryBytes,
    long planBytes,
    double buildMs,
    List<Phase> phases,
    List<String> warnings,
    List<BuildError> errors,
    List<String> log,
    @Nullable BuildFailureDiagnosis diagnosis,
    @Nullable String engineFingerprint,
    Instant createdAt) {

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
      throw new IllegalArgumentException("unknown build status: " + s);
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

  public BuildReport {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(modelName, "modelName");
    Objects.requireNonNull(gpu, "gpu");
    Objects.requireNonNull(createdAt, "createdAt");
    builderFlags = List.copyOf(builderFlags);
    fusedGroups = List.copyOf(fusedGroups);
    layers = List.copyOf(layers);
    phases = List.copyOf(phases);
    warnings = List.copyOf(warnings);
    errors = List.copyOf(errors);
    log = List.copyOf(log);
  }

  /** A builder for a report on {@code modelName}; status defaults to success. */
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

  /**
   * Fraction of network layers absorbed into multi-layer engine layers: the sum of {@code
   * networkLayers.size()} over {@link #fusedGroups()} divided by {@link #networkLayerCount()}. NaN
   * when the network layer count is unknown or zero. 0 means nothing was fused.
   */
  public double fusionRate() {
    if (networkLayerCount <= 0) {
      return Double.NaN;
    }
    long absorbed = fusedGroups.stream().mapToLong(g -> g.networkLayers().size()).sum();
    return Math.min(1.0, (double) absorbed / networkLayerCount);
  }

  /** Engine layers whose name matches {@code regex} (find, not full match). */
  public List<Layer> layersMatching(String regex) {
    Pattern p = Pattern.compile(regex);
    return layers.stream().filter(l -> p.matcher(l.name()).find()).collect(Collectors.toList());
  }

  /**
   * "Were all layers matching {@code regex} fused?" True when at least one engine layer matches (by
   * its own name or a network layer it absorbed) and every matching engine layer absorbed two or more
   * network layers. Layers the builder inserted (reformat copies, no-ops) are ignored. False when
   * nothing matches.
   */
  public boolean allFused(String regex) {
    Pattern p = Pattern.compile(regex);
    boolean any = false;
    for (Layer l : layers) {
      if (builderInserted(l)) {
        continue;
      }
      FusedGroup g = groupOf(l.name());
      boolean matches =
          p.matcher(l.name()).find()
              || (g != null && g.networkLayers().stream().anyMatch(n -> p.matcher(n).find()));
      if (matches) {
        any = true;
        if (g == null) {
          return false;
        }
      }
    }
    if (layers.isEmpty()) {
      for (FusedGroup g : fusedGroups) {
        any |= g.networkLayers().stream().anyMatch(n -> p.matcher(n).find());
      }
    }
    return any;
  }

  private static boolean builderInserted(Layer l) {
    return "Reformat".equals(l.type()) || "NoOp".equals(l.type()) || l.name().startsWith("Reformatting CopyNode");
  }

  private @Nullable FusedGroup groupOf(String engineLayer) {
    for (FusedGroup g : fusedGroups) {
      if (g.engineLayer().equals(engineLayer)) {
        return g;
      }
    }
    return null;
  }

  /** Engine layers with any of the given precisions ({@code "fp32"}, {@code "fp16"}, ...). */
  public List<Layer> layersWithPrecision(String... precisions) {
    List<String> wanted = List.of(precisions);
    // a layer may have no precision (e.g. a Myelin shape_call with no tensor output)
    return layers.stream().filter(l -> l.precision() != null && wanted.contains(l.precision()))
        .collect(Collectors.toList());
  }

  /**
   * "Did any layer fall back to FP32?" The FP32 layers when the build asked for a lower precision
   * (fp16, bf16, fp8, int8, fp4); empty for FP32 builds or unknown precision.
   */
  public List<Layer> fp32Fallbacks() {
    int requested = Precisions.rank(precision);
    if (requested <= 0 || requested >= Precisions.rank("fp32")) {
      return List.of();
    }
    return layersWithPrecision("fp32");
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
    Objects.requireNonNull(engineLayer, "engineLayer");
    Layer layer = null;
    for (Layer l : layers) {
      if (l.name().equals(engineLayer)) {
        layer = l;
        break;
      }
    }
    List<String> absorbed = List.of();
    for (FusedGroup g : fusedGroups) {
      if (g.engineLayer().equals(engineLayer)) {
        absorbed = g.networkLayers();
        break;
      }
    }
    List<String> names = new ArrayList<>(absorbed);
    names.add(engineLayer);
    List<String> named = new ArrayList<>();
    for (String w : warnings) {
      if (names.stream().anyMatch(n -> mentions(w, n))) {
        named.add(w);
      }
    }
    return new LayerExplanation(engineLayer, layer, absorbed, named);
  }

  /** Whether {@code text} names {@code layer} as a whole name (so "fc1" does not match "fc10"). */
  private static boolean mentions(String text, String layer) {
    int from = 0;
    while (!layer.isEmpty()) {
      int i = text.indexOf(layer, from);
      if (i < 0) {
        return false;
      }
      int end = i + layer.length();
      boolean startOk = i == 0 || !isNamePart(text.charAt(i - 1));
      boolean endOk = end == text.length() || !isNamePart(text.charAt(end));
      if (startOk && endOk) {
        return true;
      }
      from = i + 1;
    }
    return false;
  }

  private static boolean isNamePart(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }

  /** What changed from {@code baseline} to this report, without thresholds. */
  public BuildDiff diff(BuildReport baseline) {
    return BuildDiff.compute(this, baseline, BuildGate.Thresholds.ZERO);
  }

  /**
   * The engine fingerprint: lowercase hex SHA-256 over the plan bytes followed by the UTF-8 bytes of
   * {@code "\ntensorrt_version=<v>\ncompute_capability=<cc>\nprecision=<p>\nstrongly_typed=<true|false>\nbuilder_flags=<f1,f2,...>"},
   * flags sorted and de-duplicated, null written as the empty string.
   */
  public static String fingerprint(
      byte[] plan,
      @Nullable String tensorrtVersion,
      @Nullable String computeCapability,
      @Nullable String precision,
      boolean stronglyTyped,
      List<String> builderFlags) {
    MessageDigest sha = sha256();
    sha.update(plan);
    return fingerprint(sha, tensorrtVersion, computeCapability, precision, stronglyTyped, builderFlags);
  }

  /**
   * The same fingerprint from a SHA-256 digest that has been fed the plan bytes (in chunks, for a plan
   * streamed to its file); the digest is finished here.
   */
  public static String fingerprint(
      MessageDigest planDigest,
      @Nullable String tensorrtVersion,
      @Nullable String computeCapability,
      @Nullable String precision,
      boolean stronglyTyped,
      List<String> builderFlags) {
    String identity =
        "\ntensorrt_version=" + nz(tensorrtVersion)
            + "\ncompute_capability=" + nz(computeCapability)
            + "\nprecision=" + nz(precision)
            + "\nstrongly_typed=" + stronglyTyped
            + "\nbuilder_flags=" + String.join(",", new TreeSet<>(builderFlags));
    planDigest.update(identity.getBytes(StandardCharsets.UTF_8));
    StringBuilder hex = new StringBuilder(64);
    for (byte b : planDigest.digest()) {
      hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
    }
    return hex.toString();
  }

  /** A new SHA-256 digest, the fingerprint's hash. */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static String nz(@Nullable String s) {
    return s == null ? "" : s;
  }

  /** A builder initialised with this report's values. */
  public Builder toBuilder() {
    Builder b = new Builder(modelName);
    b.status = status;
    b.tensorrtVersion = tensorrtVersion;
    b.gpu = gpu;
    b.driverVersion = driverVersion;
    b.cudaRuntimeVersion = cudaRuntimeVersion;
    b.builderFlags.addAll(builderFlags);
    b.precision = precision;
    b.stronglyTyped = stronglyTyped;
    b.optimizationLevel = optimizationLevel;
    b.networkLayerCount = networkLayerCount;
    b.engineLayerCount = engineLayerCount;
    b.fusedGroups.addAll(fusedGroups);
    b.layers.addAll(layers);
    b.deviceMemoryBytes = deviceMemoryBytes;
    b.planBytes = planBytes;
    b.buildMs = buildMs;
    b.phases.addAll(phases);
    b.warnings.addAll(warnings);
    b.errors.addAll(errors);
    b.log.addAll(log);
    b.diagnosis = diagnosis;
    b.engineFingerprint = engineFingerprint;
    b.createdAt = createdAt;
    return b;
  }

  // ---------------------------------------------------------------- JSON

  /** The report as pretty-printed JSON. */
  public String toJson() {
    StringWriter w = new StringWriter();
    writeTo(w);
    return w.toString();
  }

  /** Writes {@link #toJson()} to {@code file} (UTF-8), creating parent directories. */
  public void write(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      writeTo(w);
    }
  }

  /** Reads a report written by {@link #write(Path)}. */
  public static BuildReport read(Path file) throws IOException {
    return read(Files.readString(file, StandardCharsets.UTF_8));
  }

  /** Parses a report from JSON; unknown fields are ignored, {@code fusion_rate} is recomputed. */
  public static BuildReport read(String json) {
    Map<String, @Nullable Object> m = Json.object(Json.parse(json), "build report");
    Builder b = new Builder(Objects.requireNonNullElse(Json.string(m, "model_name"), ""));
    b.status = Status.fromWire(Json.string(m, "status"));
    b.tensorrtVersion = Json.string(m, "tensorrt_version");
    Object gpu = m.get("gpu");
    if (gpu != null) {
      Map<String, @Nullable Object> g = Json.object(gpu, "gpu");
      b.gpu = new Gpu(Json.string(g, "name"), Json.string(g, "compute_capability"));
    }
    b.driverVersion = Json.string(m, "driver_version");
    b.cudaRuntimeVersion = Json.string(m, "cuda_runtime_version");
    b.builderFlags.addAll(Json.strings(m, "builder_flags"));
    b.precision = Json.string(m, "precision");
    b.stronglyTyped = Boolean.TRUE.equals(m.get("strongly_typed"));
    b.optimizationLevel = (int) Json.number(m, "optimization_level", -1);
    b.networkLayerCount = (int) Json.number(m, "network_layer_count", -1);
    b.engineLayerCount = (int) Json.number(m, "engine_layer_count", -1);
    for (Object o : Json.array(m.get("fused_groups"), "fused_groups")) {
      Map<String, @Nullable Object> g = Json.object(o, "fused group");
      b.fusedGroups.add(new FusedGroup(Objects.requireNonNullElse(Json.string(g, "engine_layer"), ""), Json.strings(g, "network_layers")));
    }
    for (Object o : Json.array(m.get("layers"), "layers")) {
      Map<String, @Nullable Object> l = Json.object(o, "layer");
      b.layers.add(new Layer(Objects.requireNonNullElse(Json.string(l, "name"), ""), Json.string(l, "type"),
          Json.string(l, "precision"), Json.strings(l, "output_types"), Json.string(l, "tactic")));
    }
    b.deviceMemoryBytes = Json.number(m, "device_memory_bytes", -1);
    b.planBytes = Json.number(m, "plan_bytes", -1);
    b.buildMs = Json.decimal(m, "build_ms");
    for (Object o : Json.array(m.get("phases"), "phases")) {
      Map<String, @Nullable Object> p = Json.object(o, "phase");
      b.phases.add(new Phase(Objects.requireNonNullElse(Json.string(p, "name"), ""), Json.decimal(p, "ms")));
    }
    b.warnings.addAll(Json.strings(m, "warnings"));
    for (Object o : Json.array(m.get("errors"), "errors")) {
      Map<String, @Nullable Object> e = Json.object(o, "error");
      b.errors.add(new BuildError((int) Json.number(e, "code", -1), Json.string(e, "category"),
          Objects.requireNonNullElse(Json.string(e, "message"), "")));
    }
    if (m.containsKey("log")) {
      b.log.addAll(Json.strings(m, "log"));
    }
    Object d = m.get("diagnosis");
    if (d != null) {
      Map<String, @Nullable Object> dm = Json.object(d, "diagnosis");
      b.diagnosis = new BuildFailureDiagnosis(
          BuildFailureDiagnosis.Cause.fromWire(Json.string(dm, "cause")),
          Objects.requireNonNullElse(Json.string(dm, "summary"), ""),
          Json.string(dm, "missing_file"), Json.strings(dm, "fix_steps"));
    }
    b.engineFingerprint = Json.string(m, "engine_fingerprint");
    String created = Json.string(m, "created_at");
    if (created != null) {
      b.createdAt = Instant.parse(created);
    }
    return b.build();
  }

  private void writeTo(Writer w) {
    try (JsonGenerator g = Json.FACTORY.createGenerator(w)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeStringField("status", status.wireName());
      g.writeStringField("model_name", modelName);
      g.writeStringField("tensorrt_version", tensorrtVersion);
      g.writeObjectFieldStart("gpu");
      g.writeStringField("name", gpu.name());
      g.writeStringField("compute_capability", gpu.computeCapability());
      g.writeEndObject();
      g.writeStringField("driver_version", driverVersion);
      g.writeStringField("cuda_runtime_version", cudaRuntimeVersion);
      strings(g, "builder_flags", builderFlags);
      g.writeStringField("precision", precision);
      g.writeBooleanField("strongly_typed", stronglyTyped);
      g.writeNumberField("optimization_level", optimizationLevel);
      g.writeNumberField("network_layer_count", networkLayerCount);
      g.writeNumberField("engine_layer_count", engineLayerCount);
      g.writeArrayFieldStart("fused_groups");
      for (FusedGroup f : fusedGroups) {
        g.writeStartObject();
        g.writeStringField("engine_layer", f.engineLayer());
        strings(g, "network_layers", f.networkLayers());
        g.writeEndObject();
      }
      g.writeEndArray();
      decimal(g, "fusion_rate", fusionRate());
      g.writeArrayFieldStart("layers");
      for (Layer l : layers) {
        g.writeStartObject();
        g.writeStringField("name", l.name());
        g.writeStringField("type", l.type());
        g.writeStringField("precision", l.precision());
        strings(g, "output_types", l.outputTypes());
        g.writeStringField("tactic", l.tactic());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeNumberField("device_memory_bytes", deviceMemoryBytes);
      g.writeNumberField("plan_bytes", planBytes);
      decimal(g, "build_ms", buildMs);
      g.writeArrayFieldStart("phases");
      for (Phase p : phases) {
        g.writeStartObject();
        g.writeStringField("name", p.name());
        decimal(g, "ms", p.ms());
        g.writeEndObject();
      }
      g.writeEndArray();
      strings(g, "warnings", warnings);
      g.writeArrayFieldStart("errors");
      for (BuildError e : errors) {
        g.writeStartObject();
        g.writeNumberField("code", e.code());
        g.writeStringField("category", e.category());
        g.writeStringField("message", e.message());
        g.writeEndObject();
      }
      g.writeEndArray();
      strings(g, "log", log);
      if (diagnosis == null) {
        g.writeNullField("diagnosis");
      } else {
        g.writeObjectFieldStart("diagnosis");
        g.writeStringField("cause", diagnosis.cause().wireName());
        g.writeStringField("summary", diagnosis.summary());
        g.writeStringField("missing_file", diagnosis.missingFile());
        strings(g, "fix_steps", diagnosis.fixSteps());
        g.writeEndObject();
      }
      g.writeStringField("engine_fingerprint", engineFingerprint);
      g.writeStringField("created_at", createdAt.toString());
      g.writeEndObject();
    } catch (IOException e) {
      Json.rethrow(e);
    }
  }

  private static void strings(JsonGenerator g, String field, List<String> values) throws IOException {
    g.writeArrayFieldStart(field);
    for (String v : values) {
      g.writeString(v);
    }
    g.writeEndArray();
  }

  private static void decimal(JsonGenerator g, String field, double v) throws IOException {
    if (Double.isFinite(v)) {
      g.writeNumberField(field, v);
    } else {
      g.writeNullField(field);
    }
  }

  /** Builds a {@link BuildReport}. Not thread-safe. */
  public static final class Builder {
    private final String modelName;
    private Status status = Status.SUCCESS;
    private @Nullable String tensorrtVersion;
    private Gpu gpu = Gpu.UNKNOWN;
    private @Nullable String driverVersion;
    private @Nullable String cudaRuntimeVersion;
    private final List<String> builderFlags = new ArrayList<>();
    private @Nullable String precision;
    private boolean stronglyTyped;
    private int optimizationLevel = -1;
    private int networkLayerCount = -1;
    private int engineLayerCount = -1;
    private final List<FusedGroup> fusedGroups = new ArrayList<>();
    private final List<Layer> layers = new ArrayList<>();
    private long deviceMemoryBytes = -1;
    private long planBytes = -1;
    private @Nullable MessageDigest planDigest;
    private byte @Nullable [] plan;
    private double buildMs = Double.NaN;
    private final List<Phase> phases = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final List<BuildError> errors = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    private @Nullable BuildFailureDiagnosis diagnosis;
    private @Nullable String engineFingerprint;
    private Instant createdAt = Instant.now();

    private Builder(String modelName) {
      this.modelName = Objects.requireNonNull(modelName, "modelName");
    }

    public Builder status(Status s) { this.status = Objects.requireNonNull(s, "status"); return this; }

    public Builder tensorrtVersion(@Nullable String v) { this.tensorrtVersion = v; return this; }

    public Builder gpu(@Nullable String name, @Nullable String computeCapability) {
      this.gpu = new Gpu(name, computeCapability);
      return this;
    }

    public Builder driverVersion(@Nullable String v) { this.driverVersion = v; return this; }

    public Builder cudaRuntimeVersion(@Nullable String v) { this.cudaRuntimeVersion = v; return this; }

    public Builder builderFlag(String flag) { builderFlags.add(Objects.requireNonNull(flag, "flag")); return this; }

    /**
     * The engine's precision, normalised to lower case ({@code fp16}, {@code bf16}, {@code fp8}, ...);
     * {@link #inspection} sets it from the engine's layers.
     */
    public Builder precision(@Nullable String p) { this.precision = p == null ? null : Precisions.normalize(p); return this; }

    public Builder stronglyTyped(boolean v) { this.stronglyTyped = v; return this; }

    public Builder optimizationLevel(int v) { this.optimizationLevel = v; return this; }

    public Builder networkLayerCount(int v) { this.networkLayerCount = v; return this; }

    public Builder engineLayerCount(int v) { this.engineLayerCount = v; return this; }

    public Builder fusedGroup(FusedGroup g) { fusedGroups.add(Objects.requireNonNull(g, "group")); return this; }

    public Builder layer(Layer l) { layers.add(Objects.requireNonNull(l, "layer")); return this; }

    /** Takes layers, fused groups and the engine layer count from an inspector analysis. */
    Builder inspection(EngineInspection inspection) {
      String used = inspection.precision();
      if (used != null) {
        precision(used);
      }
      layers.clear();
      layers.addAll(inspection.layers());
      fusedGroups.clear();
      fusedGroups.addAll(inspection.fusedGroups());
      engineLayerCount = inspection.layers().size();
      return this;
    }

    public Builder deviceMemoryBytes(long v) { this.deviceMemoryBytes = v; return this; }

    /** The serialized plan: sets {@code plan_bytes} and, at {@link #build()}, the fingerprint. */
    public Builder plan(byte[] serializedPlan) {
      this.plan = serializedPlan.clone();
      this.planBytes = serializedPlan.length;
      return this;
    }

    public Builder planBytes(long v) { this.planBytes = v; return this; }

    /**
     * A plan that was streamed rather than held: its size and a SHA-256 digest fed its bytes (see
     * {@link PlanWriter}); at {@link #build()} the fingerprint is finished from the digest.
     */
    public Builder planDigest(MessageDigest shaOverPlan, long bytes) {
      this.planDigest = Objects.requireNonNull(shaOverPlan, "shaOverPlan");
      this.plan = null;
      this.planBytes = bytes;
      return this;
    }

    public Builder buildMs(double v) { this.buildMs = v; return this; }

    public Builder phase(String name, double ms) { phases.add(new Phase(name, ms)); return this; }

    public Builder warning(String w) { warnings.add(Objects.requireNonNull(w, "warning")); return this; }

    public Builder error(BuildError e) { errors.add(Objects.requireNonNull(e, "error")); return this; }

    public Builder diagnosis(@Nullable BuildFailureDiagnosis d) { this.diagnosis = d; return this; }

    public Builder engineFingerprint(@Nullable String f) { this.engineFingerprint = f; return this; }

    public Builder createdAt(Instant t) { this.createdAt = Objects.requireNonNull(t, "createdAt"); return this; }

    /**
     * Adds the build's warnings (WARNING lines) and errors (ERROR/INTERNAL_ERROR lines and recorded
     * errors; a recorded error whose description was also logged is kept once).
     */
    public Builder fromBuildLog(List<TrtLogEvent> events, List<RecordedError> recorded) {
      for (TrtLogEvent e : events) {
        log.add(e.severity().name() + ' ' + e.kind().wireName() + ": " + e.message());
        if (e.severity() == TrtSeverity.WARNING) {
          warnings.add(e.message());
        } else if (e.isError()) {
          errors.add(new BuildError(e.errorCode(), e.errorCategory(), e.message()));
        }
      }
      for (RecordedError r : recorded) {
        boolean logged = errors.stream().anyMatch(x -> x.message().equals(r.description()));
        if (!logged) {
          TrtLogClassifier.ErrorLine line = TrtLogClassifier.errorLine(r.description());
          errors.add(new BuildError(r.code(), line == null ? null : line.category(), r.description()));
        }
      }
      return this;
    }

    /** Builds the report; computes the fingerprint when a plan was given and no fingerprint set. */
    public BuildReport build() {
      String fp = engineFingerprint;
      if (fp == null && plan != null) {
        fp = fingerprint(plan, tensorrtVersion, gpu.computeCapability(), precision, stronglyTyped, builderFlags);
      } else if (fp == null && planDigest != null) {
        MessageDigest sha;
        try {
          sha = (MessageDigest) planDigest.clone(); // build() may run more than once
        } catch (CloneNotSupportedException e) {
          throw new IllegalStateException("SHA-256 digests are cloneable on every Java platform", e);
        }
        fp = fingerprint(sha, tensorrtVersion, gpu.computeCapability(), precision, stronglyTyped, builderFlags);
      }
      int engineLayers = engineLayerCount < 0 && !layers.isEmpty() ? layers.size() : engineLayerCount;
      return new BuildReport(status, modelName, tensorrtVersion, gpu, driverVersion, cudaRuntimeVersion,
          builderFlags, precision, stronglyTyped, optimizationLevel, networkLayerCount, engineLayers,
          fusedGroups, layers, deviceMemoryBytes, planBytes, buildMs, phases, warnings, errors, log, diagnosis, fp,
          createdAt);
    }
  }
}
