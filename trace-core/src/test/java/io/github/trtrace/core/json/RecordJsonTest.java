package io.github.trtrace.core.json;

import static io.github.trtrace.core.json.RecordFixtures.fullRecord;
import static io.github.trtrace.core.json.RecordFixtures.minimalRecord;
import static io.github.trtrace.core.json.RecordFixtures.parse;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.RecordConvention;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class RecordJsonTest {

  private static final DateTimeFormatter REFERENCE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  @Test
  void writesEveryFieldInTheOrderOfFields() {
    JsonNode node = parse(RecordConvention.toJson(fullRecord()));
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    assertThat(names)
        .containsExactly(
            RecordConvention.TIMESTAMP, RecordConvention.REQUEST_ID, RecordConvention.MODEL_NAME, RecordConvention.STATUS,
            RecordConvention.ERROR_TYPE, RecordConvention.LATENCY_MS, RecordConvention.TRACE_ID, RecordConvention.SPAN_ID,
            RecordConvention.INPUT_TOKENS, RecordConvention.OUTPUT_TOKENS, RecordConvention.MAX_TOKENS, RecordConvention.TEMPERATURE,
            RecordConvention.TOP_P, RecordConvention.FINISH_REASON, RecordConvention.QUEUE_MS, RecordConvention.PREPROCESS_MS,
            RecordConvention.INFER_MS, RecordConvention.GPU_MS, RecordConvention.DECODE_MS, RecordConvention.POSTPROCESS_MS,
            RecordConvention.TTFT_MS, RecordConvention.TPOT_MS, RecordConvention.GPU_UTIL, RecordConvention.GPU_UTIL_MEAN,
            RecordConvention.GPU_UTIL_MAX, RecordConvention.GPU_MEM_UTIL_MEAN, RecordConvention.GPU_MEM_UTIL_MAX, RecordConvention.GPU_MEM_USED_MB,
            RecordConvention.ENGINE_FINGERPRINT, RecordConvention.SAMPLED_REASON, RecordConvention.INPUT_FLAGS,
            RecordConvention.INPUT_DIGEST, RecordConvention.OUTPUT_FLAGS, RecordConvention.EVENTS, RecordConvention.LAYERS, RecordConvention.ATTRIBUTES);
  }

  @Test
  void writesTheFullRecordExactly() {
    assertThat(RecordConvention.toJson(fullRecord()))
        .isEqualTo(
            "{\"timestamp\":\"2026-11-30T08:00:00.123456Z\",\"request_id\":\"req-0123456789abcdef\","
                + "\"model_name\":\"llama-3-8b-instruct\",\"status\":\"error\","
                + "\"error_type\":\"tensorrt.out_of_memory\",\"latency_ms\":41.7,"
                + "\"trace_id\":\"4bf92f3577b34da6a3ce929d0e0e4736\",\"span_id\":\"00f067aa0ba902b7\","
                + "\"input_tokens\":12,\"output_tokens\":80,\"max_tokens\":256,\"temperature\":0.7,"
                + "\"top_p\":0.95,\"finish_reason\":\"length\",\"queue_ms\":1.25,\"preprocess_ms\":0.5,"
                + "\"infer_ms\":30.123,\"gpu_ms\":29.0,\"decode_ms\":5.5,\"postprocess_ms\":0.001,"
                + "\"ttft_ms\":12.0,\"tpot_ms\":0.333,\"gpu_util\":87.5,\"gpu_util_mean\":60.5,"
                + "\"gpu_util_max\":92.0,\"gpu_mem_util_mean\":30.25,\"gpu_mem_util_max\":41.0,"
                + "\"gpu_mem_used_mb\":40960.0,"
                + "\"engine_fingerprint\":\"sha256:abc123\",\"sampled_reason\":\"error\","
                + "\"input_flags\":[\"bidi_control\",\"zero_width\"],\"input_digest\":\"Translate: hello\","
                + "\"output_flags\":[\"replacement_char\",\"repetition\"],"
                + "\"events\":[{\"kind\":\"tensorrt.out_of_memory\",\"severity\":\"error\","
                + "\"message\":\"OOM on enqueue\",\"offset_ms\":30.5},"
                + "{\"kind\":\"tensorrt.warning\",\"severity\":\"warning\",\"message\":\"no offset\"}],"
                + "\"layers\":[{\"name\":\"attn.0\",\"ms\":1.5,\"invocations\":80}],"
                + "\"attributes\":{\"tenant\":\"acme\",\"route\":\"/v1/chat\"}}");
  }

  @Test
  void leavesOutEveryUnknownValue() {
    assertThat(RecordConvention.toJson(minimalRecord()))
        .isEqualTo(
            "{\"timestamp\":\"1970-01-01T00:00:00.000000Z\",\"request_id\":\"req-1\","
                + "\"model_name\":\"m\",\"status\":\"success\",\"latency_ms\":0.0}");
  }

  @Test
  void appendLineWritesExactlyOneLineAndToJsonNone() {
    StringBuilder sb = new StringBuilder("prefix\n");
    RecordConvention.appendJsonLine(RecordFixtures.adversarialRecord("a\nb\r\n\u2028c"), sb);
    String line = sb.substring("prefix\n".length());
    assertThat(line).endsWith("\n");
    assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
    assertThat(line.indexOf('\r')).isEqualTo(-1);
    assertThat(RecordConvention.toJson(minimalRecord())).doesNotContain("\n");
  }

  @Test
  void sanitizesValuesTheSchemaForbids() {
    InferenceRecord r =
        InferenceRecord.builder("req-1", "m")
            .latencyMs(1)
            .gpuUtil(150)
            .gpuMemUsedMb(-5)
            .inputDigest("x".repeat(500))
            .addLayer(new InferenceRecord.LayerTime("l", Double.NaN, -1))
            .build();
    JsonNode node = parse(RecordConvention.toJson(r));
    assertThat(node.get(RecordConvention.GPU_UTIL).asDouble()).isEqualTo(100.0);
    assertThat(node.has(RecordConvention.GPU_MEM_USED_MB)).isFalse();
    assertThat(node.get(RecordConvention.INPUT_DIGEST).asText()).hasSize(100).endsWith("\u2026");
    assertThat(node.get(RecordConvention.LAYERS).get(0).toString()).isEqualTo("{\"name\":\"l\"}");
  }

  @Property(tries = 300)
  void timestampIsIsoUtcWithExactlySixFractionDigits(
      @ForAll @LongRange(min = -62167219200L, max = 253402300799L) long seconds,
      @ForAll @IntRange(min = 0, max = 999_999_999) int nanos) {
    Instant t = Instant.ofEpochSecond(seconds, nanos);
    InferenceRecord r = InferenceRecord.builder("req-1", "m").timestamp(t).latencyMs(1).build();
    String expected = REFERENCE.format(t.truncatedTo(ChronoUnit.MICROS));
    assertThat(parse(RecordConvention.toJson(r)).get(RecordConvention.TIMESTAMP).asText()).isEqualTo(expected);
  }

  @Test
  void clampsTimestampsOutsideFourDigitYears() {
    InferenceRecord late = InferenceRecord.builder("req-1", "m").timestamp(Instant.MAX).latencyMs(1).build();
    InferenceRecord early = InferenceRecord.builder("req-1", "m").timestamp(Instant.MIN).latencyMs(1).build();
    assertThat(parse(RecordConvention.toJson(late)).get(RecordConvention.TIMESTAMP).asText()).isEqualTo("9999-12-31T23:59:59.999999Z");
    assertThat(parse(RecordConvention.toJson(early)).get(RecordConvention.TIMESTAMP).asText()).isEqualTo("0000-01-01T00:00:00.000000Z");
  }
}
