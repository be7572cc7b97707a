package io.github.trtrace.core.internal;

/**
 * The character classes behind {@link io.github.trtrace.core.InputFlag}, shared by the inspector
 * (which flags them) and the digest (which makes them visible).
 */
public final class UnicodeChars {
  private UnicodeChars() {}

  /** C0 (except tab, LF, CR), DEL and C1. */
  public static boolean isControl(char c) {
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || (c >= 0x7F && c <= 0x9F);
  }

  /** U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C. */
  public static boolean isBidiControl(char c) {
    return (c >= '\u202A' && c <= '\u202E')
        || (c >= '\u2066' && c <= '\u2069')
        || c == '\u200E'
        || c == '\u200F'
        || c == '\u061C';
  }

  /** U+200B..U+200D, U+2060, U+FEFF. */
  public static boolean isZeroWidth(char c) {
    return (c >= '\u200B' && c <= '\u200D') || c == '\u2060' || c == '\uFEFF';
  }
}
