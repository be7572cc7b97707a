package io.github.trtrace.core.internal.json;

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

  /** See {@link io.github.trtrace.core.InputFlag#INVISIBLE_FORMAT} for the list. */
  public static boolean isInvisibleFormat(int cp) {
    if (cp < 0x2028) {
      return cp == 0x00AD || cp == 0x034F || cp == 0x115F || cp == 0x1160 || cp == 0x17B4 || cp == 0x17B5
          || cp == 0x180E;
    }
    return cp == 0x2028
        || cp == 0x2029
        || (cp >= 0x2061 && cp <= 0x2064)
        || cp == 0x3164
        || (cp >= 0xFE00 && cp <= 0xFE0F)
        || cp == 0xFFA0
        || (cp >= 0xFFF9 && cp <= 0xFFFB)
        || (cp >= 0x1D173 && cp <= 0x1D17A)
        || (cp >= 0xE0100 && cp <= 0xE01EF);
  }

  /** U+E0000..U+E007F. */
  public static boolean isTag(int cp) {
    return cp >= 0xE0000 && cp <= 0xE007F;
  }

  /**
   * Whether a code point shows nothing (or nothing reliable) when printed, so that a digest writes it
   * as a {@code ⟦U+hhhh⟧} marker (hexadecimal code point): controls, every format character (Cf), line and paragraph
   * separators, surrogates, private-use and unassigned code points, and the invisible characters
   * flagged above. Tab, line feed and carriage return are not included: the digest turns them into
   * spaces.
   */
  public static boolean isNonPrinting(int cp) {
    if (cp >= 0x20 && cp < 0x7F) {
      return false;
    }
    if (cp == '\t' || cp == '\n' || cp == '\r') {
      return false;
    }
    if (cp < 0xA0) {
      return true;
    }
    if (isInvisibleFormat(cp) || isTag(cp)) {
      return true;
    }
    switch (Character.getType(cp)) {
      case Character.CONTROL:
      case Character.FORMAT:
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
      case Character.SURROGATE:
      case Character.PRIVATE_USE:
      case Character.UNASSIGNED:
        return true;
      default:
        return false;
    }
  }
}
