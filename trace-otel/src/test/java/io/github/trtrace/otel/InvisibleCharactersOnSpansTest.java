package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Issue 19 item 1, the OpenTelemetry output: arbitrary code points of every plane in the model name,
 * the error type, the engine fingerprint, the finish reason, events and layer names leave no raw control
 * (Cc), format (Cf), line or paragraph separator (Zl, Zp) code point and no unpaired surrogate in any span
 * name, span or event attribute, or metric label. The oracle is {@link Character#getType(int)}.
 */
class InvisibleCharactersOnSpansTest {
  private static final List<Integer> INVISIBLE =
      IntStream.rangeClosed(0, Character.MAX_CODE_POINT)
          .filter(cp -> forbidden(cp) || (cp >= 0xE0000 && cp <= 0xE007F))
          .boxed()
          .toList();
  private static OtelFixture fx;
  private static int requests;

  @BeforeContainer
  static void setUp() {
    fx = new OtelFixture();
  }

  @AfterContainer
  static void tearDown() {
    fx.close();
  }

  @Provide
  Arbitrary<String> codePoints() {
    Arbitrary<Integer> cp =
        Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.integers().between(0, Character.MAX_CODE_POINT)),
            Tuple.of(3, Arbitraries.of(INVISIBLE)),
            Tuple.of(1, Arbitraries.integers().between(0xD800, 0xDFFF)),
            Tuple.of(2, Arbitraries.integers().between(0x20, 0x7E)));
    return cp.list().ofMaxSize(80).map(cps -> {
      StringBuilder sb = new StringBuilder();
      cps.forEach(sb::appendCodePoint);
      return sb.toString();
    });
  }

  @Property(tries = 300)
  void noRawInvisibleCodePointInAnySpanEventOrMetricLabel(@ForAll("codePoints") String text) throws Exception {
    fx.spans.reset();
    String id = "req-inv-" + requests++;
    fx.tracer.run(text, id, t -> {
      t.status(Status.ERROR).error(text).engineFingerprint(text).finishReason(text).event(text, text, text);
      t.layers(List.of(new InferenceRecord.LayerTime(text, 1.0, 1)));
      fx.advanceMs(1);
    });
    fx.record(id);
    List<SpanData> spans = fx.spans.getFinishedSpanItems();
    assertThat(spans).isNotEmpty();
    for (SpanData span : spans) {
      assertNoRawInvisible("span name", span.getName());
      assertNoRawInvisible("status", span.getStatus().getDescription());
      assertNoRawInvisible(span.getAttributes());
      for (EventData e : span.getEvents()) {
        assertNoRawInvisible("event name", e.getName());
        assertNoRawInvisible(e.getAttributes());
      }
    }
    for (MetricData m : fx.metrics.collectAllMetrics()) {
      m.getData().getPoints().forEach(p -> assertNoRawInvisible(p.getAttributes()));
    }
  }

  private static void assertNoRawInvisible(Attributes attributes) {
    attributes.forEach((k, v) -> {
      if (v instanceof List<?> items) {
        items.forEach(item -> assertNoRawInvisible(k.getKey(), String.valueOf(item)));
      } else {
        assertNoRawInvisible(k.getKey(), String.valueOf(v));
      }
    });
  }

  private static boolean forbidden(int cp) {
    switch (Character.getType(cp)) {
      case Character.CONTROL:
      case Character.FORMAT:
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
      case Character.SURROGATE:
        return true;
      default:
        return false;
    }
  }

  private static void assertNoRawInvisible(String where, String s) {
    s.codePoints().forEach(cp -> assertThat(forbidden(cp)).as("%s: raw U+%04X in %s", where, cp, s).isFalse());
  }
}
