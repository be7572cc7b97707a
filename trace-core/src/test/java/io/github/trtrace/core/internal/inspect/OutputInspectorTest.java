package io.github.trtrace.core.internal.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.OutputFlag;
import org.junit.jupiter.api.Test;

class OutputInspectorTest {

  @Test
  void ordinaryTextHasNoFlags() {
    assertThat(OutputInspector.flags("The capital of France is Paris. It has 2.1 million inhabitants.")).isEmpty();
    assertThat(OutputInspector.flags("Emoji are fine: \uD83D\uDE00, and so are accents: déjà vu.")).isEmpty();
  }

  @Test
  void emptyAndBlankOutputIsFlagged() {
    assertThat(OutputInspector.flags("")).containsExactly(OutputFlag.EMPTY);
    assertThat(OutputInspector.flags(" \n\t ")).containsExactly(OutputFlag.EMPTY);
  }

  @Test
  void replacementCharactersBidiControlsAndBrokenSurrogatesAreFlagged() {
    assertThat(OutputInspector.flags("caf\uFFFD")).containsExactly(OutputFlag.REPLACEMENT_CHAR);
    assertThat(OutputInspector.flags("abc\u202Edef")).containsExactly(OutputFlag.BIDI_CONTROL);
    assertThat(OutputInspector.flags("x\uD83D")).containsExactly(OutputFlag.INVALID_UTF16);
    assertThat(OutputInspector.flags("\uDE00x")).containsExactly(OutputFlag.INVALID_UTF16);
  }

  @Test
  void aShortUnitRepeatedManyTimesInARowIsFlagged() {
    assertThat(OutputInspector.flags("Answer: " + "the ".repeat(12) + "end")).contains(OutputFlag.REPETITION);
    assertThat(OutputInspector.flags("a".repeat(40))).contains(OutputFlag.REPETITION);
    assertThat(OutputInspector.flags("I am sorry. ".repeat(8))).contains(OutputFlag.REPETITION);
  }

  @Test
  void shortRunsPunctuationRulesAndIndentationAreNotRepetition() {
    assertThat(OutputInspector.flags("the ".repeat(5))).doesNotContain(OutputFlag.REPETITION);
    assertThat(OutputInspector.flags("aaaaaaaaaa")).doesNotContain(OutputFlag.REPETITION);
    assertThat(OutputInspector.flags("Title\n" + "-".repeat(80) + "\n" + " ".repeat(64) + "code"))
        .doesNotContain(OutputFlag.REPETITION);
    assertThat(OutputInspector.flags("x".repeat(31))).as("under 32 chars").doesNotContain(OutputFlag.REPETITION);
  }

  @Test
  void anOutputWithNothingVisibleIsEmpty() {
    // what a user sees as an empty answer: no-break spaces, zero-width spaces and joiners, a byte-order mark
    assertThat(OutputInspector.flags("\u00a0\u00a0")).containsExactly(OutputFlag.EMPTY);
    assertThat(OutputInspector.flags("\u200b")).containsExactly(OutputFlag.EMPTY);
    assertThat(OutputInspector.flags("\ufeff \u200d\u2060\u3000\n")).containsExactly(OutputFlag.EMPTY);
    assertThat(OutputInspector.flags("\u202e")).containsExactlyInAnyOrder(OutputFlag.EMPTY, OutputFlag.BIDI_CONTROL);
    // anything visible is not: a letter, a CJK ideograph, an emoji (a surrogate pair), a soft-hyphenated word
    assertThat(OutputInspector.flags("\u200ba")).isEmpty();
    assertThat(OutputInspector.flags("\u00a0\u4f60")).isEmpty();
    assertThat(OutputInspector.flags("\u200b\ud83d\ude00")).isEmpty();
    assertThat(OutputInspector.flags("co\u00adoperate")).isEmpty();
  }
}
