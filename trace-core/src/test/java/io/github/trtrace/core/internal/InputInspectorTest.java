package io.github.trtrace.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.InputFlag;
import java.util.EnumSet;
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
    String all = "x".repeat(50) + "\u202E\u200B\u0001\uD800";
    assertThat(InputInspector.flags(all, 10)).isEqualTo(EnumSet.allOf(InputFlag.class));
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
        '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D', '\uDE00', 'a', ' ', '世');
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
    }
    return out;
  }
}
