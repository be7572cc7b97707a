package io.github.trtrace.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JsonWriterTest {

  private final StringBuilder out = new StringBuilder();
  private final JsonWriter w = JsonWriter.create(out);

  private String string(String s) {
    out.setLength(0);
    w.reset(out).value(s);
    return out.toString();
  }

  private static String decimal(double v) {
    StringBuilder sb = new StringBuilder();
    JsonWriter.create(sb).value(v);
    return sb.toString();
  }

  @Test
  void separatesMembersAndElementsWithCommasAtEveryDepth() {
    w.beginObject()
        .name("a").value(1)
        .name("b").beginArray().value("x").value(true).nullValue().beginObject().endObject()
        .beginArray().endArray().endArray()
        .name("c").beginObject().name("d").value(false).endObject()
        .endObject();
    assertThat(out).hasToString("{\"a\":1,\"b\":[\"x\",true,null,{},[]],\"c\":{\"d\":false}}");
    assertThat(w.isComplete()).isTrue();
  }

  @Test
  void writesNestingDeeperThanTheInitialStack() {
    for (int i = 0; i < 40; i++) {
      w.beginArray();
    }
    w.value(1);
    for (int i = 0; i < 40; i++) {
      w.endArray();
    }
    assertThat(out).hasToString("[".repeat(40) + "1" + "]".repeat(40));
  }

  @Test
  void rejectsMisuseWithAClearMessage() {
    assertThatThrownBy(() -> w.name("x")).isInstanceOf(IllegalStateException.class).hasMessageContaining("inside an object");
    JsonWriter obj = JsonWriter.create(new StringBuilder()).beginObject();
    assertThatThrownBy(() -> obj.value(1)).isInstanceOf(IllegalStateException.class).hasMessageContaining("name()");
    assertThatThrownBy(obj::endArray).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JsonWriter.create(new StringBuilder(), 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void escapesQuotesBackslashesAndEveryControlCharacter() {
    assertThat(string("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    assertThat(string("\n\r\t\u0000\u001f\u007f\u0085\u009f")).isEqualTo("\"\\u000a\\u000d\\u0009\\u0000\\u001f\\u007f\\u0085\\u009f\"");
  }

  @Test
  void escapesLineSeparatorsBidiAndZeroWidthCharacters() {
    String in = "\u2028\u2029\u061c\u200b\u200f\u202a\u202e\u2060\u2069\ufeff";
    assertThat(string(in))
        .isEqualTo("\"\\u2028\\u2029\\u061c\\u200b\\u200f\\u202a\\u202e\\u2060\\u2069\\ufeff\"");
  }

  @Test
  void escapesExactlyTheControlFormatAndSeparatorCharactersOfTheWholeBmp() {
    for (int c = 0; c <= 0xffff; c++) {
      if (Character.isSurrogate((char) c) || c == '"' || c == '\\') {
        continue;
      }
      int type = Character.getType(c);
      boolean invisible =
          type == Character.CONTROL
              || type == Character.FORMAT
              || type == Character.LINE_SEPARATOR
              || type == Character.PARAGRAPH_SEPARATOR
              || (c >= 0x2060 && c <= 0x206f);
      String expected =
          invisible ? String.format("\"\\u%04x\"", c) : "\"" + (char) c + "\"";
      assertThat(string(String.valueOf((char) c))).as("U+%04X", c).isEqualTo(expected);
    }
    // the ones named in the class description, among them the deprecated bidi-affecting controls
    assertThat(string("\u00ad\u180e\u206a\u206f\ufff9\ufffb"))
        .isEqualTo("\"\\u00ad\\u180e\\u206a\\u206f\\ufff9\\ufffb\"");
  }

  @Test
  void passesOrdinaryUnicodeAndSurrogatePairsThrough() {
    assertThat(string("héllo 日本 \uD83D\uDE00 \u00a0\u2026")).isEqualTo("\"héllo 日本 \uD83D\uDE00 \u00a0\u2026\"");
  }

  @Test
  void replacesUnpairedSurrogatesWithTheReplacementCharacter() {
    assertThat(string("a\uD83Db")).isEqualTo("\"a\\ufffdb\"");
    assertThat(string("a\uDE00b")).isEqualTo("\"a\\ufffdb\"");
    assertThat(string("\uDE00\uD83D")).isEqualTo("\"\\ufffd\\ufffd\"");
  }

  @Test
  void truncatesLongStringsWithAMarkerWithinTheLimit() {
    StringBuilder sb = new StringBuilder();
    JsonWriter.create(sb, 5).value("abcdefgh");
    assertThat(sb).hasToString("\"abcd\u2026\"");
    sb.setLength(0);
    JsonWriter.create(sb, 5).value("abcde");
    assertThat(sb).hasToString("\"abcde\"");
    assertThat(JsonWriter.create(new StringBuilder()).maxStringLength()).isEqualTo(4096);
  }

  @Test
  void neverSplitsASurrogatePairWhenTruncating() {
    StringBuilder sb = new StringBuilder();
    // cut point falls between the halves of U+1F600: the whole pair goes
    JsonWriter.create(sb, 5).value("abc\uD83D\uDE00xyz");
    assertThat(sb).hasToString("\"abc\u2026\"");
    sb.setLength(0);
    JsonWriter.create(sb, 6).value("abc\uD83D\uDE00xyz");
    assertThat(sb).hasToString("\"abc\uD83D\uDE00\u2026\"");
  }

  @Test
  void truncatesNamesAndPerValueLimits() {
    w.beginObject().name("n").value("0123456789", 4).endObject();
    assertThat(out).hasToString("{\"n\":\"012\u2026\"}");
  }

  @Test
  void writesDoublesWithAtMostThreeDecimalsAndNoExponent() {
    assertThat(decimal(12.3456)).isEqualTo("12.346");
    assertThat(decimal(12.0)).isEqualTo("12.0");
    assertThat(decimal(0.05)).isEqualTo("0.05");
    assertThat(decimal(0.005)).isEqualTo("0.005");
    assertThat(decimal(0.0004)).isEqualTo("0.0");
    assertThat(decimal(-3.25)).isEqualTo("-3.25");
    assertThat(decimal(1e-9)).isEqualTo("0.0");
    assertThat(decimal(123456789.5)).isEqualTo("123456789.5");
    assertThat(decimal(1e20)).isEqualTo("100000000000000000000.0");
    assertThat(decimal(-1.5e16)).isEqualTo("-15000000000000000.0");
  }

  @Test
  void writesNullForNanAndInfinities() {
    assertThat(decimal(Double.NaN)).isEqualTo("null");
    assertThat(decimal(Double.POSITIVE_INFINITY)).isEqualTo("null");
    assertThat(decimal(Double.NEGATIVE_INFINITY)).isEqualTo("null");
  }

  @Test
  void writesNullForNullStringsAndLongsExactly() {
    w.beginArray().value((String) null).value(Long.MIN_VALUE).value(Long.MAX_VALUE).endArray();
    assertThat(out).hasToString("[null," + Long.MIN_VALUE + "," + Long.MAX_VALUE + "]");
  }

  @Test
  void resetStartsOverOnANewBuilder() {
    w.beginObject().name("a");
    StringBuilder other = new StringBuilder();
    w.reset(other).beginArray().value(1).endArray();
    assertThat(other).hasToString("[1]");
    assertThat(w.isComplete()).isTrue();
  }

  @Test
  void formatCharactersOutsideTheBmpAreEscapedAsTheirTwoUtf16Escapes() {
    // U+E0001 language tag, U+E0041 tag A, U+1D173 musical format, U+1BCA0 shorthand, U+13430 hieroglyph
    String hidden = new StringBuilder().appendCodePoint(0xE0001).appendCodePoint(0xE0041).appendCodePoint(0x1D173)
        .appendCodePoint(0x1BCA0).appendCodePoint(0x13430).appendCodePoint(0x1F600).toString();
    w.beginArray().value(hidden).endArray();
    assertThat(out.toString()).isEqualTo(
        "[\"\\udb40\\udc01\\udb40\\udc41\\ud834\\udd73\\ud82f\\udca0\\ud80d\\udc30\uD83D\uDE00\"]");
  }
}
