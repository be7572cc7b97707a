package io.github.trtrace.core.fault;

import io.github.trtrace.core.internal.dispatch.DispatcherCounts;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.internal.trace.TracerFactory;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.internal.dispatch.CloseReport;
import io.github.trtrace.core.internal.dispatch.Dispatcher;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.json.RecordFixtures;
import io.github.trtrace.core.internal.inspect.InputInspector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.jspecify.annotations.Nullable;

/**
 * Issue 11 fault suite 6: hostile request IDs, prompts, model names and attribute keys/values
 * traced through the real tracer and encoded as the file sink writes them. Every line parses with
 * Jackson, validates against the schema, is one line, and carries neither a raw rejected header nor
 * the raw input, unless input digests are opted in, and then only redacted and bounded.
 */
class RecordLinePropertiesTest {
  private static final String EMAIL = "bob.smith@example.com";
  private static Capture plain;
  private static Capture digests;
  private static InferenceTracer plainTracer;
  private static InferenceTracer digestTracer;

  @BeforeContainer
  static void tracers() {
    plain = new Capture();
    digests = new Capture();
    plainTracer = new TracerFactory().dispatcher(plain).build();
    digestTracer = new TracerFactory().dispatcher(digests).inputDigest(true).build();
  }

  @AfterContainer
  static void close() {
    plainTracer.close();
    digestTracer.close();
  }

  @Provide
  Arbitrary<String> hostile() {
    Arbitrary<Character> nasty =
        Arbitraries.of(
            '\u0000', '\n', '\r', '\t', '"', '\\', '\u001B', '\u007F', '\u0085', '\u00AD', '\u034F', '\u061C',
            '\u180E', '\u200B', '\u200E', '\u2028', '\u2029', '\u202E', '\u2061', '\u2066', '\u3164', '\uFE0F',
            '\uFEFF', '\uFFF9', '\uFFFD', '\uD800', '\uDBFF', '\uDC00', '\uDB40', '\uDC41', 'a', 'Z', '-', '_',
            ' ', '世', '\uD83D', '\uDE00');
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(3, nasty), net.jqwik.api.Tuple.of(2, Arbitraries.chars().all()),
            net.jqwik.api.Tuple.of(2, Arbitraries.chars().alpha()))
        .list()
        .ofMaxSize(200)
        .map(cs -> {
          StringBuilder b = new StringBuilder();
          cs.forEach(b::append);
          return b.toString();
        });
  }

  @Property(tries = 2000)
  void everyLineIsOneValidJsonObjectWithoutRawRejectedIdsOrInput(
      @ForAll("hostile") String header,
      @ForAll("hostile") String prompt,
      @ForAll("hostile") String model,
      @ForAll("hostile") String key,
      @ForAll("hostile") String value) {
    String marked = "PROMPT-" + prompt;
    try (InferenceTrace t = plainTracer.start(model, header)) {
      t.input(marked).attribute(key, value).status(Status.ERROR).error("java.io.IOException");
    }
    String line = lineOf(plain.take());
    JsonNode node = assertOneValidLine(line);

    String id = node.get("request_id").asText();
    assertThat(RequestIds.isValid(id)).as("request_id %s", id).isTrue();
    if (!RequestIds.isValid(header) && !header.isBlank()) {
      assertThat(id).isNotEqualTo(header);
      JsonNode rejected = node.path("attributes").path(RequestIds.REJECTED_ATTRIBUTE);
      assertThat(rejected.isTextual()).as("rejected value kept as an attribute: %s", line).isTrue();
      assertSanitized(rejected.asText());
    }
    assertThat(node.has("input_digest")).as("no input text without the opt-in").isFalse();
    if (prompt.length() >= 4) {
      assertThat(line).doesNotContain(marked);
    }
  }

  @Property(tries = 2000)
  void withTheOptInTheInputIsOnlyADigestRedactedAndBounded(@ForAll("hostile") String prompt) {
    String raw = prompt + " contact " + EMAIL + " " + prompt;
    try (InferenceTrace t = digestTracer.start("m", "req-digest")) {
      t.input(raw).status(Status.ERROR).error("java.io.IOException");
    }
    String line = lineOf(digests.take());
    JsonNode node = assertOneValidLine(line);
    String digest = node.get("input_digest").asText();
    assertThat(digest.length()).isLessThanOrEqualTo(RecordConvention.MAX_INPUT_DIGEST_LENGTH);
    assertThat(line).doesNotContain(EMAIL).doesNotContain("bob.smith");
    assertSanitized(digest);
    if (raw.indexOf('\uFFFD') < 0) {
      assertThat(digest).as("markers, never U+FFFD").doesNotContain("\uFFFD");
    }
  }

  private static JsonNode assertOneValidLine(String line) {
    assertThat(line).endsWith("\n");
    String body = line.substring(0, line.length() - 1);
    assertThat(body).doesNotContain("\n").doesNotContain("\r").doesNotContain("\u2028").doesNotContain("\u2029");
    JsonNode node = RecordFixtures.parse(body);
    assertThat(node.isObject()).isTrue();
    assertThat(RecordFixtures.validate(body)).as("schema: %s", body).isEmpty();
    return node;
  }

  /** Printable: none of the characters that raise an input flag, bounded. */
  private static void assertSanitized(String s) {
    assertThat(InputInspector.flags(s, 1000)).as("flags of %s", s).isEmpty();
    assertThat(s.length()).isLessThanOrEqualTo(1000);
  }

  private static String lineOf(InferenceRecord r) {
    StringBuilder b = new StringBuilder();
    RecordConvention.appendJsonLine(r, b);
    return b.toString();
  }

  /** Takes the tracer's records as they are offered, on the calling thread; nothing else. */
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
