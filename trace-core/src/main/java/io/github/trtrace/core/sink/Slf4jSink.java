package io.github.trtrace.core.sink;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceRecord.Event;
import io.github.trtrace.core.InferenceRecord.Fields;
import io.github.trtrace.core.InferenceRecord.LayerTime;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.Status;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Writes each record as one SLF4J event with one key-value pair per record field, so the host's
 * logging backend (Logback, Log4j2, ...) and its structured encoder decide the format. Field names
 * are those of {@link Fields}; unknown values are left out; input flags, events and layers are lists
 * of compact strings; user attributes are keys {@code attributes.<key>}. The message reads
 * {@code inference request_id=... status=... latency_ms=...} for plain-text layouts.
 *
 * <p>The level depends on the record's status: {@code INFO} for success and {@code WARN} for the
 * rest by default. When that level is disabled the record costs one level check.
 *
 * <pre>{@code
 * RecordSink sink = Slf4jSink.builder()
 *     .loggerName("inference")
 *     .level(Status.SUCCESS, Level.DEBUG)
 *     .build();
 * }</pre>
 */
public final class Slf4jSink implements RecordSink {

  /** Default logger name. */
  public static final String DEFAULT_LOGGER_NAME = "io.github.trtrace.records";

  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private final Logger logger;
  private final String name;
  private final Map<Status, Level> levels;

  private Slf4jSink(Builder b) {
    this.logger = LoggerFactory.getLogger(b.loggerName);
    this.name = "slf4j:" + b.loggerName;
    this.levels = new EnumMap<>(b.levels);
  }

  /** A builder with logger {@value Slf4jSink#DEFAULT_LOGGER_NAME}, success at INFO, the rest at WARN. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String name() {
    return name;
  }

  /** The level records with {@code status} are logged at. */
  public Level level(Status status) {
    return levels.get(status);
  }

  @Override
  public void write(List<InferenceRecord> batch) {
    for (InferenceRecord r : batch) {
      Level level = levels.get(r.status());
      if (logger.isEnabledForLevel(level)) {
        log(logger.atLevel(level), r);
      }
    }
  }

  private static void log(LoggingEventBuilder e, InferenceRecord r) {
    e.addKeyValue(Fields.TIMESTAMP, TIMESTAMP.format(r.timestamp()));
    e.addKeyValue(Fields.REQUEST_ID, r.requestId());
    e.addKeyValue(Fields.MODEL_NAME, r.modelName());
    e.addKeyValue(Fields.STATUS, r.status().wireName());
    text(e, Fields.ERROR_TYPE, r.errorType());
    decimal(e, Fields.LATENCY_MS, r.latencyMs());
    text(e, Fields.TRACE_ID, r.traceId());
    text(e, Fields.SPAN_ID, r.spanId());
    count(e, Fields.INPUT_TOKENS, r.inputTokens());
    count(e, Fields.OUTPUT_TOKENS, r.outputTokens());
    count(e, Fields.MAX_TOKENS, r.maxTokens());
    decimal(e, Fields.TEMPERATURE, r.temperature());
    decimal(e, Fields.TOP_P, r.topP());
    text(e, Fields.FINISH_REASON, r.finishReason());
    decimal(e, Fields.QUEUE_MS, r.queueMs());
    decimal(e, Fields.PREPROCESS_MS, r.preprocessMs());
    decimal(e, Fields.INFER_MS, r.inferMs());
    decimal(e, Fields.GPU_MS, r.gpuMs());
    decimal(e, Fields.DECODE_MS, r.decodeMs());
    decimal(e, Fields.POSTPROCESS_MS, r.postprocessMs());
    decimal(e, Fields.TTFT_MS, r.ttftMs());
    decimal(e, Fields.TPOT_MS, r.tpotMs());
    decimal(e, Fields.GPU_UTIL, r.gpuUtil());
    decimal(e, Fields.GPU_MEM_USED_MB, r.gpuMemUsedMb());
    text(e, Fields.ENGINE_FINGERPRINT, r.engineFingerprint());
    text(e, Fields.SAMPLED_REASON, r.sampledReason());
    if (!r.inputFlags().isEmpty()) {
      List<String> flags = new ArrayList<>(r.inputFlags().size());
      for (InputFlag f : r.inputFlags()) {
        flags.add(f.wireName());
      }
      e.addKeyValue(Fields.INPUT_FLAGS, flags);
    }
    text(e, Fields.INPUT_DIGEST, r.inputDigest());
    if (!r.outputFlags().isEmpty()) {
      List<String> flags = new ArrayList<>(r.outputFlags().size());
      for (io.github.trtrace.core.OutputFlag f : r.outputFlags()) {
        flags.add(f.wireName());
      }
      e.addKeyValue(Fields.OUTPUT_FLAGS, flags);
    }
    if (!r.events().isEmpty()) {
      List<String> events = new ArrayList<>(r.events().size());
      for (Event ev : r.events()) {
        events.add(compact(ev));
      }
      e.addKeyValue(Fields.EVENTS, events);
    }
    if (!r.layers().isEmpty()) {
      List<String> layers = new ArrayList<>(r.layers().size());
      for (LayerTime l : r.layers()) {
        layers.add(l.name() + '=' + l.ms() + "ms/" + l.invocations());
      }
      e.addKeyValue(Fields.LAYERS, layers);
    }
    for (Map.Entry<String, String> a : r.attributes().entrySet()) {
      e.addKeyValue(Fields.ATTRIBUTES + '.' + a.getKey(), a.getValue());
    }
    e.log("inference request_id={} status={} latency_ms={}", r.requestId(), r.status().wireName(), r.latencyMs());
  }

  /** {@code "warning tensorrt.oom @12.5ms: message"}; the offset only when known. */
  private static String compact(Event ev) {
    StringBuilder sb = new StringBuilder(ev.severity().length() + ev.kind().length() + ev.message().length() + 16);
    sb.append(ev.severity()).append(' ').append(ev.kind());
    if (!Double.isNaN(ev.offsetMs())) {
      sb.append(" @").append(ev.offsetMs()).append("ms");
    }
    return sb.append(": ").append(ev.message()).toString();
  }

  private static void text(LoggingEventBuilder e, String key, @Nullable String value) {
    if (value != null) {
      e.addKeyValue(key, value);
    }
  }

  private static void count(LoggingEventBuilder e, String key, int value) {
    if (value >= 0) {
      e.addKeyValue(key, value);
    }
  }

  private static void decimal(LoggingEventBuilder e, String key, double value) {
    if (!Double.isNaN(value)) {
      e.addKeyValue(key, value);
    }
  }

  /** SLF4J has nothing to flush: the backend owns its buffers. */
  @Override
  public void flush() {}

  /** Nothing to release: the logger belongs to the backend. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return "Slf4jSink{" + name + ", levels=" + levels + '}';
  }

  /**
   * Configures an {@link Slf4jSink}. Not thread-safe.
   *
   * <pre>{@code
   * Slf4jSink sink = Slf4jSink.builder().level(Status.CANCELLED, Level.INFO).build();
   * }</pre>
   */
  public static final class Builder {
    private String loggerName = DEFAULT_LOGGER_NAME;
    private final EnumMap<Status, Level> levels = new EnumMap<>(Status.class);

    private Builder() {
      for (Status s : Status.values()) {
        levels.put(s, s == Status.SUCCESS ? Level.INFO : Level.WARN);
      }
    }

    /**
     * The SLF4J logger the records are written to; default {@value Slf4jSink#DEFAULT_LOGGER_NAME}.
     *
     * @throws IllegalArgumentException if blank
     */
    public Builder loggerName(String name) {
      Objects.requireNonNull(name, "loggerName");
      if (name.isBlank()) {
        throw new IllegalArgumentException("loggerName must not be blank");
      }
      loggerName = name;
      return this;
    }

    /** The level of records with {@code status}. */
    public Builder level(Status status, Level level) {
      levels.put(Objects.requireNonNull(status, "status"), Objects.requireNonNull(level, "level"));
      return this;
    }

    /** The sink. */
    public Slf4jSink build() {
      return new Slf4jSink(this);
    }
  }
}
