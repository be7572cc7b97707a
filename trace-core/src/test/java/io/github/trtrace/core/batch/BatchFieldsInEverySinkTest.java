package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.json.RecordFixtures;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.Slf4jSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;

/** The batching fields reach the JSON Lines file and SLF4J alike: same names, same values, schema-valid. */
class BatchFieldsInEverySinkTest {
  static final List<String> FIELDS = List.of(RecordConvention.GPU_MS_METHOD, RecordConvention.LAUNCH_COUNT,
      RecordConvention.FIRST_LAUNCH_ID, RecordConvention.LAST_LAUNCH_ID, RecordConvention.BATCH_SIZE_MEAN,
      RecordConvention.BATCH_SIZE_MAX, RecordConvention.SLOT_WAIT_MS, RecordConvention.NEIGHBOUR_PREFILL_LAUNCHES,
      RecordConvention.NEIGHBOUR_PREFILL_MS, RecordConvention.SLOWED_BY, RecordConvention.PREEMPTIONS,
      RecordConvention.PREEMPTED_MS, RecordConvention.FAILED_LAUNCHES, RecordConvention.FAILED_LAUNCH_ID);

  static InferenceRecord batched() {
    SharedLaunch.Summary s = SharedLaunch.Summary.builder()
        .launches(64, 1000, 1063)
        .batchSize(7.5, 12)
        .shareMethod("tokens")
        .slotWaitMs(480)
        .neighbourPrefill(41, 250.5, List.of(new SharedLaunch.Neighbour("req-long\u202E", 2048, 41),
            new SharedLaunch.Neighbour("req-b", 16, 1)))
        .preemptions(1)
        .preemptedMs(90.25)
        .failedLaunches(1, 1063)
        .build();
    return InferenceRecord.builder("req-victim", "llama-8b").latencyMs(2000).gpuMs(12.5).batching(s).build();
  }

  @Test
  void jsonLinesAndSlf4jCarryTheSameBatchingFields(@TempDir Path dir) throws Exception {
    InferenceRecord r = batched();
    Path file = dir.resolve("records.log");
    try (JsonLinesFileSink json = JsonLinesFileSink.builder(file).build()) {
      json.write(List.of(r));
    }
    String line = Files.readAllLines(file).get(0);
    assertThat(RecordFixtures.validate(line)).as(line).isEmpty();
    JsonNode node = RecordFixtures.parse(line);

    String loggerName = "test.batch-fields." + System.nanoTime();
    Logger logger = (Logger) LoggerFactory.getLogger(loggerName);
    logger.setLevel(Level.TRACE);
    logger.setAdditive(false);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    Slf4jSink.builder().loggerName(loggerName).build().write(List.of(r));
    Map<String, Object> kv = new LinkedHashMap<>();
    for (KeyValuePair p : appender.list.get(0).getKeyValuePairs()) {
      kv.put(p.key, p.value);
    }
    for (String f : FIELDS) {
      assertThat(node.has(f)).as("json %s", f).isTrue();
      assertThat(kv).as("slf4j").containsKey(f);
      if (!f.equals(RecordConvention.SLOWED_BY)) {
        assertThat(String.valueOf(kv.get(f))).as(f).isEqualTo(node.get(f).asText());
      }
    }
    assertThat(node.get(RecordConvention.SLOWED_BY).get(0).get("request_id").asText()).isEqualTo("req-long\u202E");
    assertThat(kv.get(RecordConvention.SLOWED_BY)).isEqualTo(List.of("req-long\\u202e:2048x41", "req-b:16x1")); // escaped in a plain-text output
    assertThat(node.get(RecordConvention.GPU_MS_METHOD).asText()).isEqualTo("tokens");
  }
}
