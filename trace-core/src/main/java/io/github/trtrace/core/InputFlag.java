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
