package io.github.trtrace.cli.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.github.trtrace.core.RecordConvention;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Tells launch-log lines from records and parses a launch line into a reused {@link LaunchLine} with
 * Jackson's streaming parser. A launch line is a JSON object with {@code launch_id} and no {@code
 * request_id} at its top level (records have {@code request_id}); it is malformed without a numeric
 * {@code launch_id} or a {@code members} array. A {@code kernels} line (the GPU activities of one launch) has
 * a {@code kernels} array instead of members.
 */
final class LaunchParser {
  static final String LAUNCH_ID = "launch_id";

  private final JsonFactory factory = JsonFactory.builder().enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER).build();

  private static final byte[] LAUNCH_KEY = "\"launch_id\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] REQUEST_KEY = "\"request_id\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  /** How far into a line the byte scan looks for the key (both writers put it second, after the timestamp). */
  private static final int SCAN = 96;

  /**
   * Whether the line is a launch-log line: its first top-level field that is {@code launch_id} or
   * {@code request_id} is {@code launch_id}. Fast path: the first of {@code "launch_id":} and {@code
   * "request_id":} right after a {@code '{'} or {@code ','} (inside a JSON string a quote is escaped, so such a
   * key is structural) within the first {@value #SCAN} bytes decides; otherwise the streaming parser reads as
   * far as the first of the two top-level fields.
   */
  boolean isLaunch(byte[] buf, int off, int len) {
    int end = off + Math.min(len, SCAN);
    for (int i = off + 1; i < end; i++) {
      if (buf[i] == '"' && (buf[i - 1] == ',' || buf[i - 1] == '{')) {
        if (startsWith(buf, i, off + len, LAUNCH_KEY)) {
          return true;
        }
        if (startsWith(buf, i, off + len, REQUEST_KEY)) {
          return false;
        }
      }
    }
    return peek(buf, off, len);
  }

  private static boolean startsWith(byte[] buf, int at, int end, byte[] key) {
    if (end - at < key.length) {
      return false;
    }
    for (int k = 0; k < key.length; k++) {
      if (buf[at + k] != key[k]) {
        return false;
      }
    }
    return true;
  }

  private boolean peek(byte[] buf, int off, int len) {
    try (JsonParser p = factory.createParser(buf, off, len)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (LAUNCH_ID.equals(name)) {
          return true;
        }
        if (RecordConvention.REQUEST_ID.equals(name)) {
          return false;
        }
        p.nextToken();
        p.skipChildren();
      }
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  /** Fills {@code l}; returns null for a launch line, else why it is malformed. */
  @Nullable String parse(byte[] buf, int off, int len, LaunchLine l) {
    l.clear();
    boolean sawMembers = false;
    try (JsonParser p = factory.createParser(buf, off, len)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return "not a JSON object";
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        switch (name) {
          case LAUNCH_ID -> l.id = t == JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : -1;
          case "timestamp" -> {
            String ts = RecordParser.text(p, t);
            l.timestampMicros = ts == null ? Rec.NO_TIME : RecordParser.micros(ts);
          }
          case "phase" -> l.phase = RecordParser.text(p, t);
          case "batch_size" -> l.batchSize = (int) Math.min(Integer.MAX_VALUE, count(p, t));
          case "prefill_tokens" -> l.prefillTokens = count(p, t);
          case "decode_rows" -> l.decodeRows = (int) Math.min(Integer.MAX_VALUE, count(p, t));
          case "passes" -> l.passes = (int) Math.max(1, Math.min(Integer.MAX_VALUE, count(p, t)));
          case "gpu_ms" -> l.gpuMs = RecordParser.number(p, t);
          case "host_ms" -> l.hostMs = RecordParser.number(p, t);
          case "status" -> l.status = RecordParser.text(p, t);
          case "error_type" -> l.errorType = RecordParser.text(p, t);
          case "engine_fingerprint" -> l.engineFingerprint = RecordParser.text(p, t);
          case "members_truncated" -> l.membersTruncated = (int) Math.min(Integer.MAX_VALUE, count(p, t));
          case "span_ms" -> l.spanMs = RecordParser.number(p, t);
          case "host_wait_ms" -> l.hostWaitMs = RecordParser.number(p, t);
          case "activities_truncated" -> l.activitiesTruncated = (int) Math.min(Integer.MAX_VALUE, count(p, t));
          case "complete" -> l.incomplete = t == JsonToken.VALUE_FALSE; // absent (older lines): not judged
          case "unmatched_calls" -> l.unmatchedCalls = (int) Math.min(Integer.MAX_VALUE, count(p, t));
          case "kernels" -> {
            if (t != JsonToken.START_ARRAY) {
              return "kernels is not an array";
            }
            l.kernelsLine = true;
            String why = kernels(p, l);
            if (why != null) {
              return why;
            }
          }
          case "layers" -> {
            if (t != JsonToken.START_ARRAY) {
              return "layers is not an array";
            }
            String why = layers(p, l);
            if (why != null) {
              return why;
            }
          }
          case "members" -> {
            if (t != JsonToken.START_ARRAY) {
              return "members is not an array";
            }
            sawMembers = true;
            String why = members(p, l);
            if (why != null) {
              return why;
            }
          }
          default -> p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        return "data after the JSON object";
      }
    } catch (JsonProcessingException e) {
      return "invalid JSON: " + e.getOriginalMessage();
    } catch (IOException e) {
      return "unreadable: " + e.getMessage();
    }
    if (l.id < 0) {
      return "launch_id is not a number >= 0";
    }
    return sawMembers || l.kernelsLine ? null : "no members";
  }

  /** The activities of a kernels line: kind, name and ms of each (the rest is for other tools). */
  private static @Nullable String kernels(JsonParser p, LaunchLine l) throws IOException {
    return timings(p, "kernel", (kind, name, ms) -> {
      if (kind == null || name == null || !(ms >= 0)) {
        return "a kernel without kind, name or ms >= 0";
      }
      l.addKernel(kind, name, ms);
      return null;
    });
  }

  /**
   * A profiled launch's layer table: name and ms of each engine layer (invocations are for other tools). The schema
   * requires the name only; a layer whose time the writer did not know (no {@code ms}) has none to sum.
   */
  private static @Nullable String layers(JsonParser p, LaunchLine l) throws IOException {
    return timings(p, "layer", (kind, name, ms) -> {
      if (name == null || ms < 0) {
        return "a layer without a name, or with ms < 0";
      }
      if (!Double.isNaN(ms)) {
        l.addProfiledLayer(name, ms);
      }
      return null;
    });
  }

  /** What to do with one timed entry of an array; a reason when it is malformed. */
  @FunctionalInterface
  private interface Timing {
    @Nullable String take(@Nullable String kind, @Nullable String name, double ms);
  }

  /** An array of objects, each with a {@code kind}, {@code name} and {@code ms} (any may be absent), to {@code each}. */
  private static @Nullable String timings(JsonParser p, String what, Timing each) throws IOException {
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
      String kind = null;
      String name = null;
      double ms = Double.NaN;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken v = p.nextToken();
        switch (field) {
          case "kind" -> kind = RecordParser.text(p, v);
          case "name" -> name = RecordParser.text(p, v);
          case "ms" -> ms = RecordParser.number(p, v);
          default -> p.skipChildren();
        }
      }
      String why = each.take(kind, name, ms);
      if (why != null) {
        return why;
      }
    }
    return t == JsonToken.END_ARRAY ? null : "a " + what + " is not an object";
  }

  private static @Nullable String members(JsonParser p, LaunchLine l) throws IOException {
    JsonToken t;
    while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
      String id = null;
      long prefill = 0;
      long decode = 0;
      double share = Double.NaN;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        switch (name) {
          case "request_id" -> id = RecordParser.text(p, v);
          case "prefill_tokens" -> prefill = count(p, v);
          case "decode_rows" -> decode = count(p, v);
          case "share_ms" -> share = RecordParser.number(p, v);
          default -> p.skipChildren();
        }
      }
      if (id == null) {
        return "a member without request_id";
      }
      int i = l.addMember(id);
      l.memberPrefill[i] = Math.max(0, prefill);
      l.memberDecode[i] = (int) Math.max(0, Math.min(Integer.MAX_VALUE, decode));
      l.memberShare[i] = share;
    }
    return t == JsonToken.END_ARRAY ? null : "a member is not an object";
  }

  private static long count(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NUMBER_INT) {
      return Math.max(0, p.getLongValue());
    }
    p.skipChildren();
    return 0;
  }
}
