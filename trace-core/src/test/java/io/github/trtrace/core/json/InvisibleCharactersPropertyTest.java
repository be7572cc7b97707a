package io.github.trtrace.core.json;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.internal.dispatch.CloseReport;
import io.github.trtrace.core.internal.dispatch.Dispatcher;
import io.github.trtrace.core.internal.dispatch.DispatcherCounts;
import io.github.trtrace.core.internal.json.RecordJson;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.sink.Slf4jSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;

/**
 * Issue 19 item 1: arbitrary code points of every plane, through the real tracer into every text field
 * ({@code model_name}, the rejected ID, attribute keys and values, {@code error(String)}, events, {@code
 * engine_fingerprint}, {@code finish_reason}), leave no raw control (Cc), format (Cf), line or paragraph
 * separator (Zl, Zp) code point and no unpaired surrogate in the JSON line or in the SLF4J key-values; the
 * line parses with a strict JSON parser back to the record's values. The oracle is {@link
 * Character#getType(int)} itself, not the writer's table.
 */
class InvisibleCharactersPropertyTest {
  private static final ObjectMapper STRICT =
      new ObjectMapper()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final String LOGGER = "test.invisible.slf4j";
  /** Every Cc, Cf, Zl, Zp code point of every plane, and the tag block: what an attacker reaches for. */
  private static final List<Integer> INVISIBLE =
      IntStream.rangeClosed(0, Character.MAX_CODE_POINT)
          .filter(cp -> forbidden(cp) || (cp >= 0xE0000 && cp <= 0xE007F))
          .boxed()
          .toList();

  private static Capture capture;
  private static InferenceTracer tracer;
  private static ListAppender<ILoggingEvent> logged;
  private static Slf4jSink slf4j;

  @BeforeContainer
  static void setUp() {
    capture = new Capture();
    tracer = new TracerFactory().dispatcher(capture).build();
    Logger logger = (Logger) LoggerFactory.getLogger(LOGGER);
    logger.setLevel(Level.TRACE);
    logger.setAdditive(false);
    logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    slf4j = Slf4jSink.builder().loggerName(LOGGER).build();
  }

  @AfterContainer
  static void tearDown() {
    tracer.close();
  }

  @Provide
  Arbitrary<String> codePoints() {
    Arbitrary<Integer> cp =
        Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.integers().between(0, Character.MAX_CODE_POINT)),
            Tuple.of(3, Arbitraries.of(INVISIBLE)),
            Tuple.of(1, Arbitraries.integers().between(0xD800, 0xDFFF)), // lone or accidentally paired halves
            Tuple.of(2, Arbitraries.integers().between(0x20, 0x7E)));
    return cp.list().ofMaxSize(120).map(cps -> {
      StringBuilder sb = new StringBuilder();
      cps.forEach(sb::appendCodePoint);
      return sb.toString();
    });
  }

  @Property(tries = 1000)
  void noRawInvisibleCodePointOnAnySinkAndTheLineRoundTrips(
      @ForAll("codePoints") String text, @ForAll("codePoints") String header) {
    try (InferenceTrace t = tracer.start(text, header)) {
      t.attribute("k" + text, text)
          .engineFingerprint(text)
          .finishReason(text)
          .event(text, text, text)
          .status(Status.ERROR)
          .error(text);
    }
    InferenceRecord r = capture.take();

    StringBuilder sb = new StringBuilder();
    RecordJson.appendLine(r, sb);
    String line = sb.toString();
    assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
    String body = line.substring(0, line.length() - 1);
    assertNoRawInvisible("JSON line", body);
    JsonNode node = strictParse(body);
    int max = RecordConvention.MAX_TEXT_LENGTH;
    assertThat(node.get(RecordConvention.MODEL_NAME).asText()).isEqualTo(AdversarialStringsTest.expected(r.modelName(), max));
    assertThat(node.get(RecordConvention.ERROR_TYPE).asText()).isEqualTo(AdversarialStringsTest.expected(r.errorType(), max));
    assertThat(node.get(RecordConvention.ENGINE_FINGERPRINT).asText())
        .isEqualTo(AdversarialStringsTest.expected(r.engineFingerprint(), max));
    assertThat(node.get(RecordConvention.FINISH_REASON).asText())
        .isEqualTo(AdversarialStringsTest.expected(r.finishReason(), max));
    InferenceRecord.Event event = r.events().get(0);
    assertThat(node.get(RecordConvention.EVENTS).get(0).get(RecordConvention.EVENT_MESSAGE).asText())
        .isEqualTo(AdversarialStringsTest.expected(event.message(), max));
    for (Map.Entry<String, String> a : r.attributes().entrySet()) {
      JsonNode value = node.get(RecordConvention.ATTRIBUTES).get(AdversarialStringsTest.expected(a.getKey(), max));
      assertThat(value).as("attribute %s in %s", a.getKey(), body).isNotNull();
      assertThat(value.asText()).isEqualTo(AdversarialStringsTest.expected(a.getValue(), max));
    }

    logged.list.clear();
    slf4j.write(List.of(r));
    assertThat(logged.list).hasSize(1);
    ILoggingEvent e = logged.list.get(0);
    assertNoRawInvisible("SLF4J message", e.getFormattedMessage());
    for (KeyValuePair kv : e.getKeyValuePairs()) {
      assertNoRawInvisible("SLF4J key", kv.key);
      if (kv.value instanceof List<?> items) {
        items.forEach(item -> assertNoRawInvisible("SLF4J value of " + kv.key, String.valueOf(item)));
      } else {
        assertNoRawInvisible("SLF4J value of " + kv.key, String.valueOf(kv.value));
      }
    }
  }

  /** Cc, Cf, Zl, Zp, or a surrogate (a lone half: {@code codePoints()} pairs the valid ones). */
  static boolean forbidden(int cp) {
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

  static void assertNoRawInvisible(String where, String s) {
    s.codePoints().forEach(cp -> assertThat(forbidden(cp)).as("%s: raw U+%04X in %s", where, cp, s).isFalse());
  }

  private static JsonNode strictParse(String json) {
    try {
      return STRICT.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Takes the tracer's records as they are offered, on the calling thread. */
  static final class Capture implements Dispatcher {
    private final List<InferenceRecord> records = new ArrayList<>();

    @Override
    public synchronized boolean offer(@Nullable InferenceRecord record, boolean priority) {
      records.add(record);
      return true;
    }

    synchronized InferenceRecord take() {
      assertThat(records).hasSize(1);
      return records.remove(0);
    }

    @Override
    public CompletableFuture<Void> flush() {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CloseReport close(Duration timeout) {
      return new CloseReport(0, 0, false, Map.of(), Map.of());
    }

    @Override
    public void close() {}

    @Override
    public DispatcherStats stats() {
      return new DispatcherCounts(0, 0, 0, 0, 0, 0, Map.of());
    }
  }
}
