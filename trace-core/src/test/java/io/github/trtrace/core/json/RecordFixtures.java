package io.github.trtrace.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.OutputFlag;
import io.github.trtrace.core.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;

/** Records, the JSON parser and the record schema, shared by the JSON and sink tests. */
public final class RecordFixtures {

  public static final ObjectMapper MAPPER = new ObjectMapper();
  public static final String SCHEMA_RESOURCE = "/io/github/trtrace/core/inference-record.schema.json";
  private static final JsonSchema SCHEMA = loadSchema();

  private RecordFixtures() {}

  /** A record with every field set. */
  public static InferenceRecord fullRecord() {
    return InferenceRecord.builder("req-0123456789abcdef", "llama-3-8b-instruct")
        .timestamp(Instant.parse("2026-11-30T08:00:00.123456789Z"))
        .status(Status.ERROR)
        .errorType("tensorrt.out_of_memory")
        .latencyMs(41.7)
        .traceId("4bf92f3577b34da6a3ce929d0e0e4736")
        .spanId("00f067aa0ba902b7")
        .inputTokens(12)
        .outputTokens(80)
        .maxTokens(256)
        .temperature(0.7)
        .topP(0.95)
        .finishReason("length")
        .queueMs(1.25)
        .preprocessMs(0.5)
        .inferMs(30.1234)
        .gpuMs(29.0)
        .decodeMs(5.5)
        .postprocessMs(0.001)
        .ttftMs(12.0)
        .tpotMs(0.333)
        .gpuUtil(87.5)
        .gpuUtilMean(60.5)
        .gpuUtilMax(92.0)
        .gpuMemUtilMean(30.25)
        .gpuMemUtilMax(41.0)
        .gpuMemUsedMb(40_960)
        .engineFingerprint("sha256:abc123")
        .sampledReason("error")
        .inputFlags(EnumSet.of(InputFlag.BIDI_CONTROL, InputFlag.ZERO_WIDTH))
        .inputDigest("Translate: hello")
        .outputFlags(EnumSet.of(OutputFlag.REPLACEMENT_CHAR, OutputFlag.REPETITION))
        .addEvent(new InferenceRecord.Event("tensorrt.out_of_memory", "error", "OOM on enqueue", 30.5))
        .addEvent(new InferenceRecord.Event("tensorrt.warning", "warning", "no offset", Double.NaN))
        .addLayer(new InferenceRecord.LayerTime("attn.0", 1.5, 80))
        .attribute("tenant", "acme")
        .attribute("route", "/v1/chat")
        .build();
  }

  /** A record with only the required fields. */
  public static InferenceRecord minimalRecord() {
    return InferenceRecord.builder("req-1", "m").latencyMs(0.0).build();
  }

  /** A record whose free-text fields all hold {@code text}. */
  public static InferenceRecord adversarialRecord(String text) {
    return InferenceRecord.builder("req-adversarial", text)
        .timestamp(Instant.parse("2026-11-30T08:00:00Z"))
        .latencyMs(1.0)
        .errorType(text)
        .traceId(text)
        .spanId(text)
        .engineFingerprint(text)
        .sampledReason(text)
        .finishReason(text)
        .inputDigest(text)
        .addEvent(new InferenceRecord.Event(text, text, text, 1.0))
        .addLayer(new InferenceRecord.LayerTime(text, 1.0, 1))
        .attribute(text, text)
        .build();
  }

  public static JsonNode parse(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Schema violations of {@code json}; empty when it conforms. */
  public static Set<ValidationMessage> validate(String json) {
    return SCHEMA.validate(parse(json));
  }

  private static JsonSchema loadSchema() {
    try (InputStream in = RecordFixtures.class.getResourceAsStream(SCHEMA_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("schema not on the class path: " + SCHEMA_RESOURCE);
      }
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
