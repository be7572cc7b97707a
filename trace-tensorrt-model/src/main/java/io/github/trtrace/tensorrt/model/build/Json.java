package io.github.trtrace.tensorrt.model.build;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Streaming JSON to plain maps/lists (no databind at run time). */
final class Json {
  static final JsonFactory FACTORY = JsonFactory.builder().build();

  private Json() {}

  /** Parses a whole document; a clear IllegalArgumentException for malformed input. */
  static @Nullable Object parse(String json) {
    try (JsonParser p = FACTORY.createParser(json)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        throw new IllegalArgumentException("empty JSON document");
      }
      Object v = value(p, t);
      if (p.nextToken() != null) {
        throw new IllegalArgumentException("malformed JSON: content after the end of the document");
      }
      return v;
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed JSON: " + e.getMessage(), e);
    }
  }

  private static @Nullable Object value(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case START_OBJECT:
        Map<String, @Nullable Object> map = new LinkedHashMap<>();
        for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
          String name = p.currentName();
          map.put(name, value(p, p.nextToken()));
        }
        return map;
      case START_ARRAY:
        List<@Nullable Object> list = new ArrayList<>();
        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
          list.add(value(p, e));
        }
        return list;
      case VALUE_STRING:
        return p.getText();
      case VALUE_NUMBER_INT:
        return p.getLongValue();
      case VALUE_NUMBER_FLOAT:
        return p.getDoubleValue();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null;
      default:
        throw new IllegalArgumentException("unexpected JSON token " + t);
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, @Nullable Object> object(@Nullable Object o, String what) {
    if (o instanceof Map) {
      return (Map<String, @Nullable Object>) o;
    }
    throw new IllegalArgumentException(what + ": expected a JSON object but got " + describe(o));
  }

  @SuppressWarnings("unchecked")
  static List<@Nullable Object> array(@Nullable Object o, String what) {
    if (o == null) {
      return List.of();
    }
    if (o instanceof List) {
      return (List<@Nullable Object>) o;
    }
    throw new IllegalArgumentException(what + ": expected a JSON array but got " + describe(o));
  }

  static @Nullable String string(Map<String, @Nullable Object> m, String key) {
    Object o = m.get(key);
    return o == null ? null : o.toString();
  }

  /**
   * The number at {@code key}, {@code dflt} when absent or null; any other type is refused with the key's name
   * (read as unknown, a figure written as a string would make the gate skip its check).
   */
  static long number(Map<String, @Nullable Object> m, String key, long dflt) {
    Number n = numberOrNull(m, key);
    return n == null ? dflt : n.longValue();
  }

  /** As {@link #number}, NaN when absent or null. */
  static double decimal(Map<String, @Nullable Object> m, String key) {
    Number n = numberOrNull(m, key);
    return n == null ? Double.NaN : n.doubleValue();
  }

  private static @Nullable Number numberOrNull(Map<String, @Nullable Object> m, String key) {
    Object o = m.get(key);
    if (o == null || o instanceof Number) {
      return (Number) o;
    }
    throw new IllegalArgumentException(key + ": expected a number but got " + describe(o));
  }

  static List<String> strings(Map<String, @Nullable Object> m, String key) {
    List<String> out = new ArrayList<>();
    for (Object o : array(m.get(key), key)) {
      if (o != null) {
        out.add(o.toString());
      }
    }
    return out;
  }

  static void rethrow(IOException e) {
    throw new UncheckedIOException(e);
  }

  /** The JSON type of a parsed value, in JSON's terms. */
  private static String describe(@Nullable Object o) {
    if (o == null) {
      return "null";
    }
    if (o instanceof Map) {
      return "an object";
    }
    if (o instanceof List) {
      return "an array";
    }
    if (o instanceof Number) {
      return "a number";
    }
    if (o instanceof Boolean) {
      return o.toString();
    }
    return "a string";
  }
}
