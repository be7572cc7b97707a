package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the README's Quickstart in a user's program and reads back the one record it must have written. */
class ConsumerAppTest {

  @TempDir Path dir;

  @Test
  void theAppWritesOneRecordForItsRequest() throws Exception {
    Path log = dir.resolve("logs/inference.log");

    ConsumerApp.main(new String[] {log.toString(), "consumer-1", "why is the sky blue"});

    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    assertEquals(1, lines.size(), "one JSON line per request: " + lines);
    JsonNode record = new ObjectMapper().readTree(lines.get(0));
    assertEquals("consumer-1", record.path("request_id").asText(), lines.get(0));
    assertEquals("llama-8b", record.path("model_name").asText(), lines.get(0));
    assertEquals("success", record.path("status").asText(), lines.get(0));
    assertEquals(5, record.path("input_tokens").asInt(), lines.get(0));
    assertEquals(5, record.path("output_tokens").asInt(), lines.get(0));
    assertTrue(record.path("latency_ms").asDouble() > 0, lines.get(0));
    assertTrue(record.has("decode_ms") && record.has("ttft_ms"), lines.get(0));
  }
}
