package io.github.trtrace.core;

/**
 * Properties of a response's text that mark it as likely garbled, computed from the output given to
 * {@link InferenceTrace#output(CharSequence)}; the text itself is never recorded.
 *
 * <pre>{@code
 * // every answer that degenerated into a loop:
 * // jq 'select(.output_flags | index("repetition"))' logs/inference.log
 * }</pre>
 */
public enum OutputFlag {
  /** U+FFFD REPLACEMENT CHARACTER: bytes that did not decode (e.g. a token split inside a UTF-8 sequence). */
  REPLACEMENT_CHAR("replacement_char"),
  /**
   * A short unit (1 to 32 characters, at least one letter or digit) repeated many times in a row: at
   * least 8 times and over at least 32 characters, e.g. {@code "the the the ..."}.
   */
  REPETITION("repetition"),
  /** Bidirectional formatting controls (U+202A..U+202E, U+2066..U+2069, U+200E/F, U+061C). */
  BIDI_CONTROL("bidi_control"),
  /** Unpaired UTF-16 surrogates: the output is not valid Unicode. */
  INVALID_UTF16("invalid_utf16"),
  /**
   * Nothing visible: no characters, or only whitespace, Unicode spaces (no-break spaces included), control and
   * format characters (zero-width space and joiners, byte-order mark, bidi controls).
   */
  EMPTY("empty");

  private final String wireName;

  OutputFlag(String wireName) {
    this.wireName = wireName;
  }

  /** The value written to the record's {@code output_flags} array. */
  public String wireName() {
    return wireName;
  }
}
