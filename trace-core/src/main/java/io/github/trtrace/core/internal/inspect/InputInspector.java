package io.github.trtrace.core.internal.inspect;

import io.github.trtrace.core.internal.json.UnicodeChars;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.InputFlag;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * Flags properties of a request's raw input that often explain garbled output: bidirectional
 * controls, zero-width characters, other invisible format characters, tag characters, control
 * characters, unpaired surrogates, extreme length.
 * Runs for every record, so it is one pass over the characters with no regular expression, and it
 * allocates nothing: every possible result is a shared, unmodifiable set.
 *
 * <pre>{@code
 * Set<InputFlag> flags = InputInspector.flags(prompt, InputInspector.DEFAULT_VERY_LONG);
 * // [BIDI_CONTROL] for a prompt carrying U+202E (right-to-left override), [] for clean text
 * }</pre>
 */
public final class InputInspector {
  /** The default "very long" threshold, in UTF-16 chars. */
  public static final int DEFAULT_VERY_LONG = 32_768;

  private static final RateLimitedLogger LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger(InputInspector.class), 60_000);
  private static final InputFlag[] FLAGS = InputFlag.values();
  private static final int CHAR_FLAGS =
      bit(InputFlag.BIDI_CONTROL) | bit(InputFlag.ZERO_WIDTH) | bit(InputFlag.CONTROL_CHAR)
          | bit(InputFlag.INVALID_UTF16) | bit(InputFlag.INVISIBLE_FORMAT) | bit(InputFlag.TAG_CHARS);

  /** Result sets by bit mask of flag ordinals; unmodifiable, EnumSet-backed, shared. */
  private static final Set<InputFlag>[] BY_MASK = FlagSets.allCombinations(InputFlag.class);

  private InputInspector() {}

  /**
   * The flags of {@code raw}. The result is unmodifiable; the same instance is returned for the
   * same flags (the empty set when the input is clean).
   *
   * @param raw the raw input; {@code null} is treated as empty
   * @param veryLongThreshold {@link InputFlag#VERY_LONG} is set when {@code raw.length()} exceeds it;
   *     a negative value is logged and replaced by {@link #DEFAULT_VERY_LONG}
   */
  public static Set<InputFlag> flags(@Nullable CharSequence raw, int veryLongThreshold) {
    if (raw == null) {
      return BY_MASK[0];
    }
    if (veryLongThreshold < 0) {
      LOG.warn("negative very-long threshold {}; using {}", veryLongThreshold, DEFAULT_VERY_LONG);
      veryLongThreshold = DEFAULT_VERY_LONG;
    }
    int n = raw.length();
    int mask = n > veryLongThreshold ? bit(InputFlag.VERY_LONG) : 0;
    for (int i = 0; i < n; i++) {
      char c = raw.charAt(i);
      if (c >= 0x20 && c < 0x7F) {
        continue; // printable ASCII: the common case
      }
      if (UnicodeChars.isControl(c)) {
        mask |= bit(InputFlag.CONTROL_CHAR);
      } else if (!Character.isSurrogate(c) && !flagged(c)) {
        continue; // one table lookup for every other char of the BMP
      } else if (Character.isHighSurrogate(c)) {
        if (i + 1 < n && Character.isLowSurrogate(raw.charAt(i + 1))) {
          int cp = Character.toCodePoint(c, raw.charAt(++i)); // a valid pair
          if (UnicodeChars.isTag(cp)) {
            mask |= bit(InputFlag.TAG_CHARS);
          } else if (UnicodeChars.isInvisibleFormat(cp)) {
            mask |= bit(InputFlag.INVISIBLE_FORMAT);
          } else {
            continue;
          }
        } else {
          mask |= bit(InputFlag.INVALID_UTF16);
        }
      } else if (Character.isLowSurrogate(c)) {
        mask |= bit(InputFlag.INVALID_UTF16);
      } else if (UnicodeChars.isBidiControl(c)) {
        mask |= bit(InputFlag.BIDI_CONTROL);
      } else if (UnicodeChars.isZeroWidth(c)) {
        mask |= bit(InputFlag.ZERO_WIDTH);
      } else if (UnicodeChars.isInvisibleFormat(c)) {
        mask |= bit(InputFlag.INVISIBLE_FORMAT);
      } else {
        continue;
      }
      if ((mask & CHAR_FLAGS) == CHAR_FLAGS) {
        break; // nothing more to find
      }
    }
    return BY_MASK[mask];
  }

  /**
   * Bit {@code c} set for the BMP chars that raise a flag of their own (bidi, zero-width, invisible
   * format; controls and surrogates are tested before): the rule of {@link UnicodeChars}, made once from
   * the JDK's Unicode database.
   */
  private static final long[] FLAGGED = flaggedChars();

  private static long[] flaggedChars() {
    long[] bits = new long[1 << 10];
    for (int c = 0; c <= 0xFFFF; c++) {
      char ch = (char) c;
      if (UnicodeChars.isBidiControl(ch) || UnicodeChars.isZeroWidth(ch) || UnicodeChars.isInvisibleFormat(c)) {
        bits[c >>> 6] |= 1L << c;
      }
    }
    return bits;
  }

  private static boolean flagged(char c) {
    return (FLAGGED[c >>> 6] & (1L << c)) != 0;
  }

  private static int bit(InputFlag f) {
    return 1 << f.ordinal();
  }
}
