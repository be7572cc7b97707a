package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatsCommandTest {
  @TempDir static Path dir;
  static final int PER_FILE = 4000;

  @BeforeAll
  static void logs() throws IOException {
    SyntheticLog gen = new SyntheticLog(11, true);
    gen.write(dir.resolve("inference.log.1.gz"), PER_FILE);
    gen.write(dir.resolve("inference.log"), PER_FILE);
    SyntheticLog.append(dir.resolve("inference.log"),
        "{\"request_id\":\"x\",\"latency_ms\":\"slow\"}\n[1,2]\n\n{\"timestamp\":\"2026-12-01T09:");
  }

  private static JsonNode json(String... args) throws IOException {
    Cli r = Cli.run(args);
    assertThat(r.code()).as(r.err()).isZero();
    return new ObjectMapper().readTree(r.out());
  }

  @Test
  void countsRecordsAndSkipsMalformedAndTornLines() throws IOException {
    JsonNode j = json("stats", "--json", dir.toString());
    assertThat(j.at("/read/files").asInt()).isEqualTo(2);
    assertThat(j.at("/read/records").asLong()).isEqualTo(2 * PER_FILE);
    assertThat(j.at("/read/malformed").asLong()).isEqualTo(2);
    assertThat(j.at("/read/torn").asLong()).isEqualTo(1);
    assertThat(j.at("/read/blank").asLong()).isEqualTo(1);
    assertThat(j.at("/read/examples/0").asText()).contains("inference.log:" + (PER_FILE + 1), "latency_ms");
    assertThat(j.at("/latency/count").asLong()).isEqualTo(2 * PER_FILE);
  }

  @Test
  void latencyPercentilesByModelAndStatusAreOrderedAndBounded() throws IOException {
    JsonNode j = json("stats", "--json", dir.toString());
    JsonNode success = null;
    long total = 0;
    for (JsonNode g : j.get("by_model")) {
      total += g.at("/latency/count").asLong();
      if (g.get("status").asText().equals("success")) {
        success = g;
      }
    }
    assertThat(total).isEqualTo(2 * PER_FILE);
    assertThat(success).isNotNull();
    double p50 = success.at("/latency/p50_ms").asDouble();
    double p90 = success.at("/latency/p90_ms").asDouble();
    double p99 = success.at("/latency/p99_ms").asDouble();
    double max = success.at("/latency/max_ms").asDouble();
    assertThat(p50).isLessThan(p90);
    assertThat(p90).isLessThan(p99);
    assertThat(p99).isLessThanOrEqualTo(max);
    // 80 % of inputs are under 1,016 tokens: the median sits below the knee's latency
    assertThat(p50).isBetween(SyntheticLog.latencyAt(100, true), SyntheticLog.latencyAt(1024, true) + 60);
    assertThat(max).isLessThan(SyntheticLog.latencyAt(2624, true) * 1.05 + 200);
    assertThat(j.at("/statuses/error").asLong()).isEqualTo(j.at("/error_types/CudaError").asLong()).isPositive();
  }

  @Test
  void findsTheKneeAndThatSlowRequestsAreTheLongInputs() throws IOException {
    JsonNode j = json("stats", "--json", dir.toString());
    JsonNode knee = j.at("/input_tokens/knee");
    assertThat(knee.get("found").asBoolean()).as(knee.toString()).isTrue();
    assertThat(knee.get("tokens").asDouble()).isCloseTo(SyntheticLog.KNEE, within(90.0));
    assertThat(knee.get("slope_before_ms_per_token").asDouble()).isCloseTo(SyntheticLog.SLOPE_BEFORE, within(0.08));
    assertThat(knee.get("slope_after_ms_per_token").asDouble()).isCloseTo(SyntheticLog.SLOPE_AFTER, within(0.2));
    assertThat(knee.get("r2_two_segments").asDouble()).isGreaterThan(knee.get("r2_one_line").asDouble());
    JsonNode f = j.get("findings");
    assertThat(f.get("slow_above_knee").asDouble() / f.get("slow_count").asDouble()).isGreaterThan(0.95);
    for (JsonNode s : j.get("slowest")) {
      assertThat(s.get("input_tokens").asLong()).isGreaterThan(SyntheticLog.KNEE);
      assertThat(s.get("request_id").asText()).startsWith("api-demo-");
      assertThat(s.get("dominant_stage").asText()).isEqualTo("decode");
    }
    assertThat(j.get("slowest")).hasSize(10);
  }

  @Test
  void garbledOutputsAreTracedToBidiControlInputs() throws IOException {
    JsonNode j = json("stats", "--json", dir.toString());
    JsonNode f = j.get("findings");
    assertThat(f.get("garbled_input_flag").asText()).isEqualTo("bidi_control");
    assertThat(f.get("garbled_with_input_flag").asLong()).isEqualTo(f.get("output_flagged").asLong()).isPositive();
    long flagged = 0;
    for (JsonNode row : j.get("flags")) {
      if (row.get("output_flags").asText().equals("replacement_char")) {
        assertThat(row.get("input_flags").asText()).isEqualTo("bidi_control");
        flagged += row.get("count").asLong();
      }
    }
    assertThat(flagged).isEqualTo(f.get("output_flagged").asLong());
  }

  @Test
  void queueAndComputeSharesAddUpToTheStages() throws IOException {
    JsonNode j = json("stats", "--json", dir.toString());
    double queue = j.at("/stages/queue_share").asDouble();
    double compute = j.at("/stages/compute_share").asDouble();
    assertThat(queue).isBetween(0.005, 0.1);
    assertThat(queue + compute).isCloseTo(1.0, within(0.01));
    assertThat(j.at("/stages/gpu_share").asDouble()).isLessThan(j.at("/stages/infer/share").asDouble());
  }

  @Test
  void textOutputStatesTheFindingsAndTables() {
    Cli r = Cli.run("stats", "--top", "3", dir.resolve("inference.log").toString(), dir.resolve("inference.log.1.gz").toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("Slow = long inputs", "the knee", "Garbled = bidi_control inputs",
        "Latency by model and status", "p99", "queue", "vs compute", "Knee: knee at", "Slowest 3 requests",
        "Input flags x output flags x status", "bidi_control  replacement_char", "Skipped lines", "torn last line");
  }

  @Test
  void withoutAKneeItSaysNoKnee() throws IOException {
    Path linear = dir.resolve("linear").resolve("inference.log");
    java.nio.file.Files.createDirectories(linear.getParent());
    new SyntheticLog(5, false).write(linear, 3000);
    JsonNode j = json("stats", "--json", linear.toString());
    assertThat(j.at("/input_tokens/knee/found").asBoolean()).isFalse();
    assertThat(j.at("/input_tokens/knee/summary").asText()).startsWith("no knee");
    assertThat(j.at("/input_tokens/knee/line_slope_ms_per_token").asDouble()).isCloseTo(SyntheticLog.SLOPE_BEFORE, within(0.03));
  }
}
