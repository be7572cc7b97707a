package io.github.trtrace.core;

/**
 * Properties of a request's raw input that often explain garbled output. Computed from the raw
 * input for every record, whether or not any input text is recorded.
 *
 * <pre>{@code
 * // every garbled answer whose prompt carried U+202E:
 * // jq 'select(.input_flags | index("bidi_control"))' logs/inference.log
 * }</pre>
 */
public enum InputFlag {
  /** Bidirectional formatting controls (U+202A..U+202E, U+2066..U+2069, U+200E/F, U+061C). */
  BIDI_CONTROL("bidi_control"),
  /** Zero-width characters (U+200B..U+200D, U+2060, U+FEFF). */
  ZERO_WIDTH("zero_width"),
  /** C0/C1 control characters other than tab, line feed and carriage return. */
  CONTROL_CHAR("control_char"),
  /**
   * Invisible format and filler characters that are neither bidirectional controls nor zero-width
   * spaces nor tag characters: every other format character (Unicode category Cf, in every plane: soft
   * hyphen U+00AD, U+070F, Mongolian vowel separator U+180E, invisible math operators U+2061..U+2064,
   * deprecated format controls U+206A..U+206F, interlinear annotation controls U+FFF9..U+FFFB, Egyptian
   * hieroglyph format controls U+13430..U+1343F, shorthand format controls U+1BCA0..U+1BCA3, musical
   * symbol format controls U+1D173..U+1D17A, ...) and line and paragraph separators U+2028/U+2029, taken
   * from the JDK's Unicode database; and invisible characters of other categories: combining grapheme
   * joiner U+034F, Hangul fillers U+115F, U+1160, U+3164, U+FFA0, Khmer inherent vowels U+17B4/U+17B5,
   * Mongolian free variation selectors U+180B..U+180D, U+180F, variation selectors U+FE00..U+FE0F and
   * U+E0100..U+E01EF, braille blank U+2800, and the unassigned U+2065. Text can hide behind them; a
   * tokenizer still sees them.
   */
  INVISIBLE_FORMAT("invisible_format"),
  /**
   * Unicode tag characters U+E0000..U+E007F: an invisible copy of ASCII, used to hide instructions
   * in prompts (a separate flag because it is almost never innocent outside emoji flag sequences).
   */
  TAG_CHARS("tag_chars"),
  /** Unpaired UTF-16 surrogates: the input is not valid Unicode. */
  INVALID_UTF16("invalid_utf16"),
  /** Longer than the configured "very long" threshold (characters). */
  VERY_LONG("very_long");

  private final String wireName;

  InputFlag(String wireName) {
    this.wireName = wireName;
  }

  /** The value written to the record's {@code input_flags} array. */
  public String wireName() {
    return wireName;
  }
}
