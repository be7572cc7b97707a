package io.github.trtrace.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.Status;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * The file sink's byte-level encoder ({@link JsonBytes}, {@link RecordJson.Utf8Lines}) writes exactly
 * the UTF-8 of what the text encoder ({@link JsonWriter}, {@link RecordJson#appendLine}) writes, for
 * random records and values: non-ASCII, escapes, control and invisible characters, paired and lone
 * surrogates, strings cut at the maximum length (a pair at the cut included), every kind of number.
 */
class JsonBytesPropertyTest {

  @Property(tries = 3000)
  void aRecordLineIsTheUtf8OfTheTextLine(@ForAll("records") InferenceRecord r) {
    StringBuilder text = new StringBuilder();
    RecordJson.appendLine(r, text);
    RecordJson.Utf8Lines lines = new RecordJson.Utf8Lines();
    lines.encode(r);

    assertThat(Arrays.copyOf(lines.bytes(), lines.length())).isEqualTo(utf8(text));
  }

  /**
   * The encoder keeps state from line to line (the timestamp's second, the order of the names): a reused
   * one writes every line of a sequence as a fresh one writes it alone, through seconds that change, stay
   * or go back, and records whose optional fields come and go; and the timestamp is the convention's text.
   */
  @Property(tries = 300)
  void aReusedEncoderWritesEveryLineAsAFreshOne(
      @ForAll("recordLists") List<InferenceRecord> records, @ForAll("stamps") List<Instant> stamps) {
    RecordJson.Utf8Lines reused = new RecordJson.Utf8Lines();
    for (int i = 0; i < records.size(); i++) {
      InferenceRecord r = records.get(i).toBuilder().timestamp(stamps.get(i % stamps.size())).build();
      RecordJson.Utf8Lines fresh = new RecordJson.Utf8Lines();
      fresh.encode(r);
      reused.encode(r);

      byte[] line = Arrays.copyOf(reused.bytes(), reused.length());
      assertThat(line).as("line %d", i).isEqualTo(Arrays.copyOf(fresh.bytes(), fresh.length()));
      assertThat(new String(line, StandardCharsets.UTF_8))
          .startsWith("{\"timestamp\":\"" + RecordConvention.formatTimestamp(r.timestamp()) + "\",");
    }
  }

  @Provide
  Arbitrary<List<InferenceRecord>> recordLists() {
    return records().list().ofMinSize(1).ofMaxSize(10);
  }

  @Provide
  Arbitrary<List<Instant>> stamps() {
    // a few seconds apart at most, so that neighbours often share a second; years 0000 and 9999 at the clamps
    Arbitrary<Instant> near = Arbitraries.longs().between(1_764_000_000_000_000L, 1_764_000_003_000_000L)
        .map(us -> Instant.ofEpochSecond(us / 1_000_000, (us % 1_000_000) * 1000 + us % 7));
    Arbitrary<Instant> far = Arbitraries.of(Instant.ofEpochSecond(-62_167_219_200L), Instant.ofEpochSecond(-62_167_219_201L, 5),
        Instant.ofEpochSecond(253_402_300_799L, 999_999_999), Instant.ofEpochSecond(253_402_300_800L), Instant.EPOCH);
    return Arbitraries.frequencyOf(Tuple.of(9, near), Tuple.of(1, far)).list().ofMinSize(1).ofMaxSize(12);
  }

  @Property(tries = 3000)
  void everyValueIsTheUtf8OfJsonWritersText(
      @ForAll("strings") String s,
      @ForAll("strings") String name,
      @ForAll("doubles") double d,
      @ForAll long l,
      @ForAll @IntRange(min = 1, max = 40) int maxLength) {
    JsonWriter text = JsonWriter.create(new StringBuilder(), maxLength);
    JsonBytes bytes = new JsonBytes(maxLength);
    for (JsonOutput out : List.<JsonOutput>of(text, bytes)) {
      out.beginObject().name(name).value(s).name("d").value(d).name("l").value(l);
      out.name("a").beginArray().value(s).value((String) null).value(-d).beginObject().endObject().endArray();
      out.name("t").rawValue("\"2026-12-02T03:00:00.000001Z\"").endObject();
    }
    assertThat(text.isComplete()).isTrue();
    assertThat(bytes.isComplete()).isTrue();

    assertThat(Arrays.copyOf(bytes.bytes(), bytes.length())).isEqualTo(utf8(text.out()));
  }

  @Property(tries = 200)
  void aLongStringIsCutAsTheTextWriterCutsIt(
      @ForAll("strings") String tail, @ForAll @IntRange(min = 0, max = 3) int pad) {
    // a surrogate pair straddling the cut, as the text writer keeps it whole or drops it
    String s = "x".repeat(RecordConvention.MAX_TEXT_LENGTH - 2 + pad) + "\uD83D\uDE00" + tail;
    JsonWriter text = JsonWriter.create(new StringBuilder(), RecordConvention.MAX_TEXT_LENGTH);
    JsonBytes bytes = new JsonBytes(RecordConvention.MAX_TEXT_LENGTH);
    text.value(s);
    bytes.value(s);
    assertThat(Arrays.copyOf(bytes.bytes(), bytes.length())).isEqualTo(utf8(text.out()));
  }

  /**
   * UTF-8 of the text writer's output; the writer never emits a lone surrogate (it writes the
   * escape of U+FFFD instead), so the JDK's encoder has nothing to replace.
   */
  private static byte[] utf8(CharSequence text) {
    String s = text.toString();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        assertThat(i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))).as("paired at %d", i).isTrue();
        i++;
      } else {
        assertThat(Character.isLowSurrogate(c)).as("lone low surrogate at %d", i).isFalse();
      }
    }
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Provide
  Arbitrary<String> strings() {
    Arbitrary<String> nasty =
        Arbitraries.of(
            "\u0000", "\n", "\r", "\t", "\"", "\\", "/", "\u001B", "\u007F", "\u0085", "\u009F", "\u00A0", "\u00AD",
            "é", "ß", "\u061C", "\u200B", "\u200E", "\u2028", "\u2029", "\u202E", "\u2066", "\uFEFF", "\uFFF9",
            "\uFFFD", "\uFFFF", "世", "界", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uD83D\uDE00", "\uDB40\uDC41",
            "\uD834\uDD73", "\uD800\uDC00", "a", "Z", " ", "~");
    Arbitrary<String> codePoint =
        Arbitraries.integers().between(0, Character.MAX_CODE_POINT).map(Character::toString);
    Arbitrary<String> piece =
        Arbitraries.frequencyOf(
            Tuple.of(4, nasty),
            Tuple.of(2, codePoint),
            Tuple.of(2, Arbitraries.chars().all().map(String::valueOf)),
            Tuple.of(3, Arbitraries.strings().alpha().numeric().ofMaxLength(12)));
    return piece.list().ofMaxSize(60).map(ps -> String.join("", ps));
  }

  @Provide
  Arbitrary<Double> doubles() {
    return Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.doubles().between(-1e6, 1e6)),
        Tuple.of(2, Arbitraries.doubles().between(-1e3, 1e3).ofScale(4)),
        Tuple.of(1, Arbitraries.doubles()),
        Tuple.of(1, Arbitraries.of(0.0, -0.0, 0.0005, -0.0005, 0.9995, 999_999_999_999_999.9, 1e15, -1e15, 1e300,
            Double.MIN_VALUE, Double.MAX_VALUE, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY)));
  }

  @Provide
  Arbitrary<InferenceRecord> records() {
    Arbitrary<String> s = strings();
    Arbitrary<String> maybe = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just((String) null)), Tuple.of(3, s));
    // the builder takes durations and counts as finite and >= 0 (NaN: unknown), top_p within [0, 1]
    Arbitrary<Double> d = doubles().map(x -> Double.isInfinite(x) ? Double.NaN : Math.abs(x));
    Arbitrary<Instant> when =
        Arbitraries.longs().between(-100_000_000_000L, 300_000_000_000L).map(Instant::ofEpochMilli);
    Arbitrary<InferenceRecord.Builder> head =
        Combinators.combine(s, s, Arbitraries.of(Status.class), maybe, when, d.filter(x -> !Double.isNaN(x)), maybe, maybe)
            .as((id, model, status, error, ts, latency, trace, finish) ->
                InferenceRecord.builder(id, model).status(status).errorType(error).timestamp(ts).latencyMs(latency)
                    .traceId(trace).finishReason(finish));
    Arbitrary<List<Double>> numbers = d.list().ofSize(12);
    Arbitrary<List<String>> texts = maybe.list().ofSize(6);
    Arbitrary<List<Integer>> ints = Arbitraries.integers().between(-1, Integer.MAX_VALUE).list().ofSize(3);
    return Combinators.combine(head, numbers, texts, ints, s.list().ofMaxSize(4))
        .as((b, n, t, i, extra) -> {
          b.queueMs(n.get(0)).preprocessMs(n.get(1)).inferMs(n.get(2)).gpuMs(n.get(3)).decodeMs(n.get(4))
              .postprocessMs(n.get(5)).ttftMs(n.get(6)).tpotMs(n.get(7)).gpuUtil(n.get(8)).temperature(n.get(9))
              .topP(Double.isNaN(n.get(10)) ? Double.NaN : n.get(10) / (1 + n.get(10))).gpuMemUsedMb(n.get(11))
              .spanId(t.get(0)).engineFingerprint(t.get(1)).sampledReason(t.get(2)).inputDigest(t.get(3))
              .inputTokens(i.get(0)).outputTokens(i.get(1)).maxTokens(i.get(2));
          for (int k = 0; k < extra.size(); k++) {
            String x = extra.get(k);
            b.attribute("k" + k + x, x);
            b.addEvent(new InferenceRecord.Event(x, "WARNING", x + x, n.get(k)));
            b.addLayer(new InferenceRecord.LayerTime(x.isEmpty() ? "layer" : x, n.get(k + 1), i.get(k % 3)));
          }
          return b.build();
        });
  }
}
