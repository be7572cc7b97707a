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

  private static final ThreadLocal<Writer> WRITERS =
      ThreadLocal.withInitial(() -> new Writer(JsonWriter.create(new StringBuilder(0), RecordConvention.MAX_TEXT_LENGTH)));

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
    JsonWriter text = (JsonWriter) w.json;
    text.reset(out);
    try {
      w.write(r);
    } finally {
      // do not keep the caller's buffer reachable from the thread
      text.reset(EMPTY);
    }
  }

  /**
   * Encodes records as JSON lines straight into UTF-8 bytes held in a reused array: byte for byte the
   * UTF-8 of {@link #appendLine}'s text, without the text (the file sink's encoder). Not thread-safe.
   *
   * <pre>{@code
   * RecordJson.Utf8Lines lines = new RecordJson.Utf8Lines();
   * lines.encode(record);   // lines.bytes()[0 .. lines.length()): the line, '\n' included
   * }</pre>
   */
  public static final class Utf8Lines {
    private final JsonBytes json = new JsonBytes(RecordConvention.MAX_TEXT_LENGTH);
    private final Writer writer = new Writer(json);

    /** Encodes {@code r} as one line, line feed included, replacing the previous one. */
    public void encode(InferenceRecord r) {
      json.reset();
      writer.write(r);
      json.lineFeed();
    }

    /** The line's bytes, valid up to {@link #length()} until the next {@code encode}. */
    public byte[] bytes() {
      return json.bytes();
    }

    public int length() {
      return json.length();
    }
  }

  /** Writes the convention's fields as JSON members. */
  private static final class Writer implements RecordConvention.FieldVisitor {
    final JsonOutput json;
    /**
     * The timestamp as written, quotes included: {@code "2026-12-06T07:10:00.123456Z"}, ASCII. Records come
     * with the clock, so consecutive ones mostly share their second: the text up to its {@code '.'} is made
     * once a second ({@link #stampSecond}) and only the six digits of the microseconds after it each time.
     */
    private final byte[] stamp = new byte[32];
    /** The epoch second whose text {@link #stamp} holds up to {@link #stampFraction}; none at first. */
    private long stampSecond = Long.MIN_VALUE;
    /** Where the microseconds' digits go in {@link #stamp}: just after the {@code '.'}. */
    private int stampFraction;
    private final StringBuilder secondText = new StringBuilder(32);

    Writer(JsonOutput json) {
      this.json = json;
    }

    void write(InferenceRecord r) {
      json.beginObject();
      RecordConvention.visit(r, this);
      json.endObject();
    }

    /** The JSON writer escapes control and format characters itself: they parse back as they were. */
    @Override
    public boolean escapesInvisible() {
      return true;
    }

    @Override
    public void timestamp(String name, Instant value) {
      Instant t = RecordConvention.timestamp(value); // clamped already when it comes from visit(): the same instance
      long second = t.getEpochSecond();
      if (second != stampSecond) {
        StringBuilder text = secondText;
        text.setLength(0);
        text.append('"');
        RecordConvention.appendTimestamp(Instant.ofEpochSecond(second), text); // ...:SS.000000Z
        stampFraction = text.length() - 7;
        for (int i = 0; i < stampFraction; i++) {
          stamp[i] = (byte) text.charAt(i);
        }
        stampSecond = second;
      }
      int micros = t.getNano() / 1000;
      int end = stampFraction + 6;
      for (int i = end - 1; i >= stampFraction; i--) {
        stamp[i] = (byte) ('0' + micros % 10);
        micros /= 10;
      }
      stamp[end] = 'Z';
      stamp[end + 1] = '"';
      json.name(name).rawValue(stamp, end + 2);
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
