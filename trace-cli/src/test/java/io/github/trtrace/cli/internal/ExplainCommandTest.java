package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trtrace explain} on logs written by the real tracer ({@link BatchedLog}): the sentence names the
 * culprits by request ID with the numbers the schedule produced, says when there is nothing to explain,
 * when the launch log is missing or partial, and flags a launch whose shares do not add up.
 */
class ExplainCommandTest {
  static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir static Path dir;
  static Path plain;
  static BatchedLog log;

  @BeforeAll
  static void logs() throws IOException {
    plain = Files.createDirectories(dir.resolve("plain"));
    log = new BatchedLog(plain, 0);
  }

  static JsonNode record(String id) throws IOException {
    for (String line : Files.readAllLines(log.records)) {
      JsonNode n = MAPPER.readTree(line);
      if (n.get("request_id").asText().equals(id)) {
        return n;
      }
    }
    throw new AssertionError(id + " not in " + log.records);
  }

  /** The median as the CLI takes it: the value at the 50th percentile (the lower middle of an even count). */
  static double median(String field) throws IOException {
    List<Double> v = new ArrayList<>();
    for (String line : Files.readAllLines(log.records)) {
      JsonNode n = MAPPER.readTree(line);
      if (n.get("status").asText().equals("success") && n.has(field)) {
        v.add(n.get(field).asDouble());
      }
    }
    v.sort(null);
    return v.get((v.size() + 1) / 2 - 1);
  }

  /** The sentence the schedule's own tally predicts for the victim's batch neighbours. */
  static String expectedNeighbours() {
    return expectedNeighbours(log);
  }

  static String expectedNeighbours(BatchedLog log) {
    List<Map.Entry<String, int[]>> n = new ArrayList<>(log.victimNeighbours.entrySet());
    n.sort((a, b) -> b.getValue()[0] - a.getValue()[0]);
    List<String> named = new ArrayList<>();
    for (Map.Entry<String, int[]> e : n) {
      named.add(String.format(Locale.ROOT, "%s (%,d prefill tokens in %d of those steps)", e.getKey(), e.getValue()[1],
          e.getValue()[0]));
    }
    return log.victimDecodeStepsWithPrefill + " of its " + log.victimDecodeSteps
        + " decode steps shared the batch with another request's prefill: " + String.join(", ", named);
  }

  @Test
  void namesTheCulpritsByIdWithTheNumbersOfTheSchedule() throws IOException {
    Cli r = Cli.run("explain", BatchedLog.VICTIM, plain.toString());
    assertThat(r.code()).as(r.err()).isZero();
    String sentence = r.out().lines().skip(1).findFirst().orElseThrow();
    JsonNode rec = record(BatchedLog.VICTIM);
    double tpot = rec.get("tpot_ms").asDouble();
    double median = median("tpot_ms");
    assertThat(tpot / median).isGreaterThan(Explanation.SLOW_RATIO);
    assertThat(sentence).startsWith("  req-victim was slow: " + String.format(Locale.ROOT,
        "TPOT %.1fx the median (%.1f ms against %.1f ms)", tpot / median, tpot, median));
    // the culprits: the two long prompts, by ID, with their tokens and steps as the schedule counted them
    assertThat(log.victimNeighbours).containsOnlyKeys(BatchedLog.LONG_1, BatchedLog.LONG_2);
    assertThat(sentence).contains(expectedNeighbours() + "; those steps took "
        + Fmt.ms(log.victimMixedStepMsSum / log.victimDecodeStepsWithPrefill) + " on average, its decode-only steps "
        + Fmt.ms(log.victimDecodeOnlyStepMsSum / (log.victimDecodeSteps - log.victimDecodeStepsWithPrefill)));
    assertThat(sentence).contains("waited " + Fmt.ms(log.victimSlotWaitMs) + " for a batch slot");
    assertThat(sentence).contains("preempted once (" + BatchedLog.PREEMPT_REASON + "), " + Fmt.ms(log.victimPreemptedMs)
        + " until it ran again");
    assertThat(log.victimSlotWaitMs).isPositive();
    assertThat(log.victimPreemptedMs).isPositive();
    assertThat(r.out()).contains("launches: all " + log.victimLaunches + " of its launches found in the launch log",
        "the members' share_ms add up to gpu_ms");
    assertThat(r.out()).doesNotContain("WARNING");
  }

  @Test
  void aFastRequestHasNothingToExplain() {
    Cli r = Cli.run("explain", BatchedLog.FAST, plain.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("req-fast-3 was not slow, nothing to explain: TPOT 1.00x, TTFT 1.00x, latency 1.00x the"
        + " medians of 14 successful requests (slow means 1.5x).");
    assertThat(r.out()).doesNotContain("was slow:");
  }

  @Test
  void withoutTheLaunchLogSaysSoAndFallsBackOnTheRecord() throws IOException {
    Cli r = Cli.run("explain", BatchedLog.VICTIM, log.records.toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode rec = record(BatchedLog.VICTIM);
    long count = rec.get("launch_count").asLong();
    assertThat(count).isEqualTo(log.victimLaunches);
    assertThat(r.out()).contains("no launch log among the inputs: 0 of its " + count + " launches found");
    int[] long1 = log.victimNeighbours.get(BatchedLog.LONG_1);
    assertThat(r.out()).contains(rec.get("neighbour_prefill_launches").asInt() + " of its " + count
        + " launches carried other requests' prefill, by its record: " + String.format(Locale.ROOT,
        "req-long-1 (%,d prefill tokens in %d launches)", long1[1], long1[0]));
  }

  @Test
  void withAPartialLaunchLogSaysHowManyOfItsLaunchesWereFound() throws IOException {
    Path partial = Files.createDirectories(dir.resolve("partial"));
    Files.copy(log.records, partial.resolve("inference.log"));
    List<String> kept = new ArrayList<>();
    List<String> lines = Files.readAllLines(log.launches);
    for (int i = 0; i < lines.size(); i += 2) {
      kept.add(lines.get(i));
    }
    Files.write(partial.resolve("launches.log"), kept);
    long found = kept.stream().filter(l -> l.contains("\"request_id\":\"" + BatchedLog.VICTIM + "\"")).count();
    assertThat(found).isPositive().isLessThan(log.victimLaunches);
    Cli r = Cli.run("explain", BatchedLog.VICTIM, partial.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("launch log partial: " + found + " of its " + log.victimLaunches + " launches found");
  }

  @Test
  void flagsALaunchWhoseSharesDoNotAddUp() throws IOException {
    Path tampered = Files.createDirectories(dir.resolve("tampered"));
    Files.copy(log.records, tampered.resolve("inference.log"));
    List<String> lines = new ArrayList<>(Files.readAllLines(log.launches));
    Pattern share = Pattern.compile("(\\{\"request_id\":\"req-victim\",\"decode_rows\":1,\"share_ms\":)([0-9.]+)");
    int at = -1;
    for (int i = 0; i < lines.size() && at < 0; i++) {
      Matcher m = share.matcher(lines.get(i));
      if (m.find()) {
        at = i;
        double changed = Double.parseDouble(m.group(2)) + 1.5;
        lines.set(i, m.replaceFirst("$1" + String.format(Locale.ROOT, "%.3f", changed)));
      }
    }
    assertThat(at).isNotNegative();
    Files.write(tampered.resolve("launches.log"), lines);
    JsonNode launch = MAPPER.readTree(lines.get(at));
    Cli r = Cli.run("explain", BatchedLog.VICTIM, tampered.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("WARNING shares do not add up in 1 of its " + log.victimLaunches + " checked launches",
        String.format(Locale.ROOT, "launch %d: its %d members' share_ms add up to %.3f ms, not its gpu_ms %.3f ms (off by 1.500 ms)",
            launch.get("launch_id").asLong(), launch.get("members").size(), launch.get("gpu_ms").asDouble() + 1.5,
            launch.get("gpu_ms").asDouble()));
    Cli stats = Cli.run("stats", tampered.toString());
    assertThat(stats.out()).contains("WARNING: in 1 of " + log.launchCount + " checked launches the members' share_ms do"
        + " not add up to gpu_ms, e.g. launch " + launch.get("launch_id").asLong());
  }

  @Test
  void readsRotatedGzippedLogsAsThePlainOnes() throws IOException {
    Path rotated = Files.createDirectories(dir.resolve("rotated"));
    BatchedLog again = new BatchedLog(rotated, 8 * 1024);
    List<String> names;
    try (Stream<Path> s = Files.list(rotated)) {
      names = s.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(names).contains("launches.log", "launches.log.1.gz", "launches.log.2.gz");
    assertThat(again.victimNeighbours.keySet()).isEqualTo(log.victimNeighbours.keySet());
    String fromPlain = Cli.run("explain", BatchedLog.VICTIM, plain.toString()).out().lines().skip(1).findFirst().orElseThrow();
    Cli r = Cli.run("explain", BatchedLog.VICTIM, rotated.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().skip(1).findFirst().orElseThrow()).isEqualTo(fromPlain).contains(expectedNeighbours());
    assertThat(r.out()).contains("all " + log.victimLaunches + " of its launches found");
  }

  @Test
  void listsItsLaunchesOnRequest() {
    Cli r = Cli.run("explain", "--launches", BatchedLog.VICTIM, plain.toString());
    assertThat(r.code()).as(r.err()).isZero();
    String table = r.out().substring(r.out().indexOf("its launches (+ms"));
    assertThat(table.lines().skip(2).count()).isEqualTo(log.victimLaunches);
    assertThat(table).contains("prefill 64", "decode", "req-long-1 64", "mixed (2 passes)");
    assertThat(table).doesNotContain("decode (");
  }

  @Test
  void findReadsTheLaunchLogBesideTheRecordsWithoutCallingItMalformed() {
    Cli r = Cli.run("find", "req-nobody", plain.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("14 records, " + log.launchCount + " launch-log lines").doesNotContain("malformed");
  }

  @Test
  void anUnknownRequestExitsWithOne() {
    Cli r = Cli.run("explain", "req-nobody", plain.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("request req-nobody not found", "14 records", log.launchCount + " launch-log lines");
  }

  @Test
  void statsReportsTheBatchLevelFinding() throws IOException {
    JsonNode j = MAPPER.readTree(Cli.run("stats", "--json", plain.toString()).out());
    JsonNode b = j.get("batching");
    assertThat(j.at("/read/records").asInt()).isEqualTo(14);
    assertThat(j.at("/read/launch_lines").asInt()).isEqualTo(log.launchCount);
    assertThat(j.at("/read/malformed").asInt()).isZero();
    assertThat(b.get("launches").asInt()).isEqualTo(log.launchCount);
    // a decode-only step is STEP_MS; a mixed one carries one 64-token chunk (two overlapping chunks never happen here)
    assertThat(b.at("/decode_only_step/p99_ms").asDouble()).isEqualTo(BatchedLog.STEP_MS);
    assertThat(b.at("/mixed_step/p99_ms").asDouble())
        .isEqualTo(BatchedLog.STEP_MS + BatchedLog.MS_PER_PREFILL_TOKEN * BatchedLog.CHUNK);
    assertThat(b.get("culprits").get(0).get("request_id").asText()).isEqualTo(BatchedLog.LONG_1);
    assertThat(b.get("shares_off").asInt()).isZero();
    assertThat(b.get("shares_checked").asInt()).isEqualTo(log.launchCount);
    assertThat(b.at("/tpot_with_neighbour_prefill/p50_ms").asDouble())
        .isGreaterThan(1.5 * b.at("/tpot_without_neighbour_prefill/p50_ms").asDouble());
    String text = Cli.run("stats", plain.toString()).out();
    assertThat(text).contains("Batching (" + log.launchCount + " launches",
        "Steps mixing prefill into decode took p50 26.0 ms, p99 26.0 ms", "2.6x at p99",
        "Prefills that most often shared the steps of the", "req-long-1 (");
  }
}
