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

  /**
   * See {@link io.github.trtrace.core.InputFlag#INVISIBLE_FORMAT}: every format character (Cf), line and
   * paragraph separator (Zl, Zp) of the JDK's Unicode database that is not a bidi control, a zero-width
   * character or a tag character (they have flags of their own), and the invisible characters of other
   * categories that are used the same way, listed in {@link #isInvisibleOther(int)}.
   */
  public static boolean isInvisibleFormat(int cp) {
    switch (Character.getType(cp)) {
      case Character.FORMAT:
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
        return cp > 0xFFFF ? !isTag(cp) : !isBidiControl((char) cp) && !isZeroWidth((char) cp);
      default:
        return isInvisibleOther(cp);
    }
  }

  /**
   * Invisible characters outside the format category: the combining grapheme joiner U+034F, the Hangul
   * fillers U+115F, U+1160, U+3164, U+FFA0, the Khmer inherent vowels U+17B4, U+17B5, the Mongolian free
   * variation selectors U+180B..U+180D, U+180F, the variation selectors U+FE00..U+FE0F and
   * U+E0100..U+E01EF, the braille blank U+2800 (an invisible filler), and U+2065, the one unassigned code
   * point of the U+2060..U+206F block of invisible controls. A list by necessity (their categories, Mn, Lo
   * and So, hold visible characters too), and so named here code point by code point. Also the format
   * controls newer than the oldest supported JDK's Unicode (JDK 17: Unicode 13), so that the flag does not
   * depend on the JDK: U+180F and U+13439..U+1343F (Unicode 14 and 15).
   */
  static boolean isInvisibleOther(int cp) {
    return cp == 0x034F
        || cp == 0x115F
        || cp == 0x1160
        || cp == 0x17B4
        || cp == 0x17B5
        || (cp >= 0x180B && cp <= 0x180D)
        || cp == 0x180F
        || cp == 0x2065
        || cp == 0x2800
        || cp == 0x3164
        || (cp >= 0xFE00 && cp <= 0xFE0F)
        || cp == 0xFFA0
        || (cp >= 0x13439 && cp <= 0x1343F)
        || (cp >= 0xE0100 && cp <= 0xE01EF);
  }

  /**
   * Whether every output writes {@code cp} escaped rather than raw (JSON: a backslash-u escape; other
   * outputs: the same six characters as text): controls (Cc), format characters (Cf, in every plane:
   * U+E0001 and the tag characters, U+1D173..U+1D17A, U+1BCA0..U+1BCA3, U+13430..U+1343F, ...), line
   * and paragraph separators (Zl, Zp), the whole U+2060..U+206F block and the whole tag block
   * U+E0000..U+E007F (their unassigned code points are reserved for invisible controls), the whole
   * block of Egyptian hieroglyph format controls U+13430..U+1343F (U+13439..U+1343F are unassigned in JDK
   * 17's Unicode 13), and surrogates. From the JDK's Unicode database ({@link Character#getType(int)}),
   * not hand-written ranges, but for those three blocks.
   */
  public static boolean isEscaped(int cp) {
    if (cp >= 0x20 && cp < 0x7F) {
      return false;
    }
    switch (Character.getType(cp)) {
      case Character.CONTROL:
      case Character.FORMAT:
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
      case Character.SURROGATE:
        return true;
      default:
        return (cp >= 0x2060 && cp <= 0x206F) || isTag(cp) || (cp >= 0x13430 && cp <= 0x1343F);
    }
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
