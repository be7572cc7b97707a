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
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      if (cp >= 0xD800 && cp <= 0xDFFF) {
        out.add(InputFlag.INVALID_UTF16); // codePointAt returns a lone surrogate as itself
      }
      if ((cp <= 0x1F && cp != 0x09 && cp != 0x0A && cp != 0x0D) || (cp >= 0x7F && cp <= 0x9F)) {
        out.add(InputFlag.CONTROL_CHAR);
      }
      if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C) {
        out.add(InputFlag.BIDI_CONTROL);
      }
      if ((cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 || cp == 0xFEFF) {
        out.add(InputFlag.ZERO_WIDTH);
      }
      if (cp == 0x00AD || cp == 0x034F || cp == 0x115F || cp == 0x1160 || cp == 0x17B4 || cp == 0x17B5
          || cp == 0x180E || cp == 0x2028 || cp == 0x2029 || (cp >= 0x2061 && cp <= 0x2064) || cp == 0x3164
          || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFFA0 || (cp >= 0xFFF9 && cp <= 0xFFFB)
          || (cp >= 0x1D173 && cp <= 0x1D17A) || (cp >= 0xE0100 && cp <= 0xE01EF)) {
        out.add(InputFlag.INVISIBLE_FORMAT);
      }
      if (cp >= 0xE0000 && cp <= 0xE007F) {
        out.add(InputFlag.TAG_CHARS);
      }
    }
    return out;
  }
}
