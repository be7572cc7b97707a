package io.github.trtrace.core.json;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceRecord.Event;
import io.github.trtrace.core.InferenceRecord.Fields;
import io.github.trtrace.core.InferenceRecord.LayerTime;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.OutputFlag;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The JSON form of an {@link InferenceRecord}: one object on one line, fields named by {@link
 * Fields} and written in that order. Unknown values are left out: null strings, {@code -1} counts,
 * NaN doubles, empty flags, events, layers and attributes. The output conforms to the schema shipped
 * as {@code io/github/trtrace/core/inference-record.schema.json}.
 *
 * <p>Values the schema forbids are sanitized rather than rejected, as recording must not fail: a
 * {@code gpu_util} outside 0..100 is clamped, negative memory, layer or offset values are left out,
 * {@code input_digest} is cut to 100 characters, timestamps outside years 0000..9999 are clamped.
 * Free text cannot break the line: see {@link JsonWriter} for the escaping.
 * Two schema rules are the caller's to keep: {@code request_id} must be a validated ID (the
 * schema's pattern), and {@code latency_ms} must be set, or the line lacks a required field.
 *
 * <pre>{@code
 * StringBuilder sb = new StringBuilder();
 * RecordJson.appendLine(record, sb);   // {"timestamp":"2026-11-30T08:00:00.123456Z",...}\n
 * }</pre>
 */
public final class RecordJson {

  /** Longest {@code input_digest} written, in chars. */
  public static final int MAX_INPUT_DIGEST_LENGTH = 100;

  private static final ThreadLocal<JsonWriter> WRITERS =
      ThreadLocal.withInitial(() -> JsonWriter.create(new StringBuilder(0)));

  /** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z, the range of a 4-digit year. */
  private static final long MIN_EPOCH_SECOND = -62167219200L;
  private static final long MAX_EPOCH_SECOND = 253402300799L;

  private static final StringBuilder EMPTY = new StringBuilder(0);

  private RecordJson() {}

  /** Appends {@code r} as one JSON object and a {@code '\n'}: exactly one line. */
  public static void appendLine(InferenceRecord r, StringBuilder out) {
    append(r, out);
    out.append('\n');
  }

  /** {@code r} as one JSON object, without a line terminator. */
  public static String toJson(InferenceRecord r) {
    StringBuilder sb = new StringBuilder(256);
    append(r, sb);
    return sb.toString();
  }

  private static void append(InferenceRecord r, StringBuilder out) {
    JsonWriter w = WRITERS.get().reset(out);
    try {
      write(r, w);
    } finally {
      // do not keep the caller's buffer reachable from the thread
      w.reset(EMPTY);
    }
  }

  private static void write(InferenceRecord r, JsonWriter w) {
    w.beginObject();
    w.name(Fields.TIMESTAMP);
    appendTimestamp(w, r.timestamp());
    w.name(Fields.REQUEST_ID).value(r.requestId());
    w.name(Fields.MODEL_NAME).value(r.modelName());
    w.name(Fields.STATUS).value(r.status().wireName());
    string(w, Fields.ERROR_TYPE, r.errorType());
    nonNegative(w, Fields.LATENCY_MS, r.latencyMs());
    string(w, Fields.TRACE_ID, r.traceId());
    string(w, Fields.SPAN_ID, r.spanId());
    count(w, Fields.INPUT_TOKENS, r.inputTokens());
    count(w, Fields.OUTPUT_TOKENS, r.outputTokens());
    count(w, Fields.MAX_TOKENS, r.maxTokens());
    nonNegative(w, Fields.TEMPERATURE, r.temperature());
    if (r.topP() >= 0 && r.topP() <= 1) {
      w.name(Fields.TOP_P).value(r.topP());
    }
    string(w, Fields.FINISH_REASON, r.finishReason());
    nonNegative(w, Fields.QUEUE_MS, r.queueMs());
    nonNegative(w, Fields.PREPROCESS_MS, r.preprocessMs());
    nonNegative(w, Fields.INFER_MS, r.inferMs());
    nonNegative(w, Fields.GPU_MS, r.gpuMs());
    nonNegative(w, Fields.DECODE_MS, r.decodeMs());
    nonNegative(w, Fields.POSTPROCESS_MS, r.postprocessMs());
    nonNegative(w, Fields.TTFT_MS, r.ttftMs());
    nonNegative(w, Fields.TPOT_MS, r.tpotMs());
    double util = r.gpuUtil();
    if (!Double.isNaN(util)) {
      w.name(Fields.GPU_UTIL).value(Math.max(0.0, Math.min(100.0, util)));
    }
    nonNegative(w, Fields.GPU_MEM_USED_MB, r.gpuMemUsedMb());
    string(w, Fields.ENGINE_FINGERPRINT, r.engineFingerprint());
    string(w, Fields.SAMPLED_REASON, r.sampledReason());
    if (!r.inputFlags().isEmpty()) {
      w.name(Fields.INPUT_FLAGS).beginArray();
      for (InputFlag f : r.inputFlags()) {
        w.value(f.wireName());
      }
      w.endArray();
    }
    String digest = r.inputDigest();
    if (digest != null) {
      w.name(Fields.INPUT_DIGEST).value(digest, MAX_INPUT_DIGEST_LENGTH);
    }
    if (!r.outputFlags().isEmpty()) {
      w.name(Fields.OUTPUT_FLAGS).beginArray();
      for (OutputFlag f : r.outputFlags()) {
        w.value(f.wireName());
      }
      w.endArray();
    }
    writeEvents(w, r.events());
    writeLayers(w, r.layers());
    Map<String, String> attributes = r.attributes();
    if (!attributes.isEmpty()) {
      w.name(Fields.ATTRIBUTES).beginObject();
      for (Map.Entry<String, String> e : attributes.entrySet()) {
        w.name(e.getKey()).value(e.getValue());
      }
      w.endObject();
    }
    w.endObject();
  }

  private static void writeEvents(JsonWriter w, List<Event> events) {
    if (events.isEmpty()) {
      return;
    }
    w.name(Fields.EVENTS).beginArray();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      w.beginObject()
          .name("kind").value(e.kind())
          .name("severity").value(e.severity())
          .name("message").value(e.message());
      nonNegative(w, "offset_ms", e.offsetMs());
      w.endObject();
    }
    w.endArray();
  }

  private static void writeLayers(JsonWriter w, List<LayerTime> layers) {
    if (layers.isEmpty()) {
      return;
    }
    w.name(Fields.LAYERS).beginArray();
    for (int i = 0; i < layers.size(); i++) {
      LayerTime l = layers.get(i);
      w.beginObject().name("name").value(l.name());
      nonNegative(w, "ms", l.ms());
      count(w, "invocations", l.invocations());
      w.endObject();
    }
    w.endArray();
  }

  private static void string(JsonWriter w, String name, @Nullable String v) {
    if (v != null) {
      w.name(name).value(v);
    }
  }

  /** Writes a non-negative finite value; NaN, infinities and negatives mean unknown. */
  private static void nonNegative(JsonWriter w, String name, double v) {
    if (v >= 0 && !Double.isInfinite(v)) {
      w.name(name).value(v);
    }
  }

  private static void count(JsonWriter w, String name, long v) {
    if (v >= 0) {
      w.name(name).value(v);
    }
  }

  /** ISO-8601 UTC with exactly six fractional digits, e.g. {@code 2026-11-30T08:00:00.123456Z}. */
  private static void appendTimestamp(JsonWriter w, Instant t) {
    long seconds = t.getEpochSecond();
    int micros = t.getNano() / 1000;
    if (seconds < MIN_EPOCH_SECOND) {
      seconds = MIN_EPOCH_SECOND;
      micros = 0;
    } else if (seconds > MAX_EPOCH_SECOND) {
      seconds = MAX_EPOCH_SECOND;
      micros = 999_999;
    }
    // only digits and separators: appended in place, no escaping and no intermediate String
    StringBuilder out = w.rawValue();
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
    out.append('"');
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
    out.append('Z').append('"');
  }

  private static void pad(StringBuilder out, int v, int width) {
    for (int p = width - 1; p >= 0; p--) {
      int div = POWERS[p];
      out.append((char) ('0' + (v / div) % 10));
    }
  }

  private static final int[] POWERS = {1, 10, 100, 1000, 10_000, 100_000};
}
