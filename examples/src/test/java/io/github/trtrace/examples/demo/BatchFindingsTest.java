package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The third field case is judged in the engine's CPU time (the launch log's {@code gpu_ms}), which another
 * process on the machine does not stretch, not in wall time ({@code host_ms}, {@code tpot_ms}), which it does:
 * a log written on a busy machine, where wall time says the opposite of what the engine did, still names the
 * victims whose steps carried a neighbour's prefill, and no request that was only slowed by the machine.
 */
class BatchFindingsTest {
  @TempDir Path dir;

  /** One launch: its members decode a row each, {@code prefiller} (when not null) prefills 256 tokens. */
  private static String launch(long id, double cpuMs, double wallMs, String prefiller, String... decoders) {
    StringBuilder members = new StringBuilder();
    for (String d : decoders) {
      members.append(members.length() == 0 ? "" : ",").append(String.format(Locale.ROOT,
          "{\"request_id\":\"%s\",\"prefill_tokens\":0,\"decode_rows\":1,\"share_ms\":1}", d));
    }
    if (prefiller != null) {
      members.append(",{\"request_id\":\"" + prefiller + "\",\"prefill_tokens\":256,\"decode_rows\":0,\"share_ms\":1}");
    }
    return String.format(Locale.ROOT, "{\"launch_id\":%d,\"phase\":\"%s\",\"batch_size\":%d,\"prefill_tokens\":%d,"
        + "\"decode_rows\":%d,\"gpu_ms\":%.3f,\"host_ms\":%.3f,\"status\":\"success\",\"members\":[%s]}", id,
        prefiller == null ? "decode" : "mixed", decoders.length + (prefiller == null ? 0 : 1),
        prefiller == null ? 0 : 256, decoders.length, cpuMs, wallMs, members);
  }

  private static String record(String id, int inputTokens, double tpotMs, String slowedBy) {
    return String.format(Locale.ROOT, "{\"timestamp\":\"2026-12-02T00:00:00Z\",\"request_id\":\"%s\","
        + "\"model_name\":\"m\",\"status\":\"success\",\"latency_ms\":1000,\"input_tokens\":%d,\"queue_ms\":0,"
        + "\"gpu_ms\":10,\"gpu_ms_method\":\"weighted\",\"launch_count\":20,\"tpot_ms\":%.1f%s}", id, inputTokens,
        tpotMs, slowedBy == null ? "" : ",\"slowed_by\":[{\"request_id\":\"" + slowedBy + "\",\"prefill_tokens\":2048}]");
  }

  @Test
  void victimsAreJudgedByTheStepsCpuTimeNotByWallTimeThatContentionStretches() throws IOException {
    List<String> launches = new ArrayList<>();
    long id = 1;
    // Ten calm requests, 20 decode steps of 1 ms CPU each; for calm-0 and calm-1 another process took the
    // core half of the time: 20 ms by the clock (TPOT 20x the others'), 1 ms of engine work.
    for (int c = 0; c < 10; c++) {
      for (int s = 0; s < 20; s++) {
        launches.add(launch(id++, 1.0, c < 2 ? 20.0 : 1.0, null, "calm-" + c));
      }
    }
    // Two victims: 20 decode steps, 10 of them beside doc's prefill (15 ms CPU each, 1 ms without). By the
    // clock the busy machine stretched their steps without a prefill to 12 ms, so wall says 15/12 = 1.25x.
    for (int s = 0; s < 20; s++) {
      launches.add(s % 2 == 0 ? launch(id++, 15.0, 15.0, "doc", "victim-0", "victim-1")
          : launch(id++, 1.0, 12.0, null, "victim-0", "victim-1"));
    }
    List<String> records = new ArrayList<>();
    for (int c = 0; c < 10; c++) {
      records.add(record("calm-" + c, 100, c < 2 ? 20.0 : 1.0, null));
    }
    records.add(record("victim-0", 100, 13.5, "doc"));
    records.add(record("victim-1", 100, 13.5, "doc"));
    records.add(record("doc", 2048, 1.0, null));
    Path log = dir.resolve("inference.log");
    Files.write(log, records, StandardCharsets.UTF_8);
    Files.write(DemoService.launchLog(log), launches, StandardCharsets.UTF_8);

    BatchFindings f = BatchFindings.read(log);

    assertThat(f.medianCpuTpotMs()).isEqualTo(1.0);
    assertThat(f.victims()).extracting(v -> v.req().id()).containsExactly("victim-0", "victim-1");
    assertThat(f.victims()).allMatch(v -> v.culprit().equals("doc") && v.culpritTokens() == 2048);
    BatchFindings.Req v = f.victims().get(0).req();
    assertThat(v.decodeSteps()).isEqualTo(20);
    assertThat(v.decodeStepsWithPrefill()).isEqualTo(10);
    assertThat(v.stepCpuMsWithPrefill()).isEqualTo(15.0);
    assertThat(v.stepCpuMsAlone()).isEqualTo(1.0);
    assertThat(v.cpuTpotMs()).isEqualTo(8.0);
    assertThat(v.stepWallMsAlone()).isEqualTo(12.0); // what the wall clock said
    assertThat(f.stepRatio()).isEqualTo(15.0);
    assertThat(f.culprits()).containsExactly(new BatchFindings.Culprit("doc", 2048, 2));
  }

  @Test
  void noVictimWhenNeighboursPrefillCostNothingExtra() throws IOException {
    List<String> launches = new ArrayList<>();
    long id = 1;
    for (int s = 0; s < 20; s++) { // beside a prefill or not, every step costs the same CPU time
      launches.add(launch(id++, 2.0, s % 2 == 0 ? 40.0 : 2.0, s % 2 == 0 ? "doc" : null, "a", "b"));
    }
    for (int s = 0; s < 20; s++) {
      launches.add(launch(id++, 1.0, 1.0, null, "c", "d"));
    }
    Path log = dir.resolve("inference.log");
    Files.write(log, List.of(record("a", 10, 21, "doc"), record("b", 10, 21, "doc"), record("c", 10, 1, null),
        record("d", 10, 1, null)), StandardCharsets.UTF_8);
    Files.write(DemoService.launchLog(log), launches, StandardCharsets.UTF_8);

    assertThat(BatchFindings.read(log).victims()).isEmpty();
  }
  /** One busy engine: most decode steps carry a prefill, so the median request is slowed too (failed before: none). */
  @Test
  void whenMostRequestsAreSlowedEachIsJudgedAgainstItsOwnDecodeOnlySteps() throws IOException {
    List<String> launches = new ArrayList<>();
    List<String> records = new ArrayList<>();
    long id = 1;
    for (int c = 0; c < 10; c++) {
      for (int s = 0; s < 20; s++) { // 15 of 20 steps beside doc's prefill: 15 ms CPU; the others 1 ms
        launches.add(s < 15 ? launch(id++, 15.0, 15.0, "doc", "busy-" + c) : launch(id++, 1.0, 1.0, null, "busy-" + c));
      }
      records.add(record("busy-" + c, 100, 11.5, "doc"));
    }
    Path log = dir.resolve("inference.log");
    Files.write(log, records, StandardCharsets.UTF_8);
    Files.write(DemoService.launchLog(log), launches, StandardCharsets.UTF_8);

    BatchFindings f = BatchFindings.read(log);

    assertThat(f.medianCpuTpotMs()).isEqualTo(11.5); // every request alike: 2x the median names none
    assertThat(f.victims()).hasSize(10).allMatch(v -> v.culprit().equals("doc"));
    assertThat(f.baselineCpuMs(f.victims().get(0).req())).isEqualTo(1.0);
  }
}
