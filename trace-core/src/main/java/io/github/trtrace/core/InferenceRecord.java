// Over 400 lines: one accessor, builder setter and check per record field (35 fields), and the worker's constructor from a pooled entry, kept together as the record type.
package io.github.trtrace.core;

import io.github.trtrace.core.internal.trace.RecordValues;
import io.github.trtrace.core.internal.trace.TracerFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One request's immutable record: the snapshot written as one JSON line. Sinks and listeners only
 * ever see immutable data, and may keep it.
 *
 * <p>Where it is built (issue 10): a trace fills a pooled, mutable entry on the caller thread and
 * trtrace's dispatcher worker builds this record from it, so that the caller allocates nothing (the
 * record, its builder and its collections cost about 1.4 KB per request). This type stays immutable
 * rather than becoming a reused view, because user sinks and listeners receive it and may keep it
 * beyond the call; the allocation moved to the worker, where it does not slow the request down. A
 * {@link TraceListener}'s {@code onEnd} and a user-supplied dispatcher get it built on the caller.
 *
 * <p>Unknown numeric values are {@code -1} (counts) or {@code NaN} (durations, utilisation) and are
 * left out of the JSON line; unknown strings are {@code null}. Field names, units and the sanitising
 * every output applies are in {@link RecordConvention}.
 *
 * <pre>{@code
 * InferenceRecord r = InferenceRecord.builder("req-abc", "llama-8b")
 *     .status(Status.SUCCESS).latencyMs(41.7).inputTokens(12).outputTokens(80).build();
 * }</pre>
 */
public final class InferenceRecord {


  /**
   * Something that happened during the request, e.g. a TensorRT warning attributed to it.
   *
   * @param kind short machine-readable category, e.g. {@code "tensorrt.out_of_memory"}
   * @param severity {@code "error"}, {@code "warning"}, {@code "info"} or {@code "verbose"}
   * @param message human-readable text (already redacted)
   * @param offsetMs milliseconds since the trace started, or {@code NaN} when unknown
   */
  public record Event(String kind, String severity, String message, double offsetMs) {
    public Event {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(severity, "severity");
      Objects.requireNonNull(message, "message");
    }
  }

  /**
   * Time spent in one engine layer for this request (per-layer profiling, on demand).
   *
   * @param name layer name as TensorRT reports it (after redaction)
   * @param ms total milliseconds in this layer for the request
   * @param invocations how many times the layer ran (e.g. once per generated token)
   */
  public record LayerTime(String name, double ms, int invocations) {
    public LayerTime {
      Objects.requireNonNull(name, "name");
    }
  }

  private final Instant timestamp;
  private final String requestId;
  private final String modelName;
  private final Status status;
  private final @Nullable String errorType;
  private final double latencyMs;
  private final @Nullable String traceId;
  private final @Nullable String spanId;
  private final int inputTokens;
  private final int outputTokens;
  private final int maxTokens;
  private final double temperature;
  private final double topP;
  private final @Nullable String finishReason;
  private final double queueMs;
  private final double preprocessMs;
  private final double inferMs;
  private final double gpuMs;
  private final double decodeMs;
  private final double postprocessMs;
  private final double ttftMs;
  private final double tpotMs;
  private final double gpuUtil;
  private final double gpuUtilMean;
  private final double gpuUtilMax;
  private final double gpuMemUtilMean;
  private final double gpuMemUtilMax;
  private final double gpuMemUsedMb;
  private final @Nullable String engineFingerprint;
  private final @Nullable String sampledReason;
  private final Set<InputFlag> inputFlags;
  private final @Nullable String inputDigest;
  private final Set<OutputFlag> outputFlags;
  private final List<Event> events;
  private final List<LayerTime> layers;
  private final Map<String, String> attributes;
  private final SharedLaunch.@Nullable Summary batching;

  /**
   * The builder's values with the given collections, which this record keeps as they are: each caller hands
   * over copies made for this record alone (immutable; never the builder's or a pooled entry's own).
   */
  private InferenceRecord(Builder b, Map<String, String> attributes, List<Event> events, List<LayerTime> layers) {
    this.batching = b.batching;
    this.timestamp = b.timestamp;
    this.requestId = b.requestId;
    this.modelName = b.modelName;
    this.status = b.status;
    this.errorType = b.errorType;
    this.latencyMs = b.latencyMs;
    this.traceId = b.traceId;
    this.spanId = b.spanId;
    this.inputTokens = b.inputTokens;
    this.outputTokens = b.outputTokens;
    this.maxTokens = b.maxTokens;
    this.temperature = b.temperature;
    this.topP = b.topP;
    this.finishReason = b.finishReason;
    this.queueMs = b.queueMs;
    this.preprocessMs = b.preprocessMs;
    this.inferMs = b.inferMs;
    this.gpuMs = b.gpuMs;
    this.decodeMs = b.decodeMs;
    this.postprocessMs = b.postprocessMs;
    this.ttftMs = b.ttftMs;
    this.tpotMs = b.tpotMs;
    this.gpuUtil = b.gpuUtil;
    this.gpuUtilMean = b.gpuUtilMean;
    this.gpuUtilMax = b.gpuUtilMax;
    this.gpuMemUtilMean = b.gpuMemUtilMean;
    this.gpuMemUtilMax = b.gpuMemUtilMax;
    this.gpuMemUsedMb = b.gpuMemUsedMb;
    this.engineFingerprint = b.engineFingerprint;
    this.sampledReason = b.sampledReason;
    this.inputFlags = b.inputFlags; // an unmodifiable copy the builder made
    this.inputDigest = b.inputDigest;
    this.outputFlags = b.outputFlags;
    this.events = events;
    this.layers = layers;
    this.attributes = attributes;
  }

  static {
    // the engine checks entries on the caller with this rule, and the worker builds records from them with
    // the assembly below
    TracerFactory.install(Builder::check, InferenceRecord::assemble);
  }

  /**
   * The dispatcher's build of a record from a pooled entry (issue 22): the entry's values read straight into the
   * record, its attributes, events and layers copied once into this record's immutable collections, with no
   * builder in between. No checks: the entry ran {@link Builder#check} on the caller. The entry is reset and
   * reused afterwards, so nothing of it may be kept here.
   */
  private static InferenceRecord assemble(RecordValues v) {
    return new InferenceRecord(v);
  }

  /**
   * The same record as a builder with {@code v}'s values would build (the two constructors assign the same fields
   * from the same values; {@code RecordOwnershipTest} compares them), without the builder: the worker's path.
   */
  private InferenceRecord(RecordValues v) {
    this.batching = v.batching();
    this.timestamp = v.timestamp();
    this.requestId = v.requestId();
    this.modelName = v.modelName();
    this.status = v.status();
    this.errorType = v.errorType();
    this.latencyMs = v.latencyMs();
    this.traceId = v.traceId();
    this.spanId = v.spanId();
    this.inputTokens = v.inputTokens();
    this.outputTokens = v.outputTokens();
    this.maxTokens = v.maxTokens();
    this.temperature = v.temperature();
    this.topP = v.topP();
    this.finishReason = v.finishReason();
    this.queueMs = v.stageMs(Stage.QUEUE);
    this.preprocessMs = v.stageMs(Stage.PREPROCESS);
    this.inferMs = v.stageMs(Stage.INFER);
    this.gpuMs = v.gpuMs();
    this.decodeMs = v.stageMs(Stage.DECODE);
    this.postprocessMs = v.stageMs(Stage.POSTPROCESS);
    this.ttftMs = v.ttftMs();
    this.tpotMs = v.tpotMs();
    this.gpuUtil = v.gpuUtil();
    this.gpuUtilMean = v.gpuUtilMean();
    this.gpuUtilMax = v.gpuUtilMax();
    this.gpuMemUtilMean = v.gpuMemUtilMean();
    this.gpuMemUtilMax = v.gpuMemUtilMax();
    this.gpuMemUsedMb = v.gpuMemUsedMb();
    this.engineFingerprint = v.engineFingerprint();
    this.sampledReason = v.sampledReason();
    this.inputFlags = Builder.immutableCopy(v.inputFlags()); // the entry's set may be reused: copied, as the builder does
    this.inputDigest = v.inputDigest();
    this.outputFlags = Builder.immutableCopy(v.outputFlags());
    this.events = copy(v.events());
    this.layers = copy(v.layers());
    this.attributes = RecordAttributes.copyOf(v.attributeKeys(), v.attributeValues(), v.attributeCount());
  }

  private static <T> List<T> copy(@Nullable List<T> list) {
    return list == null || list.isEmpty() ? List.of() : List.copyOf(list);
  }

  /** Starts a record for the given request and model; both are required. */
  public static Builder builder(String requestId, String modelName) {
    return new Builder(requestId, modelName);
  }

  /** A builder pre-filled with this record's values, e.g. to add the sampling reason. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public Instant timestamp() { return timestamp; }
  public String requestId() { return requestId; }
  public String modelName() { return modelName; }
  public Status status() { return status; }
  public @Nullable String errorType() { return errorType; }
  /** End-to-end latency in milliseconds, queueing included. */
  public double latencyMs() { return latencyMs; }
  public @Nullable String traceId() { return traceId; }
  public @Nullable String spanId() { return spanId; }
  /** Input token count, or -1 when unknown. */
  public int inputTokens() { return inputTokens; }
  /** Output token count, or -1 when unknown. */
  public int outputTokens() { return outputTokens; }
  /** The request's limit on generated tokens, or -1 when unknown. */
  public int maxTokens() { return maxTokens; }
  /** The request's sampling temperature (>= 0), or NaN when unknown. */
  public double temperature() { return temperature; }
  /** The request's nucleus-sampling probability (0..1), or NaN when unknown. */
  public double topP() { return topP; }
  /** Why generation stopped, e.g. {@code "stop"}, {@code "length"}; null when unknown. */
  public @Nullable String finishReason() { return finishReason; }
  public double queueMs() { return queueMs; }
  public double preprocessMs() { return preprocessMs; }
  /** Host-side engine time (enqueue to sync). */
  public double inferMs() { return inferMs; }
  /** Device-side engine time measured with CUDA events, or NaN. */
  public double gpuMs() { return gpuMs; }
  public double decodeMs() { return decodeMs; }
  public double postprocessMs() { return postprocessMs; }
  /** Time to first token, from trace start (queue included). */
  public double ttftMs() { return ttftMs; }
  /** Mean time per output token after the first. */
  public double tpotMs() { return tpotMs; }
  /** GPU utilisation in percent (0..100) from the latest metrics poll when the request ended, or NaN. */
  public double gpuUtil() { return gpuUtil; }
  /** Mean SM utilisation (percent) over the readings in effect during the request, or NaN. */
  public double gpuUtilMean() { return gpuUtilMean; }
  /** Highest SM utilisation (percent) during the request, or NaN. */
  public double gpuUtilMax() { return gpuUtilMax; }
  /** Mean memory-bandwidth utilisation (percent) during the request, or NaN. */
  public double gpuMemUtilMean() { return gpuMemUtilMean; }
  /** Highest memory-bandwidth utilisation (percent) during the request, or NaN. */
  public double gpuMemUtilMax() { return gpuMemUtilMax; }
  public double gpuMemUsedMb() { return gpuMemUsedMb; }
  public @Nullable String engineFingerprint() { return engineFingerprint; }
  /** Why the record was kept: {@code error}, {@code timeout}, {@code slow}, {@code sampled}, ... */
  public @Nullable String sampledReason() { return sampledReason; }
  public Set<InputFlag> inputFlags() { return inputFlags; }
  /** Redacted, truncated input excerpt; only on error/slow records and only when enabled. */
  public @Nullable String inputDigest() { return inputDigest; }
  /** Properties of the response text that suggest garbled output; empty when none or not inspected. */
  public Set<OutputFlag> outputFlags() { return outputFlags; }
  public List<Event> events() { return events; }
  public List<LayerTime> layers() { return layers; }
  public Map<String, String> attributes() { return attributes; }

  /**
   * The request's shared launches, summed up (batch sizes, its GPU share's method, slot wait,
   * neighbours' prefill, preemptions, failed launches); null when it joined no {@link SharedLaunch}
   * and waited for none.
   */
  public SharedLaunch.@Nullable Summary batching() { return batching; }

  /** The stage time for {@code stage}, or NaN when the stage was not timed. */
  public double stageMs(Stage stage) {
    switch (stage) {
      case QUEUE:
        return queueMs;
      case PREPROCESS:
        return preprocessMs;
      case INFER:
        return inferMs;
      case DECODE:
        return decodeMs;
      case POSTPROCESS:
        return postprocessMs;
      default:
        throw new AssertionError(stage);
    }
  }

  @Override
  public String toString() {
    return "InferenceRecord{request_id="
        + requestId
        + ", model_name="
        + modelName
        + ", status="
        + status.wireName()
        + ", latency_ms="
        + latencyMs
        + '}';
  }

  /** Mutable builder; not thread-safe. Values are validated in {@link #build()}. */
  public static final class Builder {
    private Instant timestamp = Instant.EPOCH;
    private String requestId;
    private String modelName;
    private Status status = Status.SUCCESS;
    private @Nullable String errorType;
    private double latencyMs = Double.NaN;
    private @Nullable String traceId;
    private @Nullable String spanId;
    private int inputTokens = -1;
    private int outputTokens = -1;
    private int maxTokens = -1;
    private double temperature = Double.NaN;
    private double topP = Double.NaN;
    private @Nullable String finishReason;
    private double queueMs = Double.NaN;
    private double preprocessMs = Double.NaN;
    private double inferMs = Double.NaN;
    private double gpuMs = Double.NaN;
    private double decodeMs = Double.NaN;
    private double postprocessMs = Double.NaN;
    private double ttftMs = Double.NaN;
    private double tpotMs = Double.NaN;
    private double gpuUtil = Double.NaN;
    private double gpuUtilMean = Double.NaN;
    private double gpuUtilMax = Double.NaN;
    private double gpuMemUtilMean = Double.NaN;
    private double gpuMemUtilMax = Double.NaN;
    private double gpuMemUsedMb = Double.NaN;
    private @Nullable String engineFingerprint;
    private @Nullable String sampledReason;
    private Set<InputFlag> inputFlags = Collections.emptySet();
    private @Nullable String inputDigest;
    private Set<OutputFlag> outputFlags = Collections.emptySet();
    /** Made on first use: a builder that carries none allocates none. */
    private @Nullable List<Event> events;
    private @Nullable List<LayerTime> layers;
    private @Nullable Map<String, String> attributes;
    private SharedLaunch.@Nullable Summary batching;

    private Builder(String requestId, String modelName) {
      this.requestId = Objects.requireNonNull(requestId, "requestId");
      this.modelName = Objects.requireNonNull(modelName, "modelName");
    }

    private Builder(InferenceRecord r) {
      this(r.requestId, r.modelName);
      timestamp = r.timestamp;
      status = r.status;
      errorType = r.errorType;
      latencyMs = r.latencyMs;
      traceId = r.traceId;
      spanId = r.spanId;
      inputTokens = r.inputTokens;
      outputTokens = r.outputTokens;
      maxTokens = r.maxTokens;
      temperature = r.temperature;
      topP = r.topP;
      finishReason = r.finishReason;
      queueMs = r.queueMs;
      preprocessMs = r.preprocessMs;
      inferMs = r.inferMs;
      gpuMs = r.gpuMs;
      decodeMs = r.decodeMs;
      postprocessMs = r.postprocessMs;
      ttftMs = r.ttftMs;
      tpotMs = r.tpotMs;
      gpuUtil = r.gpuUtil;
      gpuUtilMean = r.gpuUtilMean;
      gpuUtilMax = r.gpuUtilMax;
      gpuMemUtilMean = r.gpuMemUtilMean;
      gpuMemUtilMax = r.gpuMemUtilMax;
      gpuMemUsedMb = r.gpuMemUsedMb;
      engineFingerprint = r.engineFingerprint;
      sampledReason = r.sampledReason;
      inputFlags = r.inputFlags;
      inputDigest = r.inputDigest;
      outputFlags = r.outputFlags;
      if (!r.events.isEmpty()) {
        events = new ArrayList<>(r.events);
      }
      if (!r.layers.isEmpty()) {
        layers = new ArrayList<>(r.layers);
      }
      if (!r.attributes.isEmpty()) {
        attributes = new LinkedHashMap<>(r.attributes);
      }
      batching = r.batching;
    }

    public Builder timestamp(Instant v) { timestamp = Objects.requireNonNull(v, "timestamp"); return this; }
    public Builder requestId(String v) { requestId = Objects.requireNonNull(v, "requestId"); return this; }
    public Builder modelName(String v) { modelName = Objects.requireNonNull(v, "modelName"); return this; }
    public Builder status(Status v) { status = Objects.requireNonNull(v, "status"); return this; }
    public Builder errorType(@Nullable String v) { errorType = v; return this; }
    public Builder latencyMs(double v) { latencyMs = v; return this; }
    public Builder traceId(@Nullable String v) { traceId = v; return this; }
    public Builder spanId(@Nullable String v) { spanId = v; return this; }
    public Builder inputTokens(int v) { inputTokens = v; return this; }
    public Builder outputTokens(int v) { outputTokens = v; return this; }
    public Builder maxTokens(int v) { maxTokens = v; return this; }
    public Builder temperature(double v) { temperature = v; return this; }
    public Builder topP(double v) { topP = v; return this; }
    public Builder finishReason(@Nullable String v) { finishReason = v; return this; }
    public Builder queueMs(double v) { queueMs = v; return this; }
    public Builder preprocessMs(double v) { preprocessMs = v; return this; }
    public Builder inferMs(double v) { inferMs = v; return this; }
    public Builder gpuMs(double v) { gpuMs = v; return this; }
    public Builder decodeMs(double v) { decodeMs = v; return this; }
    public Builder postprocessMs(double v) { postprocessMs = v; return this; }
    public Builder ttftMs(double v) { ttftMs = v; return this; }
    public Builder tpotMs(double v) { tpotMs = v; return this; }
    public Builder gpuUtil(double v) { gpuUtil = v; return this; }
    public Builder gpuUtilMean(double v) { gpuUtilMean = v; return this; }
    public Builder gpuUtilMax(double v) { gpuUtilMax = v; return this; }
    public Builder gpuMemUtilMean(double v) { gpuMemUtilMean = v; return this; }
    public Builder gpuMemUtilMax(double v) { gpuMemUtilMax = v; return this; }
    public Builder gpuMemUsedMb(double v) { gpuMemUsedMb = v; return this; }
    public Builder engineFingerprint(@Nullable String v) { engineFingerprint = v; return this; }
    public Builder sampledReason(@Nullable String v) { sampledReason = v; return this; }
    public Builder inputDigest(@Nullable String v) { inputDigest = v; return this; }

    /** Sets the time of {@code stage}. */
    public Builder stageMs(Stage stage, double ms) {
      switch (stage) {
        case QUEUE:
          queueMs = ms;
          break;
        case PREPROCESS:
          preprocessMs = ms;
          break;
        case INFER:
          inferMs = ms;
          break;
        case DECODE:
          decodeMs = ms;
          break;
        case POSTPROCESS:
          postprocessMs = ms;
          break;
        default:
          throw new AssertionError(stage);
      }
      return this;
    }

    public Builder inputFlags(Set<InputFlag> flags) {
      inputFlags = immutableCopy(flags);
      return this;
    }

    public Builder outputFlags(Set<OutputFlag> flags) {
      outputFlags = immutableCopy(flags);
      return this;
    }

    /** An unmodifiable copy (the record shares it: the builder never changes it, only replaces it). */
    private static <F extends Enum<F>> Set<F> immutableCopy(Set<F> flags) {
      return flags.isEmpty() ? Collections.emptySet() : Collections.unmodifiableSet(EnumSet.copyOf(flags));
    }

    /** The request's shared launches, summed up; null: none. */
    public Builder batching(SharedLaunch.@Nullable Summary summary) { batching = summary; return this; }

    public Builder addEvent(Event e) {
      Objects.requireNonNull(e, "event");
      (events != null ? events : (events = new ArrayList<>(4))).add(e);
      return this;
    }

    public Builder addLayer(LayerTime l) {
      Objects.requireNonNull(l, "layer");
      (layers != null ? layers : (layers = new ArrayList<>(8))).add(l);
      return this;
    }

    /** Adds or replaces one user attribute. */
    public Builder attribute(String key, String value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      (attributes != null ? attributes : (attributes = new LinkedHashMap<>())).put(key, value);
      return this;
    }

    public Builder attributes(Map<String, String> values) {
      values.forEach(this::attribute);
      return this;
    }

    /**
     * Builds the immutable record.
     *
     * @throws IllegalArgumentException if a count is below -1 or a duration is negative
     */
    public InferenceRecord build() {
      check(latencyMs, inputTokens, outputTokens, maxTokens, temperature, topP,
          queueMs, preprocessMs, inferMs, gpuMs, decodeMs, postprocessMs, ttftMs, tpotMs);
      return new InferenceRecord(this, attributes == null ? Map.of() : RecordAttributes.copyOf(attributes),
          copy(events), copy(layers));
    }

    /**
     * The checks of {@link #build()}, on plain values: the tracer's pooled entry runs them on the
     * caller (allocation-free unless a value is bad), so a record it hands to the worker builds.
     */
    static void check(double latencyMs, int inputTokens, int outputTokens, int maxTokens,
        double temperature, double topP, double queueMs, double preprocessMs, double inferMs,
        double gpuMs, double decodeMs, double postprocessMs, double ttftMs, double tpotMs) {
      if (Double.isNaN(latencyMs)) {
        throw new IllegalArgumentException("latency_ms is required");
      }
      checkCount("input_tokens", inputTokens);
      checkCount("output_tokens", outputTokens);
      checkCount(RecordConvention.MAX_TOKENS, maxTokens);
      if (temperature < 0 || Double.isInfinite(temperature)) {
        throw new IllegalArgumentException("temperature must be a finite value >= 0: " + temperature);
      }
      if (topP < 0 || topP > 1) {
        throw new IllegalArgumentException("top_p must be between 0 and 1: " + topP);
      }
      checkDuration(RecordConvention.LATENCY_MS, latencyMs);
      checkDuration(RecordConvention.QUEUE_MS, queueMs);
      checkDuration(RecordConvention.PREPROCESS_MS, preprocessMs);
      checkDuration(RecordConvention.INFER_MS, inferMs);
      checkDuration(RecordConvention.GPU_MS, gpuMs);
      checkDuration(RecordConvention.DECODE_MS, decodeMs);
      checkDuration(RecordConvention.POSTPROCESS_MS, postprocessMs);
      checkDuration(RecordConvention.TTFT_MS, ttftMs);
      checkDuration(RecordConvention.TPOT_MS, tpotMs);
    }

    private static void checkCount(String field, int v) {
      if (v < -1) {
        throw new IllegalArgumentException(field + " must be >= 0 (or -1 for unknown): " + v);
      }
    }

    private static void checkDuration(String field, double v) {
      if (v < 0 || Double.isInfinite(v)) {
        throw new IllegalArgumentException(field + " must be a finite value >= 0: " + v);
      }
    }
  }
}
