// Over 400 lines: the one place that names every record field (the constants and their documented meaning).
package io.github.trtrace.core;

import io.github.trtrace.core.internal.trace.TracerFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The one mapping from an {@link InferenceRecord} to output fields, used by every output (the JSON
 * Lines file, SLF4J, the OpenTelemetry module): field names, their order, their units and the
 * sanitising rules. {@link #visit} hands each known field of a record, already sanitised, to a {@link
 * FieldVisitor}; an output only decides how to write a text, a number or a list.
 *
 * <p>Sanitising, so that no output can carry a value the schema forbids and recording never fails:
 * unknown values ({@code -1} counts, NaN numbers, null strings, empty collections) are left out;
 * negative or infinite durations are left out; the {@code gpu_*util*} percentages are clamped to 0..100; {@code top_p}
 * outside 0..1 and a negative {@code temperature} are left out; text fields have unpaired UTF-16
 * surrogates replaced by U+FFFD and are cut at a code-point boundary to {@value #MAX_TEXT_LENGTH} chars
 * ({@code input_digest}: {@value #MAX_INPUT_DIGEST_LENGTH}), the cut marked with {@code …}; timestamps are
 * clamped to the years 0000..9999 and written with microseconds. Control, format and separator
 * characters ({@code UnicodeChars.isEscaped}: Cc, Cf in every plane, Zl,
 * Zp) never reach an output raw: an output that escapes them itself (JSON, see {@link
 * FieldVisitor#escapesInvisible()}) gets the text as it is, every other output gets them written as the
 * text <code>&#92;uHHHH</code> (lower-case hex; a supplementary code point as its two UTF-16 escapes, as JSON
 * spells it), which reads as the JSON file does on disk.
 *
 * <pre>{@code
 * Map<String, Object> fields = new LinkedHashMap<>();
 * RecordConvention.visit(record, new RecordConvention.FieldVisitor() {
 *   public void text(String name, String value) { fields.put(name, value); }
 *   public void number(String name, double value) { fields.put(name, value); }
 *   // ... the other kinds
 * });
 * String unit = RecordConvention.unit(RecordConvention.LATENCY_MS);   // "ms"
 * }</pre>
 */
public final class RecordConvention {
  public static final String TIMESTAMP = "timestamp";
  public static final String REQUEST_ID = "request_id";
  public static final String MODEL_NAME = "model_name";
  public static final String STATUS = "status";
  public static final String ERROR_TYPE = "error_type";
  public static final String LATENCY_MS = "latency_ms";
  public static final String TRACE_ID = "trace_id";
  public static final String SPAN_ID = "span_id";
  public static final String INPUT_TOKENS = "input_tokens";
  public static final String OUTPUT_TOKENS = "output_tokens";
  public static final String MAX_TOKENS = "max_tokens";
  public static final String TEMPERATURE = "temperature";
  public static final String TOP_P = "top_p";
  public static final String FINISH_REASON = "finish_reason";
  public static final String QUEUE_MS = "queue_ms";
  public static final String PREPROCESS_MS = "preprocess_ms";
  public static final String INFER_MS = "infer_ms";
  public static final String GPU_MS = "gpu_ms";
  public static final String DECODE_MS = "decode_ms";
  public static final String POSTPROCESS_MS = "postprocess_ms";
  public static final String TTFT_MS = "ttft_ms";
  public static final String TPOT_MS = "tpot_ms";
  public static final String GPU_UTIL = "gpu_util";
  public static final String GPU_UTIL_MEAN = "gpu_util_mean";
  public static final String GPU_UTIL_MAX = "gpu_util_max";
  public static final String GPU_MEM_UTIL_MEAN = "gpu_mem_util_mean";
  public static final String GPU_MEM_UTIL_MAX = "gpu_mem_util_max";
  public static final String GPU_MEM_USED_MB = "gpu_mem_used_mb";
  public static final String ENGINE_FINGERPRINT = "engine_fingerprint";
  public static final String SAMPLED_REASON = "sampled_reason";
  public static final String INPUT_FLAGS = "input_flags";
  public static final String INPUT_DIGEST = "input_digest";
  public static final String OUTPUT_FLAGS = "output_flags";
  public static final String EVENTS = "events";
  public static final String LAYERS = "layers";
  public static final String ATTRIBUTES = "attributes";

  /** The batching fields ({@link SharedLaunch.Summary}; written only for a request that joined or awaited a launch). */
  public static final String GPU_MS_METHOD = "gpu_ms_method";
  public static final String LAUNCH_COUNT = "launch_count";
  public static final String FIRST_LAUNCH_ID = "first_launch_id";
  public static final String LAST_LAUNCH_ID = "last_launch_id";
  public static final String BATCH_SIZE_MEAN = "batch_size_mean";
  public static final String BATCH_SIZE_MAX = "batch_size_max";
  public static final String SLOT_WAIT_MS = "slot_wait_ms";
  public static final String NEIGHBOUR_PREFILL_LAUNCHES = "neighbour_prefill_launches";
  public static final String NEIGHBOUR_PREFILL_MS = "neighbour_prefill_ms";
  public static final String SLOWED_BY = "slowed_by";
  public static final String PREEMPTIONS = "preemptions";
  public static final String PREEMPTED_MS = "preempted_ms";
  public static final String FAILED_LAUNCHES = "failed_launches";
  public static final String FAILED_LAUNCH_ID = "failed_launch_id";

  /** Member names inside one {@code slowed_by} item. */
  public static final String NEIGHBOUR_REQUEST_ID = "request_id";
  public static final String NEIGHBOUR_PREFILL_TOKENS = "prefill_tokens";
  public static final String NEIGHBOUR_LAUNCHES = "launches";

  /** Member names inside one {@code events} item. */
  public static final String EVENT_KIND = "kind";
  public static final String EVENT_SEVERITY = "severity";
  public static final String EVENT_MESSAGE = "message";
  public static final String EVENT_OFFSET_MS = "offset_ms";

  /** Member names inside one {@code layers} item. */
  public static final String LAYER_NAME = "name";
  public static final String LAYER_MS = "ms";
  public static final String LAYER_INVOCATIONS = "invocations";

  /** Longest text value, in UTF-16 chars, the truncation marker included. */
  public static final int MAX_TEXT_LENGTH = 4096;
  /** Longest {@code input_digest}, in UTF-16 chars, the truncation marker included. */
  public static final int MAX_INPUT_DIGEST_LENGTH = 100;
  /** Ends a text that was cut. */
  public static final char TRUNCATION_MARKER = '\u2026';

  /** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z, the range of a 4-digit year. */
  private static final Instant MIN_TIMESTAMP = Instant.ofEpochSecond(-62167219200L);
  private static final Instant MAX_TIMESTAMP = Instant.ofEpochSecond(253402300799L, 999_999_000);

  private RecordConvention() {}

  /**
   * {@code record} as one JSON object in this convention, without a line terminator: the line the
   * JSON Lines file sink writes.
   *
   * <pre>{@code
   * String json = RecordConvention.toJson(record);   // {"timestamp":"...","request_id":"req-1",...}
   * }</pre>
   */
  public static String toJson(InferenceRecord record) {
    return TracerFactory.toJson(record);
  }

  /** Appends {@code record} as one JSON object and a {@code '\n'}: exactly one line. */
  public static void appendJsonLine(InferenceRecord record, StringBuilder out) {
    TracerFactory.appendJsonLine(record, out);
  }

  /**
   * Receives a record's known fields, sanitised, in the order of the JSON line. Names are this
   * class's constants; {@code attributes} holds the user attributes.
   */
  public interface FieldVisitor {
    /** {@code timestamp}: clamped to the years 0000..9999, to the microsecond. */
    void timestamp(String name, Instant value);

    /**
     * A text field, sanitised: no unpaired surrogates, at most its maximum length, control and format
     * characters escaped unless {@link #escapesInvisible()}.
     */
    void text(String name, String value);

    /** A count, >= 0. */
    void count(String name, long value);

    /** A finite number in the field's range (durations >= 0, {@code gpu_util} 0..100, ...). */
    void number(String name, double value);

    /** A non-empty list of flag names ({@code input_flags}, {@code output_flags}). */
    void flags(String name, List<String> values);

    /** Non-empty; texts sanitised; {@code offsetMs} NaN when unknown or invalid. */
    void events(String name, List<InferenceRecord.Event> events);

    /** Non-empty; names sanitised; {@code ms} NaN and {@code invocations} -1 when unknown or invalid. */
    void layers(String name, List<InferenceRecord.LayerTime> layers);

    /** Non-empty user attributes, keys and values sanitised, in insertion order. */
    void attributes(String name, Map<String, String> attributes);

    /**
     * Non-empty {@code slowed_by} neighbours, IDs sanitised. By default handed on as flags-like text
     * items {@code "<request_id>:<prefill_tokens>x<launches>"}; the JSON writer writes objects.
     */
    default void neighbours(String name, List<SharedLaunch.Neighbour> neighbours) {
      List<String> compact = new ArrayList<>(neighbours.size());
      for (SharedLaunch.Neighbour n : neighbours) {
        compact.add(n.requestId() + ':' + n.prefillTokens() + 'x' + n.launches());
      }
      flags(name, compact);
    }

    /**
     * Whether this output escapes control, format and separator characters itself, without loss (a
     * JSON writer: its backslash-u escapes parse back to the character). When false, the default, every
     * text handed to this visitor has them already written as <code>&#92;uHHHH</code> text, so that an output
     * that writes text as it is (a plain-text log layout, a span attribute) never carries them raw.
     */
    default boolean escapesInvisible() {
      return false;
    }
  }

  /** Hands every known field of {@code r} to {@code v}, sanitised, in the order of the JSON line. */
  public static void visit(InferenceRecord r, FieldVisitor v) {
    boolean escape = !v.escapesInvisible();
    v.timestamp(TIMESTAMP, timestamp(r.timestamp()));
    v.text(REQUEST_ID, TextSanitizer.sanitize(r.requestId(), MAX_TEXT_LENGTH, escape));
    v.text(MODEL_NAME, TextSanitizer.sanitize(r.modelName(), MAX_TEXT_LENGTH, escape));
    v.text(STATUS, r.status().wireName());
    text(v, ERROR_TYPE, r.errorType(), escape);
    duration(v, LATENCY_MS, r.latencyMs());
    text(v, TRACE_ID, r.traceId(), escape);
    text(v, SPAN_ID, r.spanId(), escape);
    count(v, INPUT_TOKENS, r.inputTokens());
    count(v, OUTPUT_TOKENS, r.outputTokens());
    count(v, MAX_TOKENS, r.maxTokens());
    duration(v, TEMPERATURE, r.temperature()); // same rule: finite and >= 0
    if (r.topP() >= 0 && r.topP() <= 1) {
      v.number(TOP_P, r.topP());
    }
    text(v, FINISH_REASON, r.finishReason(), escape);
    duration(v, QUEUE_MS, r.queueMs());
    duration(v, PREPROCESS_MS, r.preprocessMs());
    duration(v, INFER_MS, r.inferMs());
    duration(v, GPU_MS, r.gpuMs());
    SharedLaunch.Summary batching = r.batching();
    if (batching != null && batching.shareMethod() != null) {
      v.text(GPU_MS_METHOD, TextSanitizer.sanitize(batching.shareMethod(), MAX_TEXT_LENGTH, escape));
    }
    duration(v, DECODE_MS, r.decodeMs());
    duration(v, POSTPROCESS_MS, r.postprocessMs());
    duration(v, TTFT_MS, r.ttftMs());
    duration(v, TPOT_MS, r.tpotMs());
    percent(v, GPU_UTIL, r.gpuUtil());
    percent(v, GPU_UTIL_MEAN, r.gpuUtilMean());
    percent(v, GPU_UTIL_MAX, r.gpuUtilMax());
    percent(v, GPU_MEM_UTIL_MEAN, r.gpuMemUtilMean());
    percent(v, GPU_MEM_UTIL_MAX, r.gpuMemUtilMax());
    duration(v, GPU_MEM_USED_MB, r.gpuMemUsedMb());
    if (batching != null) {
      batching(v, batching, escape);
    }
    text(v, ENGINE_FINGERPRINT, r.engineFingerprint(), escape);
    text(v, SAMPLED_REASON, r.sampledReason(), escape);
    if (!r.inputFlags().isEmpty()) {
      v.flags(INPUT_FLAGS, inputFlagNames(r.inputFlags()));
    }
    String digest = r.inputDigest();
    if (digest != null) {
      v.text(INPUT_DIGEST, TextSanitizer.sanitize(digest, MAX_INPUT_DIGEST_LENGTH, escape));
    }
    if (!r.outputFlags().isEmpty()) {
      v.flags(OUTPUT_FLAGS, outputFlagNames(r.outputFlags()));
    }
    if (!r.events().isEmpty()) {
      v.events(EVENTS, events(r.events(), escape));
    }
    if (!r.layers().isEmpty()) {
      v.layers(LAYERS, layers(r.layers(), escape));
    }
    if (!r.attributes().isEmpty()) {
      v.attributes(ATTRIBUTES, attributes(r.attributes(), escape));
    }
  }

  private static void batching(FieldVisitor v, SharedLaunch.Summary b, boolean escape) {
    if (b.launchCount() > 0) {
      v.count(LAUNCH_COUNT, b.launchCount());
      count(v, FIRST_LAUNCH_ID, b.firstLaunchId());
      count(v, LAST_LAUNCH_ID, b.lastLaunchId());
      duration(v, BATCH_SIZE_MEAN, b.batchSizeMean());
      v.count(BATCH_SIZE_MAX, b.batchSizeMax());
    }
    if (b.slotWaitMs() > 0) {
      duration(v, SLOT_WAIT_MS, b.slotWaitMs());
    }
    if (b.neighbourPrefillLaunches() > 0) {
      v.count(NEIGHBOUR_PREFILL_LAUNCHES, b.neighbourPrefillLaunches());
      duration(v, NEIGHBOUR_PREFILL_MS, b.neighbourPrefillMs());
    }
    if (!b.slowedBy().isEmpty()) {
      List<SharedLaunch.Neighbour> clean = new ArrayList<>(b.slowedBy().size());
      for (SharedLaunch.Neighbour n : b.slowedBy()) {
        String id = TextSanitizer.sanitize(n.requestId(), MAX_TEXT_LENGTH, escape);
        clean.add(n.requestId().equals(id) && n.prefillTokens() >= 0 && n.launches() >= 0
            ? n
            : new SharedLaunch.Neighbour(id, Math.max(0, n.prefillTokens()), Math.max(0, n.launches())));
      }
      v.neighbours(SLOWED_BY, clean);
    }
    if (b.preemptions() > 0) {
      v.count(PREEMPTIONS, b.preemptions());
      duration(v, PREEMPTED_MS, b.preemptedMs());
    }
    if (b.failedLaunches() > 0) {
      v.count(FAILED_LAUNCHES, b.failedLaunches());
      count(v, FAILED_LAUNCH_ID, b.failedLaunchId());
    }
  }

  /**
   * The unit of a numeric field, in UCUM as OpenTelemetry uses it: {@code "ms"}, {@code "%"}, {@code
   * "MiBy"} (mebibytes), {@code "{token}"}, {@code "1"} (dimensionless); null for text and list fields.
   */
  public static @Nullable String unit(String field) {
    switch (field) {
      case LATENCY_MS: case QUEUE_MS: case PREPROCESS_MS: case INFER_MS: case GPU_MS: case DECODE_MS:
      case POSTPROCESS_MS: case TTFT_MS: case TPOT_MS: case EVENT_OFFSET_MS: case LAYER_MS:
      case SLOT_WAIT_MS: case NEIGHBOUR_PREFILL_MS: case PREEMPTED_MS:
        return "ms";
      case LAUNCH_COUNT: case NEIGHBOUR_PREFILL_LAUNCHES: case FAILED_LAUNCHES:
        return "{launch}";
      case PREEMPTIONS:
        return "1";
      case BATCH_SIZE_MEAN: case BATCH_SIZE_MAX:
        return "{request}";
      case GPU_UTIL: case GPU_UTIL_MEAN: case GPU_UTIL_MAX: case GPU_MEM_UTIL_MEAN: case GPU_MEM_UTIL_MAX:
        return "%";
      case GPU_MEM_USED_MB:
        return "MiBy";
      case INPUT_TOKENS: case OUTPUT_TOKENS: case MAX_TOKENS:
        return "{token}";
      case TEMPERATURE: case TOP_P: case LAYER_INVOCATIONS:
        return "1";
      default:
        return null;
    }
  }

  /** The field holding {@code stage}'s time in milliseconds, e.g. {@code "queue_ms"}. */
  public static String stageField(Stage stage) {
    switch (stage) {
      case QUEUE:
        return QUEUE_MS;
      case PREPROCESS:
        return PREPROCESS_MS;
      case INFER:
        return INFER_MS;
      case DECODE:
        return DECODE_MS;
      case POSTPROCESS:
        return POSTPROCESS_MS;
      default:
        throw new AssertionError(stage);
    }
  }

  /** {@code t} clamped to 0000-01-01T00:00:00Z..9999-12-31T23:59:59.999999Z and cut to microseconds. */
  public static Instant timestamp(Instant t) {
    if (t.isBefore(MIN_TIMESTAMP)) {
      return MIN_TIMESTAMP;
    }
    if (t.isAfter(MAX_TIMESTAMP)) {
      return MAX_TIMESTAMP;
    }
    int nanos = t.getNano();
    return nanos % 1000 == 0 ? t : Instant.ofEpochSecond(t.getEpochSecond(), nanos - nanos % 1000);
  }

  /**
   * Appends a {@linkplain #timestamp(Instant) clamped} {@code t} as ISO-8601 UTC with exactly six
   * fractional digits, e.g. {@code 2026-11-30T08:00:00.123456Z}, without quotes.
   */
  public static void appendTimestamp(Instant t, StringBuilder out) {
    Instant c = timestamp(t);
    long seconds = c.getEpochSecond();
    int micros = c.getNano() / 1000;
    long days = Math.floorDiv(seconds, 86_400L);
    int secOfDay = (int) Math.floorMod(seconds, 86_400L);
    // civil-from-days (proleptic Gregorian), valid for the clamped range
    long z = days + 719_468L;
    long era = Math.floorDiv(z, 146_097L);
    long doe = z - era * 146_097L;
    long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long mp = (5 * doy + 2) / 153;
    int day = (int) (doy - (153 * mp + 2) / 5 + 1);
    int month = (int) (mp < 10 ? mp + 3 : mp - 9);
    int year = (int) (yoe + era * 400 + (month <= 2 ? 1 : 0));
    pad(out, year, 4);
    out.append('-');
    pad(out, month, 2);
    out.append('-');
    pad(out, day, 2);
    out.append('T');
    pad(out, secOfDay / 3600, 2);
    out.append(':');
    pad(out, (secOfDay / 60) % 60, 2);
    out.append(':');
    pad(out, secOfDay % 60, 2);
    out.append('.');
    pad(out, micros, 6);
    out.append('Z');
  }

  /** {@link #appendTimestamp} as a String. */
  public static String formatTimestamp(Instant t) {
    StringBuilder sb = new StringBuilder(27);
    appendTimestamp(t, sb);
    return sb.toString();
  }

  private static final int[] POWERS = {1, 10, 100, 1000, 10_000, 100_000};

  private static void pad(StringBuilder out, int v, int width) {
    for (int p = width - 1; p >= 0; p--) {
      out.append((char) ('0' + (v / POWERS[p]) % 10));
    }
  }

  /**
   * A text value sanitised for an output that writes text as it is (a span attribute, a metric label, a
   * log key-value): unpaired surrogates become U+FFFD, control, format and separator characters the text
   * <code>&#92;uHHHH</code>, cut to {@value #MAX_TEXT_LENGTH} chars; the same instance when nothing changes.
   */
  public static String text(String value) {
    return TextSanitizer.sanitize(value, MAX_TEXT_LENGTH, true);
  }

  private static void text(FieldVisitor v, String name, @Nullable String value, boolean escape) {
    if (value != null) {
      v.text(name, TextSanitizer.sanitize(value, MAX_TEXT_LENGTH, escape));
    }
  }

  private static void count(FieldVisitor v, String name, long value) {
    if (value >= 0) {
      v.count(name, value);
    }
  }

  /** Finite and >= 0, else unknown. */
  private static void duration(FieldVisitor v, String name, double value) {
    if (value >= 0 && value != Double.POSITIVE_INFINITY) {
      v.number(name, value);
    }
  }

  /** Clamped to 0..100; NaN is unknown. */
  private static void percent(FieldVisitor v, String name, double value) {
    if (!Double.isNaN(value)) {
      v.number(name, Math.max(0.0, Math.min(100.0, value)));
    }
  }

  private static List<String> inputFlagNames(Set<InputFlag> flags) {
    List<String> names = new ArrayList<>(flags.size());
    for (InputFlag f : flags) {
      names.add(f.wireName());
    }
    return names;
  }

  private static List<String> outputFlagNames(Set<OutputFlag> flags) {
    List<String> names = new ArrayList<>(flags.size());
    for (OutputFlag f : flags) {
      names.add(f.wireName());
    }
    return names;
  }

  private static List<InferenceRecord.Event> events(List<InferenceRecord.Event> events, boolean escape) {
    List<InferenceRecord.Event> out = null;
    for (int i = 0; i < events.size(); i++) {
      InferenceRecord.Event e = events.get(i);
      String kind = TextSanitizer.sanitize(e.kind(), MAX_TEXT_LENGTH, escape);
      String severity = TextSanitizer.sanitize(e.severity(), MAX_TEXT_LENGTH, escape);
      String message = TextSanitizer.sanitize(e.message(), MAX_TEXT_LENGTH, escape);
      double offset = e.offsetMs() >= 0 && e.offsetMs() != Double.POSITIVE_INFINITY ? e.offsetMs() : Double.NaN;
      boolean same = kind == e.kind() && severity == e.severity() && message == e.message()
          && Double.compare(offset, e.offsetMs()) == 0;
      if (!same && out == null) {
        out = new ArrayList<>(events.subList(0, i));
      }
      if (out != null) {
        out.add(same ? e : new InferenceRecord.Event(kind, severity, message, offset));
      }
    }
    return out == null ? events : Collections.unmodifiableList(out);
  }

  private static List<InferenceRecord.LayerTime> layers(List<InferenceRecord.LayerTime> layers, boolean escape) {
    List<InferenceRecord.LayerTime> out = null;
    for (int i = 0; i < layers.size(); i++) {
      InferenceRecord.LayerTime l = layers.get(i);
      String name = TextSanitizer.sanitize(l.name(), MAX_TEXT_LENGTH, escape);
      double ms = l.ms() >= 0 && l.ms() != Double.POSITIVE_INFINITY ? l.ms() : Double.NaN;
      int invocations = l.invocations() >= 0 ? l.invocations() : -1;
      boolean same = name == l.name() && Double.compare(ms, l.ms()) == 0 && invocations == l.invocations();
      if (!same && out == null) {
        out = new ArrayList<>(layers.subList(0, i));
      }
      if (out != null) {
        out.add(same ? l : new InferenceRecord.LayerTime(name, ms, invocations));
      }
    }
    return out == null ? layers : Collections.unmodifiableList(out);
  }

  private static Map<String, String> attributes(Map<String, String> attributes, boolean escape) {
    Map<String, String> out = null;
    for (Map.Entry<String, String> e : attributes.entrySet()) {
      String k = TextSanitizer.sanitize(e.getKey(), MAX_TEXT_LENGTH, escape);
      String val = TextSanitizer.sanitize(e.getValue(), MAX_TEXT_LENGTH, escape);
      if ((k != e.getKey() || val != e.getValue()) && out == null) {
        out = new LinkedHashMap<>();
        for (Map.Entry<String, String> before : attributes.entrySet()) {
          if (before.getKey().equals(e.getKey())) {
            break;
          }
          out.put(before.getKey(), before.getValue());
        }
      }
      if (out != null) {
        out.put(k, val);
      }
    }
    return out == null ? attributes : Collections.unmodifiableMap(out);
  }
}
