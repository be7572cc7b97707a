package io.github.trtrace.core.internal.json;

import org.jspecify.annotations.Nullable;

/**
 * What {@link RecordJson} writes a record through: {@link JsonWriter} (text into a {@code
 * StringBuilder}) or {@link JsonBytes} (UTF-8 into a byte array), which write the same JSON.
 */
public interface JsonOutput {
  JsonOutput beginObject();

  JsonOutput endObject();

  JsonOutput beginArray();

  JsonOutput endArray();

  JsonOutput name(String name);

  JsonOutput value(@Nullable String value);

  JsonOutput value(long value);

  JsonOutput value(double value);

  /** Writes {@code json}, printable ASCII already in JSON form (quotes included), as the next value. */
  JsonOutput rawValue(CharSequence json);

  /** {@link #rawValue(CharSequence)} of the first {@code length} bytes of {@code ascii}, one char a byte. */
  JsonOutput rawValue(byte[] ascii, int length);
}
