package io.github.trtrace.core.internal.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.InputFlag;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class InputInspectorTest {
  private static Set<InputFlag> flags(String s) {
    return InputInspector.flags(s, InputInspector.DEFAULT_VERY_LONG);
  }

  @Test
  void rightToLeftOverrideIsABidiControl() {
    assertThat(flags("invoice_\u202Efdp.exe")).containsExactly(InputFlag.BIDI_CONTROL);
    assertThat(flags("\u2066isolate\u2069")).containsExactly(InputFlag.BIDI_CONTROL);
    assertThat(flags("mark\u200F")).containsExactly(InputFlag.BIDI_CONTROL);
    assertThat(flags("arabic letter mark \u061C")).containsExactly(InputFlag.BIDI_CONTROL);
  }

  @Test
  void zeroWidthSpaceAndByteOrderMarkAreZeroWidth() {
    assertThat(flags("pass\u200Bword")).containsExactly(InputFlag.ZERO_WIDTH);
    assertThat(flags("\uFEFFhello")).containsExactly(InputFlag.ZERO_WIDTH);
    assertThat(flags("word\u2060joiner")).containsExactly(InputFlag.ZERO_WIDTH);
  }

  @Test
  void nulDelAndC1AreControlCharsButTabAndNewlinesAreNot() {
    assertThat(flags("a\u0000b")).containsExactly(InputFlag.CONTROL_CHAR);
    assertThat(flags("a\u007Fb")).containsExactly(InputFlag.CONTROL_CHAR);
    assertThat(flags("a\u0085b")).containsExactly(InputFlag.CONTROL_CHAR);
    assertThat(flags("\u001B[31mred")).containsExactly(InputFlag.CONTROL_CHAR);
    assertThat(flags("col1\tcol2\r\nline2\n")).isEmpty();
  }

  @Test
  void unpairedSurrogatesAreInvalidUtf16() {
    assertThat(flags("lone \uD800 high")).containsExactly(InputFlag.INVALID_UTF16);
    assertThat(flags("lone low \uDC00")).containsExactly(InputFlag.INVALID_UTF16);
    assertThat(flags("ends with high \uD83D")).containsExactly(InputFlag.INVALID_UTF16);
    assertThat(flags("\uDE00\uD83D")).containsExactly(InputFlag.INVALID_UTF16); // reversed pair
  }

  @Test
  void inputLongerThanTheThresholdIsVeryLong() {
    assertThat(InputInspector.flags("a".repeat(100), 100)).isEmpty();
    assertThat(InputInspector.flags("a".repeat(101), 100)).containsExactly(InputFlag.VERY_LONG);
    assertThat(flags("x".repeat(InputInspector.DEFAULT_VERY_LONG + 1))).containsExactly(InputFlag.VERY_LONG);
  }

  @Test
  void cleanTextWithEmojiAndCjkHasNoFlagsAndAllocatesNoNewSet() {
    Set<InputFlag> clean = flags("Hello, 世界! 😀👍🏽 café — naïve résumé 日本語のテキスト");
    assertThat(clean).isEmpty();
    assertThat(clean).isSameAs(flags("")).isSameAs(InputInspector.flags(null, 10));
  }

  @Test
  void everyFlagIsFoundInOneInput() {
    String all = "x".repeat(50) + "\u202E\u200B\u0001\uD800\u00AD\uDB40\uDC41";
    assertThat(InputInspector.flags(all, 10)).isEqualTo(EnumSet.allOf(InputFlag.class));
  }

  @Test
  void invisibleFormatAndTagCharactersRaiseTheirOwnFlags() {
    for (String c : List.of("\u00AD", "\u034F", "\uFE0F", "\u3164", "\u2061", "\u2062", "\u2063", "\u2064",
        "\u180E", "\uFFF9", "\uFFFA", "\uFFFB", "\u2028", "\u2029")) {
      assertThat(flags("a" + c + "b")).as("U+%04X", (int) c.charAt(0)).containsExactly(InputFlag.INVISIBLE_FORMAT);
    }
    // "ignore previous" spelled in tag characters (U+E0000 + ASCII), invisible in most renderers
    StringBuilder hidden = new StringBuilder("Summarise this page.");
    "ignore previous".chars().forEach(ch -> hidden.appendCodePoint(0xE0000 + ch));
    assertThat(flags(hidden.toString())).containsExactly(InputFlag.TAG_CHARS);
    assertThat(flags(new StringBuilder().appendCodePoint(0xE0001).appendCodePoint(0xE007F).toString()))
        .containsExactly(InputFlag.TAG_CHARS);
    assertThat(flags(new StringBuilder().appendCodePoint(0xE0080).toString())).isEmpty();
  }

  @Test
  void resultIsUnmodifiableAndShared() {
    Set<InputFlag> a = flags("\u202E");
    assertThat(a).isSameAs(flags("other \u202D"));
    assertThatThrownBy(() -> a.add(InputFlag.ZERO_WIDTH)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void negativeThresholdFallsBackToTheDefault() {
    assertThat(InputInspector.flags("short", -1)).isEmpty();
    assertThat(InputInspector.flags("y".repeat(InputInspector.DEFAULT_VERY_LONG + 1), -1))
        .containsExactly(InputFlag.VERY_LONG);
  }

  @Provide
  Arbitrary<String> trickyStrings() {
    Arbitrary<Character> interesting = Arbitraries.of(
        '\u0000', '\u0009', '\n', '\r', '\u001F', '\u007F', '\u0085', '\u009F', '\u00A0', '\u061C', '\u200B',
        '\u200D', '\u200E', '\u200F', '\u2028', '\u202A', '\u202E', '\u2060', '\u2066', '\u2069', '\uFEFF',
        '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D', '\uDE00', 'a', ' ', '世',
        '\u00AD', '\u034F', '\u180E', '\u2029', '\u2061', '\u2064', '\u3164', '\uFE0F', '\uFFF9', '\uFFFB',
        '\uDB40', '\uDC00', '\uDC7F', '\uDC80', '\uDD00', '\uDDEF', '\uD834', '\uDD73');
    Arbitrary<Character> any = Arbitraries.chars().all();
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(3, interesting), net.jqwik.api.Tuple.of(1, any))
        .list().ofMaxSize(60)
        .map(cs -> {
          StringBuilder b = new StringBuilder();
          cs.forEach(b::append);
          return b.toString();
        });
  }

  @Property(tries = 3000)
  void flagsAreExactlyThoseOfANaiveReference(
      @ForAll("trickyStrings") String s, @ForAll("thresholds") int threshold) {
    assertThat(InputInspector.flags(s, threshold)).isEqualTo(reference(s, threshold));
  }

  @Provide
  Arbitrary<Integer> thresholds() {
    return Arbitraries.integers().between(0, 70);
  }

  /** Straight from the definitions, by code point. */
  private static Set<InputFlag> reference(String s, int threshold) {
    Set<InputFlag> out = EnumSet.noneOf(InputFlag.class);
    if (s.length() > threshold) {
      out.add(InputFlag.VERY_LONG);
    }
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i); // a lone surrogate as itself
      i += Character.charCount(cp);
      out.addAll(rule(cp));
    }
    return out;
  }

  /** Issue 19 item 4: invisible characters the flags missed, each flagged and shown as a marker in a digest. */
  @Test
  void theInvisibleCharactersOnceMissedAreFlaggedAndMarkedInTheDigest() {
    int[] missed = {
      0x206A, 0x206B, 0x206C, 0x206D, 0x206E, 0x206F, // deprecated format controls
      0x1BCA0, 0x1BCA1, 0x1BCA2, 0x1BCA3, // shorthand format controls
      0x13430, 0x13431, 0x13438, 0x13439, 0x1343F, // Egyptian hieroglyph format controls
      0x070F, // Syriac abbreviation mark
      0x180B, 0x180C, 0x180D, 0x180F, // Mongolian free variation selectors
      0x2800 // braille blank
    };
    for (int cp : missed) {
      String text = "ok" + new String(Character.toChars(cp)) + "ok";
      assertThat(flags(text)).as("U+%04X", cp).containsExactly(InputFlag.INVISIBLE_FORMAT);
      String digest = io.github.trtrace.core.redact.Redactor.defaults().digest(text);
      assertThat(digest).as("digest of U+%04X", cp)
          .isEqualTo("ok\u27e6U+" + String.format("%04X", cp) + "\u27e7ok");
    }
  }

  /**
   * Every code point of every plane, alone, against the flag rule written out from {@link
   * Character#getType(int)}: the inspector's table and branches hold no hole and no extra.
   */
  @Test
  void everyCodePointOfThePlanesIsFlaggedByTheRule() {
    int checked = 0;
    for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
      String s = cp >= 0xD800 && cp <= 0xDFFF ? String.valueOf((char) cp) : new String(Character.toChars(cp));
      Set<InputFlag> expected = rule(cp);
      Set<InputFlag> actual = flags(s);
      if (!actual.equals(expected)) {
        assertThat(actual).as("U+%04X (type %d)", cp, Character.getType(cp)).isEqualTo(expected);
      }
      checked++;
    }
    assertThat(checked).isEqualTo(0x110000);
  }

  private static Set<InputFlag> rule(int cp) {
    int type = Character.getType(cp);
    if (type == Character.SURROGATE) {
      return EnumSet.of(InputFlag.INVALID_UTF16);
    }
    if (type == Character.CONTROL) {
      return cp == '\t' || cp == '\n' || cp == '\r' ? EnumSet.noneOf(InputFlag.class) : EnumSet.of(InputFlag.CONTROL_CHAR);
    }
    if (cp >= 0xE0000 && cp <= 0xE007F) {
      return EnumSet.of(InputFlag.TAG_CHARS);
    }
    if (cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) {
      return EnumSet.of(InputFlag.BIDI_CONTROL);
    }
    if ((cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 || cp == 0xFEFF) {
      return EnumSet.of(InputFlag.ZERO_WIDTH);
    }
    boolean invisibleOther = cp == 0x034F || cp == 0x115F || cp == 0x1160 || cp == 0x17B4 || cp == 0x17B5
        || (cp >= 0x180B && cp <= 0x180D) || cp == 0x180F || cp == 0x2065 || cp == 0x2800 || cp == 0x3164
        || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFFA0 || (cp >= 0x13430 && cp <= 0x1343F)
        || (cp >= 0xE0100 && cp <= 0xE01EF);
    if (type == Character.FORMAT || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
        || invisibleOther) {
      return EnumSet.of(InputFlag.INVISIBLE_FORMAT);
    }
    return EnumSet.noneOf(InputFlag.class);
  }
}
