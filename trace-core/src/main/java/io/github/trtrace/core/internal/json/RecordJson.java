package io.github.trtrace.core.internal.json;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceRecord.Event;
import io.github.trtrace.core.InferenceRecord.LayerTime;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.internal.json.JsonWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The JSON form of an {@link InferenceRecord}: one object on one line, the fields, their order and
 * their sanitising ({@code gpu_util} clamped, {@code input_digest} cut to 100 characters, unknown
 * values left out, ...) those of {@link RecordConvention}, shared with every other output. The output
 * conforms to the schema shipped as {@code io/github/trtrace/core/inference-record.schema.json}.
 * Free text cannot break the line: see {@link JsonWriter} for the escaping; numbers are written with
 * at most three decimals.
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
  public static final int MAX_INPUT_DIGEST_LENGTH = RecordConvention.MAX_INPUT_DIGEST_LENGTH;

  private static final ThreadLocal<Writer> WRITERS = ThreadLocal.withInitial(Writer::new);

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
    Writer w = WRITERS.get();
    w.json.reset(out);
    try {
      w.json.beginObject();
      RecordConvention.visit(r, w);
      w.json.endObject();
    } finally {
      // do not keep the caller's buffer reachable from the thread
      w.json.reset(EMPTY);
    }
  }

  /** Writes the convention's fields as JSON members. */
  private static final class Writer implements RecordConvention.FieldVisitor {
    final JsonWriter json = JsonWriter.create(new StringBuilder(0), RecordConvention.MAX_TEXT_LENGTH);

    /** The JSON writer escapes control and format characters itself: they parse back as they were. */
    @Override
    public boolean escapesInvisible() {
      return true;
    }

    @Override
    public void timestamp(String name, Instant value) {
      // only digits and separators: appended in place, no escaping and no intermediate String
      StringBuilder out = json.name(name).rawValue();
      out.append('"');
      RecordConvention.appendTimestamp(value, out);
      out.append('"');
    }

    @Override
    public void text(String name, String value) {
      json.name(name).value(value);
    }

    @Override
    public void count(String name, long value) {
      json.name(name).value(value);
    }

    @Override
    public void number(String name, double value) {
      json.name(name).value(value);
    }

    @Override
    public void flags(String name, List<String> values) {
      json.name(name).beginArray();
      for (int i = 0; i < values.size(); i++) {
        json.value(values.get(i));
      }
      json.endArray();
    }

    @Override
    public void events(String name, List<Event> events) {
      json.name(name).beginArray();
      for (int i = 0; i < events.size(); i++) {
        Event e = events.get(i);
        json.beginObject()
            .name(RecordConvention.EVENT_KIND).value(e.kind())
            .name(RecordConvention.EVENT_SEVERITY).value(e.severity())
            .name(RecordConvention.EVENT_MESSAGE).value(e.message());
        if (!Double.isNaN(e.offsetMs())) {
          json.name(RecordConvention.EVENT_OFFSET_MS).value(e.offsetMs());
        }
        json.endObject();
      }
      json.endArray();
    }

    @Override
    public void layers(String name, List<LayerTime> layers) {
      json.name(name).beginArray();
      for (int i = 0; i < layers.size(); i++) {
        LayerTime l = layers.get(i);
        json.beginObject().name(RecordConvention.LAYER_NAME).value(l.name());
        if (!Double.isNaN(l.ms())) {
          json.name(RecordConvention.LAYER_MS).value(l.ms());
        }
        if (l.invocations() >= 0) {
          json.name(RecordConvention.LAYER_INVOCATIONS).value(l.invocations());
        }
        json.endObject();
      }
      json.endArray();
    }

    @Override
    public void neighbours(String name, List<io.github.trtrace.core.SharedLaunch.Neighbour> neighbours) {
      json.name(name).beginArray();
      for (int i = 0; i < neighbours.size(); i++) {
        io.github.trtrace.core.SharedLaunch.Neighbour n = neighbours.get(i);
        json.beginObject()
            .name(RecordConvention.NEIGHBOUR_REQUEST_ID).value(n.requestId())
            .name(RecordConvention.NEIGHBOUR_PREFILL_TOKENS).value(n.prefillTokens())
            .name(RecordConvention.NEIGHBOUR_LAUNCHES).value(n.launches())
            .endObject();
      }
      json.endArray();
    }

    @Override
    public void attributes(String name, Map<String, String> attributes) {
      json.name(name).beginObject();
      for (Map.Entry<String, String> e : attributes.entrySet()) {
        json.name(e.getKey()).value(e.getValue());
      }
      json.endObject();
    }
  }
}
