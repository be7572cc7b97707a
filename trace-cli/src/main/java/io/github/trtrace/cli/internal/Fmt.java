package io.github.trtrace.cli.internal;

import java.util.Locale;

/** Number formatting shared by the renderers. */
final class Fmt {
  private Fmt() {}

  /** {@code 812 ms}, {@code 2.41 s}, {@code 0.35 ms}; {@code -} for NaN. */
  static String ms(double ms) {
    if (Double.isNaN(ms)) {
      return "-";
    }
    if (ms >= 10_000) {
      return String.format(Locale.ROOT, "%.1f s", ms / 1000);
    }
    if (ms >= 1000) {
      return String.format(Locale.ROOT, "%.2f s", ms / 1000);
    }
    if (ms >= 10) {
      return String.format(Locale.ROOT, "%.0f ms", ms);
    }
    return String.format(Locale.ROOT, "%.2f ms", ms);
  }

  /** Milliseconds as a plain number for tables: {@code 812.3}. */
  static String num(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    return String.format(Locale.ROOT, v >= 100 ? "%,.0f" : "%,.1f", v);
  }

  static String pct(double frac) {
    if (Double.isNaN(frac)) {
      return "-";
    }
    return String.format(Locale.ROOT, frac >= 0.1 || frac == 0 ? "%.0f %%" : "%.1f %%", frac * 100);
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /**
   * {@code s} safe to print on a terminal: control, format (bidi overrides, zero-width) and
   * separator characters written as a backslash-u escape with four hex digits, so they neither reorder nor hide text.
   */
  static String visible(String s) {
    StringBuilder sb = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      int type = Character.getType(c);
      boolean escape = type == Character.CONTROL || type == Character.FORMAT || type == Character.LINE_SEPARATOR
          || type == Character.PARAGRAPH_SEPARATOR || type == Character.SURROGATE && !validSurrogate(s, i);
      if (escape) {
        if (sb == null) {
          sb = new StringBuilder(s.length() + 16).append(s, 0, i);
        }
        sb.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
      } else if (sb != null) {
        sb.append(c);
      }
    }
    return sb == null ? s : sb.toString();
  }

  private static boolean validSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    }
    return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }
}
