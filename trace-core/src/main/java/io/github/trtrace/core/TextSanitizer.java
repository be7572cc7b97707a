package io.github.trtrace.core;

import io.github.trtrace.core.internal.trace.TracerFactory;

/**
 * The record convention's rule for one text value: unpaired surrogates become U+FFFD, escaped code points
 * (when asked) <code>&#92;uHHHH</code> text, and the result is cut at a code-point and escape boundary with the
 * truncation marker ({@link RecordConvention#text(String)}, {@link RecordConvention#visit}).
 */
final class TextSanitizer {
  private TextSanitizer() {}

  /**
   * {@code value} with unpaired surrogates replaced by U+FFFD and, when {@code escape}, every {@link
   * TracerFactory#isEscaped escaped} code point written as <code>&#92;uHHHH</code> text (a supplementary one as
   * two such escapes); then cut, at a code-point and escape boundary, to at most {@code maxLength}
   * chars, the marker included. The same instance when nothing changes.
   */
  static String sanitize(String value, int maxLength, boolean escape) {
    int n = value.length();
    if (n <= maxLength && isPrintableAscii(value, n)) {
      return value; // the common case, without the per-char widths below (each such char is 1 wide, unchanged)
    }
    int total = 0; // the sanitised length before any cut
    boolean changed = false;
    for (int i = 0; i < n; i++) {
      int width = width(value, i, escape);
      int units = units(value, i);
      changed |= width != units || (units == 1 && Character.isSurrogate(value.charAt(i)));
      total += width;
      i += units - 1;
    }
    if (!changed && total <= maxLength) {
      return value;
    }
    boolean cut = total > maxLength;
    int room = cut ? maxLength - 1 : total;
    StringBuilder sb = new StringBuilder(room + 1);
    for (int i = 0; i < n; i++) {
      int units = units(value, i);
      if (sb.length() + width(value, i, escape) > room) {
        break;
      }
      char c = value.charAt(i);
      if (units == 2) {
        char low = value.charAt(i + 1);
        if (escape && TracerFactory.isEscaped(Character.toCodePoint(c, low))) {
          escape(sb, c);
          escape(sb, low);
        } else {
          sb.append(c).append(low);
        }
      } else if (Character.isSurrogate(c)) {
        sb.append('\uFFFD');
      } else if (escape && TracerFactory.isEscaped(c)) {
        escape(sb, c);
      } else {
        sb.append(c);
      }
      i += units - 1;
    }
    if (cut) {
      sb.append(RecordConvention.TRUNCATION_MARKER);
    }
    return sb.toString();
  }

  /** Whether the first {@code n} chars of {@code s} are all U+0020..U+007E. */
  private static boolean isPrintableAscii(String s, int n) {
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c >= 0x7F) {
        return false;
      }
    }
    return true;
  }

  /** 2 for a valid surrogate pair at {@code i}, else 1. */
  private static int units(String s, int i) {
    return Character.isHighSurrogate(s.charAt(i)) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
        ? 2
        : 1;
  }

  /** How many chars the code point (or lone surrogate) at {@code i} takes once sanitised. */
  private static int width(String s, int i, boolean escape) {
    char c = s.charAt(i);
    if (c >= 0x20 && c < 0x7F) {
      return 1;
    }
    if (units(s, i) == 2) {
      return escape && TracerFactory.isEscaped(Character.toCodePoint(c, s.charAt(i + 1))) ? 12 : 2;
    }
    if (Character.isSurrogate(c)) {
      return 1; // U+FFFD
    }
    return escape && TracerFactory.isEscaped(c) ? 6 : 1;
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private static void escape(StringBuilder sb, char c) {
    sb.append('\\').append('u').append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF]).append(HEX[(c >> 4) & 0xF])
        .append(HEX[c & 0xF]);
  }
}
