package io.github.trtrace.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the synthetic workload for real and checks the log it leaves behind. */
class SyntheticWorkloadTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void everyRequestLeavesOneSchemaValidLineFoundByItsId(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("logs/inference.log");
    SyntheticWorkload.Result result = SyntheticWorkload.run(log, 200);

    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(200);
    JsonSchema schema;
    try (InputStream in =
        SyntheticWorkload.class.getResourceAsStream("/io/github/trtrace/core/inference-record.schema.json")) {
      assertThat(in).as("schema on the class path").isNotNull();
      schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    }
    List<JsonNode> records = new ArrayList<>();
    for (String line : lines) {
      JsonNode node = JSON.readTree(line);
      Set<ValidationMessage> errors = schema.validate(node);
      assertThat(errors).as(line).isEmpty();
      records.add(node);
    }
    // "grep <request-id>" finds exactly that request's line
    for (String id : result.requestIds()) {
      assertThat(lines.stream().filter(l -> l.contains("\"request_id\":\"" + id + "\"")).count())
          .as(id)
          .isEqualTo(1);
    }
    assertThat(lines.stream().filter(l -> l.contains("\"request_id\":\"" + result.slowest() + "\""))).hasSize(1);
    assertThat(records).anySatisfy(r -> assertThat(r.get("status").asText()).isEqualTo("timeout"));
    assertThat(records).anySatisfy(r -> assertThat(r.get("status").asText()).isEqualTo("error"));
    assertThat(records)
        .anySatisfy(r -> assertThat(r.path("input_flags").toString()).contains("bidi_control"));
    assertThat(records)
        .anySatisfy(r -> assertThat(r.path("attributes").has("rejected_request_id")).isTrue());
    assertThat(records)
        .allSatisfy(r -> assertThat(r.path("input_digest").asText("")).doesNotContain("alice@example.com", "4111"));
    assertThat(result.stats().dispatcher().dropped()).isZero();
  }
}
