package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TokenizerTest {
  private final Tokenizer tokenizer = new Tokenizer(List.of("hello", "world", "please", "café"));

  private static String decodeAll(Tokenizer.Session s, int... tokens) {
    StringBuilder out = new StringBuilder();
    for (int t : tokens) {
      out.append(s.decode(t));
    }
    return out.toString();
  }

  private int[] words(String... w) {
    Tokenizer.Session s = tokenizer.session();
    return s.encode(String.join(" ", w));
  }

  @Test
  void knownWordsAreOneTokenAndTheRestFallsBackToUtf8Bytes() {
    Tokenizer.Session s = tokenizer.session();
    assertThat(s.encode("Hello world")).hasSize(2);
    assertThat(s.encode("hello zzz")).hasSize(1 + 3);
    assertThat(s.encode("\u202E")).containsExactly(0xE2, 0x80, 0xAE); // a format character: its UTF-8 bytes
  }

  @Test
  void aCleanSessionDecodesTheWordsItWasGiven() {
    Tokenizer.Session s = tokenizer.session();
    s.encode("please say hello");
    assertThat(decodeAll(s, words("hello", "world", "café"))).isEqualTo("hello world café");
  }

  @Test
  void anUnclosedRightToLeftOverrideGarblesTheOutputIntoOneRepeatedReversedWord() {
    Tokenizer.Session s = tokenizer.session();
    s.encode("please \u202Eolleh dlrow"); // no U+202C: the level stays raised after encoding
    String out = decodeAll(s, words("café", "hello", "world", "please"));

    String first = "\u202E" + "\uFFFD\uFFFDfac"; // é is two bytes: reversed they are not UTF-8
    assertThat(out).isEqualTo(first.repeat(4));
  }

  @Test
  void anUnclosedIsolateGarblesToo() {
    Tokenizer.Session s = tokenizer.session();
    s.encode("please \u2067olleh dlrow");
    assertThat(decodeAll(s, words("hello", "world"))).isEqualTo("\u2067olleh\u2067olleh");
  }

  @Test
  void closedOverridesAndIsolatesComeOutClean() {
    for (String prompt : List.of("please \u202Eolleh\u202C world", "please \u2067olleh\u2069 world",
        "\u202Ba \u202Db\u202C\u202C")) {
      Tokenizer.Session s = tokenizer.session();
      s.encode(prompt);
      assertThat(decodeAll(s, words("hello", "world"))).as(prompt).isEqualTo("hello world");
    }
  }

  @Test
  void theStateIsPerSession() {
    Tokenizer.Session garbled = tokenizer.session();
    garbled.encode("\u202Eolleh");
    Tokenizer.Session next = tokenizer.session();
    next.encode("hello");
    assertThat(decodeAll(next, words("hello", "world"))).isEqualTo("hello world");
  }
}
