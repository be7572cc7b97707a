package io.github.trtrace.core.internal.inspect;

import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.OutputFlag;
import java.util.Set;

/**
 * Computes {@link OutputFlag}s from a response's text in one pass per check, without keeping the
 * text. Not public API.
 */
public final class OutputInspector {
  /** Longest repeated unit looked for, in chars. */
  static final int MAX_UNIT = 32;
  /** A unit must repeat at least this many times in a row... */
  static final int MIN_REPEATS = 8;
  /** ...and the run must cover at least this many chars (so "aaaaaaaa" alone is not a loop). */
  static final int MIN_RUN_CHARS = 32;

  private OutputInspector() {}

  /** Result sets by bit mask of flag ordinals; unmodifiable, shared (computing flags allocates nothing). */
  private static final Set<OutputFlag>[] BY_MASK = FlagSets.allCombinations(OutputFlag.class);

  /** The flags of {@code output}; an unmodifiable set, empty when nothing stands out, shared per combination. */
  public static Set<OutputFlag> flags(CharSequence output) {
    int n = output.length();
    int flags = 0;
    boolean blank = true;
    for (int i = 0; i < n; i++) {
      char c = output.charAt(i);
      if (blank && !isInvisible(c)) {
        blank = false;
      }
      if (c == '\uFFFD') {
        flags |= bit(OutputFlag.REPLACEMENT_CHAR);
      } else if (isBidiControl(c)) {
        flags |= bit(OutputFlag.BIDI_CONTROL);
      } else if (Character.isHighSurrogate(c)) {
        if (i + 1 < n && Character.isLowSurrogate(output.charAt(i + 1))) {
          i++;
        } else {
          flags |= bit(OutputFlag.INVALID_UTF16);
        }
      } else if (Character.isLowSurrogate(c)) {
        flags |= bit(OutputFlag.INVALID_UTF16);
      }
    }
    if (blank) {
      flags |= bit(OutputFlag.EMPTY);
    } else if (hasRepetition(output)) {
      flags |= bit(OutputFlag.REPETITION);
    }
    return BY_MASK[flags];
  }

  /**
   * Whether {@code c} shows nothing by itself: whitespace, any Unicode space (no-break spaces included), a
   * control char, or a format char (zero-width space and joiners, byte-order mark, bidi controls). A soft hyphen
   * is a format char too, but never alone in a word: an output of only such chars reads as empty.
   */
  private static boolean isInvisible(char c) {
    if (c <= ' ') {
      return true; // the ASCII controls and the space: the common case first
    }
    if (c < 0x7f) {
      return false;
    }
    int type = Character.getType(c);
    return Character.isWhitespace(c) || Character.isSpaceChar(c) || type == Character.FORMAT
        || type == Character.CONTROL;
  }

  private static int bit(OutputFlag f) {
    return 1 << f.ordinal();
  }

  /**
   * Whether some unit of 1..{@value #MAX_UNIT} chars containing a letter or digit repeats at least
   * {@value #MIN_REPEATS} times in a row over at least {@value #MIN_RUN_CHARS} chars. For each period
   * {@code p}, {@code run} counts consecutive positions where {@code s[i] == s[i - p]}; a periodic
   * stretch of {@code k} units has {@code (k - 1) * p} such positions.
   */
  static boolean hasRepetition(CharSequence s) {
    int n = s.length();
    for (int p = 1; p <= MAX_UNIT && p * MIN_REPEATS <= n; p++) {
      int needed = Math.max(p * (MIN_REPEATS - 1), MIN_RUN_CHARS - p);
      int run = 0;
      for (int i = p; i < n; i++) {
        if (s.charAt(i) == s.charAt(i - p)) {
          if (++run == needed && unitHasLetterOrDigit(s, i - p + 1, i + 1)) {
            return true;
          }
        } else {
          run = 0;
        }
      }
    }
    return false;
  }

  private static boolean unitHasLetterOrDigit(CharSequence s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (Character.isLetterOrDigit(s.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  /** U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C (the set {@code InputFlag} uses). */
  private static boolean isBidiControl(char c) {
    return (c >= '\u202A' && c <= '\u202E')
        || (c >= '\u2066' && c <= '\u2069')
        || c == '\u200E'
        || c == '\u200F'
        || c == '\u061C';
  }
}
