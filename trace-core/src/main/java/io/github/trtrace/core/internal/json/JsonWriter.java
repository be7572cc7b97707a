package io.github.trtrace.core.internal.json;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A streaming JSON writer that appends to a {@link StringBuilder}: no JSON library, no per-value
 * allocation on the common paths. Reusable ({@link #reset(StringBuilder)}) but not thread-safe.
 *
 * <p>Output is safe to put on one line of a log file and to show in a terminal: besides {@code "}
 * and {@code \}, every C0/C1 control character, DEL, U+2028/U+2029 and every invisible format
 * character (Unicode category Cf: the bidirectional controls U+061C, U+200E/F, U+202A..U+202E,
 * U+2066..U+2069, the zero-width U+200B..U+200D, U+2060, U+FEFF, and the rest, such as U+00AD,
 * U+180E, U+206A..U+206F, U+FFF9..U+FFFB, in every plane: the tag characters U+E0001, U+E0020..U+E007F,
 * U+1D173..U+1D17A, U+1BCA0..U+1BCA3, U+13430..U+1343F) are written as a JSON backslash-u escape with
 * four hex digits (a supplementary one as the escapes of its two UTF-16 chars, as JSON spells it); the
 * rule is {@link UnicodeChars#isEscaped(int)}; unpaired UTF-16 surrogates become U+FFFD; strings longer
 * than the maximum length are cut at a code-point boundary and end with {@code …}, so that a written
 * string is never longer than the maximum (in UTF-16 chars, the marker included).
 *
 * <p>Doubles are written with at most three decimals and never in exponent notation, always with a
 * fraction part ({@code 12.0}, {@code 12.346}) so that consumers which infer a column type from
 * the first value they see (Elasticsearch, for one) keep treating the field as a floating-point
 * number. NaN and infinities are not JSON: callers leave such fields out; handed one, the writer
 * writes {@code null}.
 *
 * <pre>{@code
 * StringBuilder sb = new StringBuilder();
 * JsonWriter w = JsonWriter.create(sb);
 * w.beginObject().name("model").value("llama").name("ms").value(12.3456).endObject();
 * // sb: {"model":"llama","ms":12.346}
 * }</pre>
 */
public final class JsonWriter implements JsonOutput {

  /** Default maximum string length in UTF-16 chars, the truncation marker included. */
  public static final int DEFAULT_MAX_STRING_LENGTH = 4096;

  /** Appended to a truncated string. */
  public static final char TRUNCATION_MARKER = '\u2026';

  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final String REPLACEMENT_ESCAPE = "\\ufffd";

  private final int maxStringLength;
  private StringBuilder out;
  private final JsonNesting nesting = new JsonNesting();

  private JsonWriter(StringBuilder out, int maxStringLength) {
    this.out = out;
    this.maxStringLength = maxStringLength;
  }

  /** A writer appending to {@code out}, truncating strings at {@link #DEFAULT_MAX_STRING_LENGTH}. */
  public static JsonWriter create(StringBuilder out) {
    return create(out, DEFAULT_MAX_STRING_LENGTH);
  }

  /**
   * A writer appending to {@code out}, truncating strings longer than {@code maxStringLength}.
   *
   * @throws IllegalArgumentException if {@code maxStringLength} is below 1
   */
  public static JsonWriter create(StringBuilder out, int maxStringLength) {
    Objects.requireNonNull(out, "out");
    checkMaxLength(maxStringLength);
    return new JsonWriter(out, maxStringLength);
  }

  /** Forgets any open containers and appends to {@code out} from now on. */
  public JsonWriter reset(StringBuilder out) {
    this.out = Objects.requireNonNull(out, "out");
    nesting.reset();
    return this;
  }

  /** The builder this writer appends to. */
  public StringBuilder out() {
    return out;
  }

  /** The configured maximum string length in UTF-16 chars. */
  public int maxStringLength() {
    return maxStringLength;
  }

  /** Whether every container opened since the last reset has been closed again. */
  public boolean isComplete() {
    return nesting.isComplete();
  }

  @Override
  public JsonWriter beginObject() {
    beforeValue();
    out.append('{');
    nesting.push(JsonNesting.OBJECT);
    return this;
  }

  @Override
  public JsonWriter endObject() {
    nesting.pop(JsonNesting.OBJECT);
    out.append('}');
    return this;
  }

  @Override
  public JsonWriter beginArray() {
    beforeValue();
    out.append('[');
    nesting.push(JsonNesting.ARRAY);
    return this;
  }

  @Override
  public JsonWriter endArray() {
    nesting.pop(JsonNesting.ARRAY);
    out.append(']');
    return this;
  }

  /**
   * Writes a member name; the next call must write its value.
   *
   * @throws IllegalStateException outside an object or right after another name
   */
  @Override
  public JsonWriter name(String name) {
    Objects.requireNonNull(name, "name");
    if (nesting.beforeName(name)) {
      out.append(',');
    }
    writeString(name, maxStringLength);
    out.append(':');
    return this;
  }

  /** Writes a string, or {@code null} for a null reference. */
  @Override
  public JsonWriter value(@Nullable String value) {
    return value(value, maxStringLength);
  }

  /**
   * Writes a string cut to at most {@code maxLength} chars (marker included), or {@code null}.
   *
   * @throws IllegalArgumentException if {@code maxLength} is below 1
   */
  public JsonWriter value(@Nullable String value, int maxLength) {
    checkMaxLength(maxLength);
    if (value == null) {
      return nullValue();
    }
    beforeValue();
    writeString(value, maxLength);
    return this;
  }

  @Override
  public JsonWriter value(long value) {
    beforeValue();
    out.append(value);
    return this;
  }

  /** Writes a finite double with at most three decimals; NaN and infinities as {@code null}. */
  @Override
  public JsonWriter value(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return nullValue();
    }
    beforeValue();
    appendDecimal(out, value);
    return this;
  }

  public JsonWriter value(boolean value) {
    beforeValue();
    out.append(value);
    return this;
  }

  public JsonWriter nullValue() {
    beforeValue();
    out.append("null");
    return this;
  }

  /**
   * Starts a value whose text the caller appends to the returned builder itself; used for values
   * known to need no escaping (RecordJson's timestamp), so they need no intermediate String.
   */
  public StringBuilder rawValue() {
    beforeValue();
    return out;
  }

  @Override
  public JsonWriter rawValue(CharSequence json) {
    beforeValue();
    out.append(json);
    return this;
  }

  @Override
  public JsonWriter rawValue(byte[] ascii, int length) {
    beforeValue();
    for (int i = 0; i < length; i++) {
      out.append((char) ascii[i]);
    }
    return this;
  }

  private void beforeValue() {
    if (nesting.beforeValue()) {
      out.append(',');
    }
  }

  static void checkMaxLength(int maxLength) {
    if (maxLength < 1) {
      throw new IllegalArgumentException("maximum string length must be >= 1: " + maxLength);
    }
  }

  private void writeString(String s, int maxLength) {
    int end = s.length();
    boolean truncated = false;
    if (end > maxLength) {
      truncated = true;
      end = maxLength - 1;
      // Do not split a surrogate pair: drop its high half as well.
      if (end > 0 && Character.isHighSurrogate(s.charAt(end - 1)) && Character.isLowSurrogate(s.charAt(end))) {
        end--;
      }
    }
    out.append('"');
    int run = 0;
    for (int i = 0; i < end; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
        continue;
      }
      if (c >= 0xa0 && !needsEscape(c) && !Character.isSurrogate(c)) {
        continue;
      }
      out.append(s, run, i);
      run = i + 1;
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (Character.isHighSurrogate(c)) {
        if (i + 1 < end && Character.isLowSurrogate(s.charAt(i + 1))) {
          char low = s.charAt(i + 1);
          if (UnicodeChars.isEscaped(Character.toCodePoint(c, low))) {
            unicodeEscape(c);
            unicodeEscape(low);
          } else {
            out.append(c).append(low);
          }
          i++;
          run = i + 1;
        } else {
          out.append(REPLACEMENT_ESCAPE);
        }
      } else if (Character.isLowSurrogate(c)) {
        out.append(REPLACEMENT_ESCAPE);
      } else {
        unicodeEscape(c);
      }
    }
    out.append(s, run, end);
    if (truncated) {
      out.append(TRUNCATION_MARKER);
    }
    out.append('"');
  }

  /**
   * Bit {@code c} set for the chars at or above U+00A0 that are written escaped ({@link
   * UnicodeChars#isEscaped(int)} of the BMP, surrogates aside: they are handled in pairs). One table
   * lookup on the hot path.
   */
  private static final long[] ESCAPED = escapedChars();

  private static long[] escapedChars() {
    long[] bits = new long[1 << 10];
    for (int c = 0xa0; c <= 0xffff; c++) {
      if (!Character.isSurrogate((char) c) && UnicodeChars.isEscaped(c)) {
        bits[c >>> 6] |= 1L << c;
      }
    }
    return bits;
  }

  /** Non-ASCII chars at or above U+00A0 that are written escaped. */
  static boolean needsEscape(char c) {
    return (ESCAPED[c >>> 6] & (1L << c)) != 0;
  }

  private void unicodeEscape(char c) {
    out.append('\\')
        .append('u')
        .append(HEX[(c >> 12) & 0xf])
        .append(HEX[(c >> 8) & 0xf])
        .append(HEX[(c >> 4) & 0xf])
        .append(HEX[c & 0xf]);
  }

  /** Largest magnitude for which {@code value * 1000} is rounded exactly into a long. */
  static final double FAST_LIMIT = 1e15;

  /** A finite double of magnitude at least {@link #FAST_LIMIT}, as {@link #appendDecimal} writes it. */
  static String largeDecimal(double value) {
    BigDecimal d = new BigDecimal(value).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros();
    return d.scale() <= 0 ? d.setScale(1).toPlainString() : d.toPlainString();
  }

  /** Appends a finite double with at most three decimals and at least one. */
  static void appendDecimal(StringBuilder out, double value) {
    if (Math.abs(value) >= FAST_LIMIT) {
      out.append(largeDecimal(value));
      return;
    }
    long thousandths = Math.round(value * 1000.0);
    if (thousandths < 0) {
      out.append('-');
      thousandths = -thousandths;
    }
    out.append(thousandths / 1000).append('.');
    int frac = (int) (thousandths % 1000);
    if (frac == 0) {
      out.append('0');
    } else {
      out.append((char) ('0' + frac / 100));
      frac %= 100;
      if (frac != 0) {
        out.append((char) ('0' + frac / 10));
        frac %= 10;
        if (frac != 0) {
          out.append((char) ('0' + frac));
        }
      }
    }
  }
}
