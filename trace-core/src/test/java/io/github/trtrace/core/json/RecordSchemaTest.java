package io.github.trtrace.core.json;

import io.github.trtrace.core.RecordConvention;
import static io.github.trtrace.core.json.RecordFixtures.MAPPER;
import static io.github.trtrace.core.json.RecordFixtures.fullRecord;
import static io.github.trtrace.core.json.RecordFixtures.minimalRecord;
import static io.github.trtrace.core.json.RecordFixtures.validate;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.Status;
import java.util.EnumSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RecordSchemaTest {

  @Test
  void fullRecordConformsToTheSchema() {
    assertThat(validate(RecordConvention.toJson(fullRecord()))).isEmpty();
  }

  @Test
  void minimalRecordConformsToTheSchema() {
    assertThat(validate(RecordConvention.toJson(minimalRecord()))).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Status.class)
  void everyStatusConformsToTheSchema(Status status) {
    InferenceRecord r = fullRecord().toBuilder().status(status).inputFlags(EnumSet.allOf(InputFlag.class)).build();
    assertThat(validate(RecordConvention.toJson(r))).isEmpty();
  }

  @Test
  void sanitizedOutOfRangeValuesConformToTheSchema() {
    InferenceRecord r =
        fullRecord().toBuilder().gpuUtil(-3).gpuMemUsedMb(-1).inputDigest("d".repeat(1000))
            .attribute("long", "v".repeat(10_000)).build();
    assertThat(validate(RecordConvention.toJson(r))).isEmpty();
  }

  @Test
  void rejectsALineWithoutARequiredField() {
    assertThat(validate(broken(n -> n.remove("request_id")))).isNotEmpty();
    assertThat(validate(broken(n -> n.remove("latency_ms")))).isNotEmpty();
    assertThat(validate(broken(n -> n.remove("timestamp")))).isNotEmpty();
  }

  @Test
  void rejectsWrongTypes() {
    assertThat(validate(broken(n -> n.put("latency_ms", "12.5")))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("input_tokens", 1.5)))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("model_name", 7)))).isNotEmpty();
    assertThat(validate(broken(n -> n.putArray("attributes").add("x")))).isNotEmpty();
  }

  @Test
  void rejectsValuesOutsideTheirRangeOrPattern() {
    assertThat(validate(broken(n -> n.put("status", "ok")))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("timestamp", "2026-11-30T08:00:00.123Z")))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("timestamp", "2026-11-30 08:00:00.123456Z")))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("request_id", "has space")))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("request_id", "x".repeat(129))))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("output_tokens", -1)))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("queue_ms", -0.5)))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("gpu_util", 100.5)))).isNotEmpty();
    assertThat(validate(broken(n -> n.put("input_digest", "x".repeat(101))))).isNotEmpty();
    assertThat(validate(broken(n -> n.putArray("input_flags").add("emoji")))).isNotEmpty();
  }

  @Test
  void rejectsUnknownFieldsAndMalformedItems() {
    assertThat(validate(broken(n -> n.put("latency", 1.0)))).isNotEmpty();
    assertThat(validate(broken(n -> n.putArray("events").addObject().put("kind", "k").put("severity", "error")))).isNotEmpty();
    assertThat(validate(broken(n -> n.putArray("layers").addObject().put("name", "l").put("ms", "fast")))).isNotEmpty();
    assertThat(validate(broken(n -> n.putObject("attributes").put("n", 1)))).isNotEmpty();
  }

  private static String broken(Consumer<ObjectNode> change) {
    try {
      ObjectNode node = (ObjectNode) MAPPER.readTree(RecordConvention.toJson(fullRecord()));
      change.accept(node);
      return MAPPER.writeValueAsString(node);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
