package io.github.trtrace.core.sink;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceRecord.Event;
import io.github.trtrace.core.InferenceRecord.LayerTime;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Writes each record as one SLF4J event with one key-value pair per record field, so the host's
 * logging backend (Logback, Log4j2, ...) and its structured encoder decide the format. Field names,
 * order and sanitising are those of {@link RecordConvention}, as in the JSON Lines file (control and
 * format characters arrive escaped as text, since a backend's plain-text layout writes values as they are); flags are
 * lists of names, events and layers lists of compact strings, user attributes keys {@code
 * attributes.<key>}. The message reads
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
    RecordConvention.visit(r, new KeyValues(e));
    e.log("inference request_id={} status={} latency_ms={}", RecordConvention.text(r.requestId()), r.status().wireName(),
        r.latencyMs());
  }

  /** The convention's fields as SLF4J key-value pairs. */
  private static final class KeyValues implements RecordConvention.FieldVisitor {
    private final LoggingEventBuilder e;

    KeyValues(LoggingEventBuilder e) {
      this.e = e;
    }

    @Override
    public void timestamp(String name, Instant value) {
      e.addKeyValue(name, RecordConvention.formatTimestamp(value));
    }

    @Override
    public void text(String name, String value) {
      e.addKeyValue(name, value);
    }

    @Override
    public void count(String name, long value) {
      e.addKeyValue(name, value);
    }

    @Override
    public void number(String name, double value) {
      e.addKeyValue(name, value);
    }

    @Override
    public void flags(String name, List<String> values) {
      e.addKeyValue(name, values);
    }

    @Override
    public void events(String name, List<Event> events) {
      List<String> compact = new ArrayList<>(events.size());
      for (Event ev : events) {
        compact.add(compact(ev));
      }
      e.addKeyValue(name, compact);
    }

    @Override
    public void layers(String name, List<LayerTime> layers) {
      List<String> compact = new ArrayList<>(layers.size());
      for (LayerTime l : layers) {
        compact.add(compact(l));
      }
      e.addKeyValue(name, compact);
    }

    @Override
    public void attributes(String name, Map<String, String> attributes) {
      for (Map.Entry<String, String> a : attributes.entrySet()) {
        e.addKeyValue(name + '.' + a.getKey(), a.getValue());
      }
    }
  }

  /** {@code "warning tensorrt.oom @12.5ms: message"}; the offset only when known. */
  static String compact(Event ev) {
    StringBuilder sb = new StringBuilder(ev.severity().length() + ev.kind().length() + ev.message().length() + 16);
    sb.append(ev.severity()).append(' ').append(ev.kind());
    if (!Double.isNaN(ev.offsetMs())) {
      sb.append(" @").append(ev.offsetMs()).append("ms");
    }
    return sb.append(": ").append(ev.message()).toString();
  }

  /** {@code "attn.0=1.5ms/80"}; unknown time or count as {@code ?}. */
  static String compact(LayerTime l) {
    return l.name() + '=' + (Double.isNaN(l.ms()) ? "?" : String.valueOf(l.ms())) + "ms/"
        + (l.invocations() < 0 ? "?" : String.valueOf(l.invocations()));
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
