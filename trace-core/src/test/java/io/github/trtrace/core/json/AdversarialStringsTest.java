package io.github.trtrace.core.json;

import static io.github.trtrace.core.json.RecordFixtures.adversarialRecord;
import static io.github.trtrace.core.json.RecordFixtures.parse;
import static io.github.trtrace.core.json.RecordFixtures.validate;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.internal.json.JsonWriter;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** Arbitrary Unicode, broken UTF-16 and terminal tricks survive a JSON round trip on one line. */
class AdversarialStringsTest {

  private static final char[] SPECIAL = {
    '"', '\\', '/', '\n', '\r', '\t', '\u0000', '\u0008', '\u001b', '\u001f', '\u007f', '\u0085',
    '\u009b', '\u2028', '\u2029', '\u061c', '\u200b', '\u200d', '\u200e', '\u200f', '\u202a',
    '\u202e', '\u2060', '\u2066', '\u2069', '\ufeff', '\ufffd', '\u2026', '\ud83d', '\ude00',
    '\udbff', '\udc00', 'é', '日'
  };

  @Provide
  Arbitrary<String> adversarial() {
    Arbitrary<Character> chars =
        Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.chars().all()),
            Tuple.of(3, Arbitraries.of(box(SPECIAL))),
            Tuple.of(2, Arbitraries.chars().range('a', 'z')));
    Arbitrary<String> small = chars.list().ofMaxSize(200).map(AdversarialStringsTest::join);
    Arbitrary<String> large = chars.list().ofMinSize(4000).ofMaxSize(10_240).map(AdversarialStringsTest::join);
    return Arbitraries.frequencyOf(Tuple.of(4, small), Tuple.of(1, large));
  }

  @Property(tries = 250)
  void survivesARoundTripOnOneLine(@ForAll("adversarial") String text) {
    StringBuilder sb = new StringBuilder();
    RecordConvention.appendJsonLine(adversarialRecord(text), sb);
    String line = sb.toString();

    assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
    assertNoUnsafeRawChars(line.substring(0, line.length() - 1));

    JsonNode node = parse(line);
    String expected = expected(text, JsonWriter.DEFAULT_MAX_STRING_LENGTH);
    assertThat(node.get(RecordConvention.MODEL_NAME).asText()).isEqualTo(expected);
    assertThat(node.get(RecordConvention.ERROR_TYPE).asText()).isEqualTo(expected);
    assertThat(node.get(RecordConvention.EVENTS).get(0).get("message").asText()).isEqualTo(expected);
    assertThat(node.get(RecordConvention.LAYERS).get(0).get("name").asText()).isEqualTo(expected);
    assertThat(node.get(RecordConvention.ATTRIBUTES).get(expected).asText()).isEqualTo(expected);
    assertThat(node.get(RecordConvention.INPUT_DIGEST).asText())
        .isEqualTo(expected(text, RecordConvention.MAX_INPUT_DIGEST_LENGTH));
    assertThat(validate(line)).isEmpty();
  }

  @Property(tries = 100)
  void anyStringWriterOutputParsesBackToTheSanitizedInput(@ForAll("adversarial") String text) {
    StringBuilder sb = new StringBuilder();
    JsonWriter.create(sb, 64).beginArray().value(text).endArray();
    assertNoUnsafeRawChars(sb.toString());
    assertThat(parse(sb.toString()).get(0).asText()).isEqualTo(expected(text, 64));
  }

  /** What the writer promises: cut to max (marker included, pairs kept whole), lone halves to U+FFFD. */
  static String expected(String in, int max) {
    String s = in;
    boolean cut = false;
    if (s.length() > max) {
      int end = max - 1;
      if (end > 0 && Character.isHighSurrogate(s.charAt(end - 1)) && Character.isLowSurrogate(s.charAt(end))) {
        end--;
      }
      s = s.substring(0, end);
      cut = true;
    }
    StringBuilder sb = new StringBuilder();
    s.codePoints().forEach(cp -> sb.appendCodePoint(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp));
    if (cut) {
      sb.append('\u2026');
    }
    return sb.toString();
  }

  static void assertNoUnsafeRawChars(String json) {
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      boolean unsafe =
          c < 0x20
              || (c >= 0x7f && c <= 0x9f)
              || c == 0x2028
              || c == 0x2029
              || c == 0x061c
              || (c >= 0x200b && c <= 0x200f)
              || (c >= 0x202a && c <= 0x202e)
              || (c >= 0x2060 && c <= 0x2069)
              || c == 0xfeff
              || Character.getType(c) == Character.FORMAT;
      assertThat(unsafe).as("raw U+%04X at %d", (int) c, i).isFalse();
      if (Character.isHighSurrogate(c)) {
        assertThat(i + 1 < json.length() && Character.isLowSurrogate(json.charAt(i + 1)))
            .as("unpaired high surrogate at %d", i).isTrue();
        i++;
      } else {
        assertThat(Character.isLowSurrogate(c)).as("unpaired low surrogate at %d", i).isFalse();
      }
    }
  }

  private static Character[] box(char[] cs) {
    Character[] out = new Character[cs.length];
    for (int i = 0; i < cs.length; i++) {
      out[i] = cs[i];
    }
    return out;
  }

  private static String join(List<Character> cs) {
    StringBuilder sb = new StringBuilder(cs.size());
    cs.forEach(sb::append);
    return sb.toString();
  }
}
