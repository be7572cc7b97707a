package io.github.trtrace.cli.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Stage;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Parses one JSON Lines record into a reused {@link Rec} with Jackson's streaming parser, straight
 * from the line's bytes. Unknown fields (and nested values the statistics do not use: events,
 * layers, attributes) are skipped. A line is malformed when it is not one JSON object, or lacks
 * {@code request_id}, {@code model_name}, {@code status} or a numeric {@code latency_ms}.
 */
final class RecordParser {
  static final String OUTPUT_FLAGS = "output_flags";
  static final String FINISH_REASON = "finish_reason";
  static final String MAX_TOKENS = "max_tokens";
  static final String GPU_UTIL_MEAN = "gpu_util_mean";
  static final String GPU_UTIL_MAX = "gpu_util_max";
  static final String GPU_MEM_UTIL_MAX = "gpu_mem_util_max";

  private static final Map<String, Integer> STAGE_INDEX = new HashMap<>();

  static {
    for (Stage s : Stage.values()) {
      STAGE_INDEX.put(s.field(), s.ordinal());
    }
  }

  private final JsonFactory factory =
      JsonFactory.builder().enable(com.fasterxml.jackson.core.StreamReadFeature.USE_FAST_DOUBLE_PARSER).build();

  /** Fills {@code r}; returns null for a record, else why the line is malformed. */
  @Nullable String parse(byte[] buf, int off, int len, Rec r) {
    r.clear();
    try (JsonParser p = factory.createParser(buf, off, len)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return "not a JSON object";
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        String why = field(p, t, name, r);
        if (why != null) {
          return why;
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
    if (r.requestId == null) {
      return "no " + RecordConvention.REQUEST_ID;
    }
    if (r.modelName == null) {
      return "no " + RecordConvention.MODEL_NAME;
    }
    if (r.status == null) {
      return "no " + RecordConvention.STATUS;
    }
    if (Double.isNaN(r.latencyMs)) {
      return "no " + RecordConvention.LATENCY_MS;
    }
    return null;
  }

  private static @Nullable String field(JsonParser p, JsonToken t, String name, Rec r) throws IOException {
    Integer stage = STAGE_INDEX.get(name);
    if (stage != null) {
      r.stageMs[stage] = number(p, t);
      return null;
    }
    switch (name) {
      case RecordConvention.REQUEST_ID:
        r.requestId = text(p, t);
        return r.requestId == null ? "request_id is not a string" : null;
      case RecordConvention.MODEL_NAME:
        r.modelName = text(p, t);
        return null;
      case RecordConvention.STATUS:
        r.status = text(p, t);
        return null;
      case RecordConvention.ERROR_TYPE:
        r.errorType = text(p, t);
        return null;
      case FINISH_REASON:
        r.finishReason = text(p, t);
        return null;
      case RecordConvention.TIMESTAMP:
        String ts = text(p, t);
        r.timestampMicros = ts == null ? Rec.NO_TIME : micros(ts);
        return null;
      case RecordConvention.LATENCY_MS:
        r.latencyMs = number(p, t);
        // NaN fails both comparisons; 1e400 parses as infinity
        boolean finite = r.latencyMs >= 0 && r.latencyMs < Double.POSITIVE_INFINITY;
        return finite ? null : "latency_ms is not a finite number >= 0";
      case RecordConvention.GPU_MS:
        r.gpuMs = number(p, t);
        return null;
      case RecordConvention.TTFT_MS:
        r.ttftMs = number(p, t);
        return null;
      case RecordConvention.TPOT_MS:
        r.tpotMs = number(p, t);
        return null;
      case RecordConvention.LAUNCH_COUNT:
        r.launchCount = Math.max(0, count(p, t));
        return null;
      case RecordConvention.NEIGHBOUR_PREFILL_LAUNCHES:
        r.neighbourPrefillLaunches = Math.max(0, count(p, t));
        return null;
      case RecordConvention.SLOWED_BY:
        neighbours(p, t, r.slowedBy);
        return null;
      case RecordConvention.GPU_UTIL:
      case GPU_UTIL_MEAN:
        r.gpuUtil = number(p, t);
        return null;
      case GPU_UTIL_MAX:
        r.gpuUtilMax = number(p, t);
        return null;
      case GPU_MEM_UTIL_MAX:
        r.gpuMemUtilMax = number(p, t);
        return null;
      case RecordConvention.INPUT_TOKENS:
        r.inputTokens = count(p, t);
        return null;
      case RecordConvention.OUTPUT_TOKENS:
        r.outputTokens = count(p, t);
        return null;
      case MAX_TOKENS:
        r.maxTokens = count(p, t);
        return null;
      case RecordConvention.INPUT_FLAGS:
        strings(p, t, r.inputFlags);
        return null;
      case OUTPUT_FLAGS:
        strings(p, t, r.outputFlags);
        return null;
      default:
        p.skipChildren();
        return null;
    }
  }

  /** A string value, or null (and the value skipped) when it is not one; shared with {@link LaunchParser}. */
  static @Nullable String text(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_STRING) {
      return p.getText();
    }
    p.skipChildren();
    return null;
  }

  /** A number, or NaN (and the value skipped) when it is not one; shared with {@link LaunchParser}. */
  static double number(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT) {
      return p.getDoubleValue();
    }
    p.skipChildren();
    return Double.NaN;
  }

  private static long count(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NUMBER_INT) {
      long v = p.getLongValue();
      return v >= 0 ? v : -1;
    }
    if (t == JsonToken.VALUE_NUMBER_FLOAT) {
      double d = p.getDoubleValue();
      return d >= 0 && d < 9e18 ? (long) d : -1;
    }
    p.skipChildren();
    return -1;
  }

  private static void strings(JsonParser p, JsonToken t, List<String> out) throws IOException {
    if (t != JsonToken.START_ARRAY) {
      p.skipChildren();
      return;
    }
    JsonToken e;
    while ((e = p.nextToken()) != JsonToken.END_ARRAY && e != null) {
      if (e == JsonToken.VALUE_STRING) {
        String s = p.getText();
        if (!out.contains(s)) {
          out.add(s);
        }
      } else {
        p.skipChildren();
      }
    }
  }

  /** The {@code slowed_by} items with a request ID (bounded by the schema to 3; more are skipped). */
  private static void neighbours(JsonParser p, JsonToken t, List<SharedLaunch.Neighbour> out) throws IOException {
    if (t != JsonToken.START_ARRAY) {
      p.skipChildren();
      return;
    }
    JsonToken e;
    while ((e = p.nextToken()) != JsonToken.END_ARRAY && e != null) {
      if (e != JsonToken.START_OBJECT) {
        p.skipChildren();
        continue;
      }
      String id = null;
      long tokens = 0;
      long launches = 0;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        switch (name) {
          case RecordConvention.NEIGHBOUR_REQUEST_ID -> id = text(p, v);
          case RecordConvention.NEIGHBOUR_PREFILL_TOKENS -> tokens = Math.max(0, count(p, v));
          case RecordConvention.NEIGHBOUR_LAUNCHES -> launches = Math.max(0, count(p, v));
          default -> p.skipChildren();
        }
      }
      if (id != null && out.size() < 8) {
        out.add(new SharedLaunch.Neighbour(id, tokens, (int) Math.min(Integer.MAX_VALUE, launches)));
      }
    }
  }

  /**
   * Epoch microseconds of an ISO-8601 UTC instant; the record's fixed form {@code
   * 2026-11-30T08:00:00.123456Z} is parsed by hand, anything else by {@link Instant#parse}; {@link
   * Rec#NO_TIME} when unparsable.
   */
  static long micros(String ts) {
    if (ts.length() == 27 && ts.charAt(4) == '-' && ts.charAt(10) == 'T' && ts.charAt(19) == '.' && ts.charAt(26) == 'Z') {
      int y = digits(ts, 0, 4);
      int mo = digits(ts, 5, 2);
      int d = digits(ts, 8, 2);
      int h = digits(ts, 11, 2);
      int mi = digits(ts, 14, 2);
      int s = digits(ts, 17, 2);
      int us = digits(ts, 20, 6);
      if (y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h < 24 && mi >= 0 && mi < 60 && s >= 0 && s < 60 && us >= 0) {
        long days = daysFromCivil(y, mo, d);
        return ((days * 86_400L + h * 3600L + mi * 60L + s) * 1_000_000L) + us;
      }
    }
    try {
      Instant i = Instant.parse(ts);
      return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    } catch (DateTimeParseException | ArithmeticException e) {
      return Rec.NO_TIME;
    }
  }

  private static int digits(String s, int from, int n) {
    int v = 0;
    for (int i = from; i < from + n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
  private static long daysFromCivil(int y, int m, int d) {
    int yy = m <= 2 ? y - 1 : y;
    long era = Math.floorDiv(yy, 400);
    long yoe = yy - era * 400;
    long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146_097L + doe - 719_468L;
  }
}
