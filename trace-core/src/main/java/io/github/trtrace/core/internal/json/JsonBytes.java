package io.github.trtrace.core.internal.json;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * {@link JsonWriter}'s twin that writes UTF-8 bytes into a reused, growing array: the same JSON, byte
 * for byte the UTF-8 of what {@link JsonWriter} writes (same escaping, truncation in UTF-16 chars,
 * numbers), without the text and its UTF-16 to UTF-8 step in between. The file sink encodes records
 * with it ({@link RecordJson.Utf8Lines}). Reusable ({@link #reset()}), not thread-safe.
 *
 * <pre>{@code
 * JsonBytes b = new JsonBytes(4096);
 * b.beginObject().name("model").value("llama").endObject();
 * // b.bytes()[0 .. b.length()): {"model":"llama"} in UTF-8
 * }</pre>
 */
public final class JsonBytes implements JsonOutput {
  private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] REPLACEMENT_ESCAPE = {'\\', 'u', 'f', 'f', 'f', 'd'};
  private static final byte[] NULL = {'n', 'u', 'l', 'l'};
  /** 10^0 .. 10^18: a long's digits counted by comparisons, not divisions. */
  private static final long[] POWERS_OF_TEN = new long[19];

  static {
    POWERS_OF_TEN[0] = 1;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
    }
  }

  /** The most bytes one UTF-16 char of a string can become: a backslash-u escape. */
  private static final int MAX_BYTES_PER_CHAR = 6;

  /** Names whose encoded form ({@code "name":}) is kept, by identity: a record's field names are constants. */
  private static final int MAX_CACHED_NAMES = 256;

  private final int maxStringLength;
  private final JsonNesting nesting = new JsonNesting();
  private final java.util.IdentityHashMap<String, byte[]> names = new java.util.IdentityHashMap<>();
  /**
   * The names of the line before, in the order written, with their encoded forms: the k-th name of a line
   * is mostly the k-th of the previous one (a record's fields come in one order), found with one comparison
   * instead of a lookup in {@link #names}. Counted from {@link #reset()}.
   */
  private static final int LINE_NAMES = 64;
  private final String[] lineNames = new String[LINE_NAMES];
  private final byte[][] lineEncoded = new byte[LINE_NAMES][];
  private int lineNamesAt;
  private byte[] buf = new byte[1024];
  private int len;
  /** {@link #writeString}'s copy of the string's chars, reused. */
  private char[] chars = new char[256];

  /**
   * A writer truncating strings longer than {@code maxStringLength} UTF-16 chars, as {@link JsonWriter#create(StringBuilder, int)}.
   *
   * @throws IllegalArgumentException if {@code maxStringLength} is below 1
   */
  public JsonBytes(int maxStringLength) {
    JsonWriter.checkMaxLength(maxStringLength);
    this.maxStringLength = maxStringLength;
  }

  /** Empties the buffer and forgets any open containers. */
  public JsonBytes reset() {
    len = 0;
    lineNamesAt = 0;
    nesting.reset();
    return this;
  }

  /** The bytes written since the last reset, valid up to {@link #length()} until the next write. */
  public byte[] bytes() {
    return buf;
  }

  public int length() {
    return len;
  }

  /** Whether every container opened since the last reset has been closed again. */
  public boolean isComplete() {
    return nesting.isComplete();
  }

  /** Appends a line feed (after a complete value: the end of a JSON line). */
  public void lineFeed() {
    ensure(1);
    buf[len++] = '\n';
  }

  @Override
  public JsonBytes beginObject() {
    beforeValue();
    put('{');
    nesting.push(JsonNesting.OBJECT);
    return this;
  }

  @Override
  public JsonBytes endObject() {
    nesting.pop(JsonNesting.OBJECT);
    put('}');
    return this;
  }

  @Override
  public JsonBytes beginArray() {
    beforeValue();
    put('[');
    nesting.push(JsonNesting.ARRAY);
    return this;
  }

  @Override
  public JsonBytes endArray() {
    nesting.pop(JsonNesting.ARRAY);
    put(']');
    return this;
  }

  @Override
  public JsonBytes name(String name) {
    Objects.requireNonNull(name, "name");
    if (nesting.beforeName(name)) {
      put(',');
    }
    int k = lineNamesAt;
    lineNamesAt = k < LINE_NAMES ? k + 1 : k; // past LINE_NAMES names a line looks them up
    boolean sameAsLineBefore = k < LINE_NAMES && lineNames[k] == name;
    byte[] encoded = sameAsLineBefore ? lineEncoded[k] : names.get(name);
    if (encoded == null) {
      int start = len;
      writeString(name, maxStringLength);
      put(':');
      if (names.size() < MAX_CACHED_NAMES) {
        encoded = Arrays.copyOfRange(buf, start, len);
        names.put(name, encoded);
      }
    } else {
      ensure(encoded.length);
      System.arraycopy(encoded, 0, buf, len, encoded.length);
      len += encoded.length;
    }
    if (k < LINE_NAMES && !sameAsLineBefore) {
      lineNames[k] = encoded == null ? null : name;
      lineEncoded[k] = encoded;
    }
    return this;
  }

  @Override
  public JsonBytes value(@Nullable String value) {
    if (value == null) {
      return nullValue();
    }
    beforeValue();
    writeString(value, maxStringLength);
    return this;
  }

  @Override
  public JsonBytes value(long value) {
    beforeValue();
    writeLong(value);
    return this;
  }

  /** As {@link JsonWriter#value(double)}: at most three decimals, at least one; NaN and infinities as {@code null}. */
  @Override
  public JsonBytes value(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return nullValue();
    }
    beforeValue();
    if (Math.abs(value) >= JsonWriter.FAST_LIMIT) {
      writeAscii(JsonWriter.largeDecimal(value));
      return this;
    }
    long thousandths = Math.round(value * 1000.0);
    if (thousandths < 0) {
      put('-');
      thousandths = -thousandths;
    }
    writeLong(thousandths / 1000);
    ensure(4);
    buf[len++] = '.';
    int frac = (int) (thousandths % 1000);
    if (frac == 0) {
      buf[len++] = '0';
    } else {
      buf[len++] = (byte) ('0' + frac / 100);
      frac %= 100;
      if (frac != 0) {
        buf[len++] = (byte) ('0' + frac / 10);
        frac %= 10;
        if (frac != 0) {
          buf[len++] = (byte) ('0' + frac);
        }
      }
    }
    return this;
  }

  public JsonBytes nullValue() {
    beforeValue();
    ensure(NULL.length);
    System.arraycopy(NULL, 0, buf, len, NULL.length);
    len += NULL.length;
    return this;
  }

  @Override
  public JsonBytes rawValue(CharSequence json) {
    beforeValue();
    writeAscii(json);
    return this;
  }

  @Override
  public JsonBytes rawValue(byte[] ascii, int length) {
    beforeValue();
    ensure(length);
    System.arraycopy(ascii, 0, buf, len, length);
    len += length;
    return this;
  }

  private void beforeValue() {
    if (nesting.beforeValue()) {
      put(',');
    }
  }

  private void put(char c) {
    ensure(1);
    buf[len++] = (byte) c;
  }

  private void ensure(int more) {
    if (buf.length - len < more) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
    }
  }

  /** {@code s}, known to be ASCII, one byte a char. */
  private void writeAscii(CharSequence s) {
    int n = s.length();
    ensure(n);
    for (int i = 0; i < n; i++) {
      buf[len++] = (byte) s.charAt(i);
    }
  }

  private void writeLong(long v) {
    if (v == Long.MIN_VALUE) {
      writeAscii(Long.toString(v));
      return;
    }
    ensure(20);
    if (v < 0) {
      buf[len++] = '-';
      v = -v;
    }
    int digits = 1;
    while (digits < POWERS_OF_TEN.length && v >= POWERS_OF_TEN[digits]) {
      digits++;
    }
    int end = len + digits;
    for (int i = end - 1; i >= len; i--) {
      buf[i] = (byte) ('0' + (int) (v % 10));
      v /= 10;
    }
    len = end;
  }

  /** {@link JsonWriter}'s string rule, written as UTF-8 (see there for what is escaped and why). */
  private void writeString(String s, int maxLength) {
    int end = s.length();
    boolean truncated = false;
    if (end > maxLength) {
      truncated = true;
      end = maxLength - 1;
      if (end > 0 && Character.isHighSurrogate(s.charAt(end - 1)) && Character.isLowSurrogate(s.charAt(end))) {
        end--;
      }
    }
    // the worst case of every char (an escape), the quotes and the marker: no check per byte below
    ensure(end * MAX_BYTES_PER_CHAR + 5);
    // the chars copied out at once: reading a String a char at a time checks its bounds and coder each time
    char[] cs = chars;
    if (cs.length < end) {
      cs = chars = new char[Math.max(end, cs.length * 2)];
    }
    s.getChars(0, end, cs, 0);
    byte[] b = buf;
    int j = len;
    b[j++] = '"';
    int i = 0;
    // printable ASCII without a quote or backslash, the common case: one byte a char, no escape
    for (char c; i < end && (c = cs[i]) >= 0x20 && c < 0x7f && c != '"' && c != '\\'; i++) {
      b[j++] = (byte) c;
    }
    for (; i < end; i++) {
      char c = cs[i];
      if (c >= 0x20 && c < 0x7f) {
        if (c == '"' || c == '\\') {
          b[j++] = '\\';
        }
        b[j++] = (byte) c;
      } else if (c >= 0xa0 && !Character.isSurrogate(c) && !JsonWriter.needsEscape(c)) {
        if (c < 0x800) {
          b[j++] = (byte) (0xc0 | (c >> 6));
          b[j++] = (byte) (0x80 | (c & 0x3f));
        } else {
          b[j++] = (byte) (0xe0 | (c >> 12));
          b[j++] = (byte) (0x80 | ((c >> 6) & 0x3f));
          b[j++] = (byte) (0x80 | (c & 0x3f));
        }
      } else if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(cs[i + 1])) {
        char low = cs[++i];
        int cp = Character.toCodePoint(c, low);
        if (UnicodeChars.isEscaped(cp)) {
          j = unicodeEscape(b, j, c);
          j = unicodeEscape(b, j, low);
        } else {
          b[j++] = (byte) (0xf0 | (cp >> 18));
          b[j++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
          b[j++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
          b[j++] = (byte) (0x80 | (cp & 0x3f));
        }
      } else if (Character.isSurrogate(c)) {
        System.arraycopy(REPLACEMENT_ESCAPE, 0, b, j, REPLACEMENT_ESCAPE.length);
        j += REPLACEMENT_ESCAPE.length;
      } else {
        j = unicodeEscape(b, j, c);
      }
    }
    if (truncated) { // U+2026
      b[j++] = (byte) 0xe2;
      b[j++] = (byte) 0x80;
      b[j++] = (byte) 0xa6;
    }
    b[j++] = '"';
    len = j;
  }

  private static int unicodeEscape(byte[] b, int j, char c) {
    b[j++] = '\\';
    b[j++] = 'u';
    b[j++] = HEX[(c >> 12) & 0xf];
    b[j++] = HEX[(c >> 8) & 0xf];
    b[j++] = HEX[(c >> 4) & 0xf];
    b[j++] = HEX[c & 0xf];
    return j;
  }
}
