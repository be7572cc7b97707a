package io.github.trtrace.core.sink;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceRecord.Event;
import io.github.trtrace.core.InferenceRecord.LayerTime;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.OutputFlag;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.json.RecordFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;

/**
 * Every sink writes the same fields with the same values for the same adversarial record: names,
 * order and sanitising come from {@link RecordConvention} alone. Values are normalised to Java types
 * (text, Long, Double, lists) and attributes flattened to {@code attributes.<key>}; events and layers
 * to their compact form, the one SLF4J writes. Control and format characters are the one difference,
 * and the convention's too: the JSON line carries them as JSON escapes (parsed back to the character),
 * every other output as the escape's text.
 */
class EverySinkSameFieldsTest {
  private static final String NASTY = "a\u0000b\r\nc\u202Ed\uD800e\u001b[31m\"\\";

  /** Values a careless output would write as they are; numbers have at most three decimals. */
  static InferenceRecord adversarial() {
    return InferenceRecord.builder("req-adversarial", NASTY + "é".repeat(5000))
        .timestamp(Instant.parse("+12026-01-01T00:00:00Z")) // beyond year 9999: clamped
        .status(Status.TIMEOUT)
        .errorType("\uDC00lonely low surrogate")
        .latencyMs(41.5)
        .inputTokens(12)
        .outputTokens(0)
        .maxTokens(256)
        .temperature(0.0)
        .topP(1.0)
        .finishReason(NASTY)
        .queueMs(0.001)
        .inferMs(30.125)
        .gpuUtil(250) // clamped to 100
        .gpuUtilMean(55.5)
        .gpuUtilMax(-20) // clamped to 0
        .gpuMemUtilMean(Double.POSITIVE_INFINITY) // clamped to 100
        .gpuMemUsedMb(-5) // left out
        .engineFingerprint(NASTY)
        .sampledReason("timeout")
        .inputFlags(EnumSet.allOf(InputFlag.class))
        .inputDigest("x".repeat(98) + "\uD83D\uDE00" + "y".repeat(200)) // cut before the pair
        .outputFlags(EnumSet.of(OutputFlag.REPETITION, OutputFlag.EMPTY))
        .addEvent(new Event("tensorrt.oom", "error", NASTY, -3)) // negative offset: left out
        .addEvent(new Event("k", "warning", "m".repeat(5000), 12.5))
        .addLayer(new LayerTime(NASTY, -1, -7)) // unknown time and count
        .addLayer(new LayerTime("attn.0", 1.25, 3))
        .attribute("tenant\u0007", NASTY)
        .attribute("long", "v".repeat(9000))
        .build();
  }

  private static String compact(String severity, String kind, double offset, String message) {
    return severity + ' ' + kind + (Double.isNaN(offset) ? "" : " @" + offset + "ms") + ": " + message;
  }

  private static String compact(String name, double ms, long invocations) {
    return name + '=' + (Double.isNaN(ms) ? "?" : String.valueOf(ms)) + "ms/" + (invocations < 0 ? "?" : invocations);
  }

  /**
   * The record as the convention hands it to an output that escapes control and format characters
   * itself ({@code json}) or not: what the in-memory sink's record means.
   */
  private static Map<String, Object> viaConvention(InferenceRecord r, boolean json) {
    Map<String, Object> out = new LinkedHashMap<>();
    RecordConvention.visit(r, new RecordConvention.FieldVisitor() {
      @Override public boolean escapesInvisible() { return json; }
      @Override public void timestamp(String name, Instant value) {
        out.put(name, RecordConvention.formatTimestamp(value));
      }
      @Override public void text(String name, String value) { out.put(name, value); }
      @Override public void count(String name, long value) { out.put(name, value); }
      @Override public void number(String name, double value) { out.put(name, value); }
      @Override public void flags(String name, List<String> values) { out.put(name, values); }
      @Override public void events(String name, List<Event> events) {
        List<String> c = new ArrayList<>();
        events.forEach(e -> c.add(compact(e.severity(), e.kind(), e.offsetMs(), e.message())));
        out.put(name, c);
      }
      @Override public void layers(String name, List<LayerTime> layers) {
        List<String> c = new ArrayList<>();
        layers.forEach(l -> c.add(compact(l.name(), l.ms(), l.invocations())));
        out.put(name, c);
      }
      @Override public void attributes(String name, Map<String, String> attributes) {
        attributes.forEach((k, v) -> out.put(name + '.' + k, v));
      }
    });
    return out;
  }

  private static Map<String, Object> fromJson(JsonNode node) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      String name = f.getKey();
      JsonNode v = f.getValue();
      if (name.equals(RecordConvention.ATTRIBUTES)) {
        v.fields().forEachRemaining(a -> out.put(name + '.' + a.getKey(), a.getValue().textValue()));
      } else if (name.equals(RecordConvention.EVENTS)) {
        List<String> c = new ArrayList<>();
        v.forEach(e -> c.add(compact(e.get("severity").textValue(), e.get("kind").textValue(),
            e.has("offset_ms") ? e.get("offset_ms").doubleValue() : Double.NaN, e.get("message").textValue())));
        out.put(name, c);
      } else if (name.equals(RecordConvention.LAYERS)) {
        List<String> c = new ArrayList<>();
        v.forEach(l -> c.add(compact(l.get("name").textValue(),
            l.has("ms") ? l.get("ms").doubleValue() : Double.NaN,
            l.has("invocations") ? l.get("invocations").longValue() : -1)));
        out.put(name, c);
      } else if (v.isArray()) {
        List<String> c = new ArrayList<>();
        v.forEach(x -> c.add(x.textValue()));
        out.put(name, c);
      } else if (v.isIntegralNumber()) {
        out.put(name, v.longValue());
      } else if (v.isNumber()) {
        out.put(name, v.doubleValue());
      } else {
        out.put(name, v.textValue());
      }
    }
    return out;
  }

  @Test
  void jsonLinesSlf4jAndInMemoryAgreeOnEveryFieldAndValue(@TempDir Path dir) throws Exception {
    InferenceRecord r = adversarial();

    Path file = dir.resolve("records.log");
    try (JsonLinesFileSink json = JsonLinesFileSink.builder(file).build()) {
      json.write(List.of(r));
    }
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(1);
    assertThat(RecordFixtures.validate(lines.get(0))).as("schema").isEmpty();
    Map<String, Object> fromFile = fromJson(RecordFixtures.parse(lines.get(0)));

    String loggerName = "test.every-sink." + System.nanoTime();
    Logger logger = (Logger) LoggerFactory.getLogger(loggerName);
    logger.setLevel(Level.TRACE);
    logger.setAdditive(false);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    Slf4jSink.builder().loggerName(loggerName).build().write(List.of(r));
    Map<String, Object> fromSlf4j = new LinkedHashMap<>();
    for (KeyValuePair kv : appender.list.get(0).getKeyValuePairs()) {
      fromSlf4j.put(kv.key, kv.value);
    }

    CapturingSink memory = CapturingSink.create();
    memory.write(List.of(r));
    Map<String, Object> fromMemory = viaConvention(memory.records().get(0), false);

    assertThat(fromSlf4j).containsExactlyEntriesOf(fromMemory);
    assertThat(viaConvention(memory.records().get(0), true)).containsExactlyEntriesOf(fromFile);
    assertThat(fromSlf4j).hasSameSizeAs(fromFile);
    // the same text, control and format characters as escapes' text where the output is not JSON
    assertThat(fromFile.get(RecordConvention.FINISH_REASON)).isEqualTo("a\u0000b\r\nc\u202Ed\uFFFDe\u001b[31m\"\\");
    assertThat(fromSlf4j.get(RecordConvention.FINISH_REASON))
        .isEqualTo("a\\u0000b\\u000d\\u000ac\\u202ed\uFFFDe\\u001b[31m\"\\");
    assertThat(fromSlf4j.get("attributes.tenant\\u0007")).isEqualTo(fromSlf4j.get(RecordConvention.FINISH_REASON));

    // and the sanitising did happen
    assertThat(fromFile.get(RecordConvention.TIMESTAMP)).isEqualTo("9999-12-31T23:59:59.999999Z");
    assertThat(fromFile.get(RecordConvention.GPU_UTIL)).isEqualTo(100.0);
    assertThat(fromFile.get(RecordConvention.GPU_UTIL_MAX)).isEqualTo(0.0);
    assertThat(fromFile.get(RecordConvention.GPU_MEM_UTIL_MEAN)).isEqualTo(100.0);
    assertThat(fromFile).doesNotContainKey(RecordConvention.GPU_MEM_UTIL_MAX);
    assertThat(fromFile).doesNotContainKey(RecordConvention.GPU_MEM_USED_MB);
    assertThat((String) fromFile.get(RecordConvention.INPUT_DIGEST))
        .hasSize(99).endsWith("x\u2026");
    assertThat((String) fromFile.get(RecordConvention.MODEL_NAME))
        .hasSize(RecordConvention.MAX_TEXT_LENGTH).doesNotContain("\uD800").endsWith("\u2026");
    assertThat((String) fromFile.get(RecordConvention.ERROR_TYPE)).startsWith("\uFFFD");
    assertThat((String) fromFile.get("attributes.long")).hasSize(RecordConvention.MAX_TEXT_LENGTH);
  }
}
