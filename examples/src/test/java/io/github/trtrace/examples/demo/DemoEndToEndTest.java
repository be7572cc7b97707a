package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import io.github.trtrace.cli.internal.LogAnalysis;
import io.github.trtrace.core.context.RequestIds;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo service for real: started on an ephemeral loopback port, called over HTTP with
 * {@code java.net.http}, its log read back and validated; then a small open-loop load through the demo's
 * own driver, whose analysis must find the knee and the bidi correlation.
 */
class DemoEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GENERATED = "req-[0-9a-z]{24}";
  /** Stats' wall-clock knee: "knee at 1,185 tokens" (the demo's line on it) and "more than 1,185 input tokens, the knee". */
  private static final Pattern KNEE =
      Pattern.compile("wall-clock fit .*knee at ([0-9,]+) tokens|more than ([0-9,]+) input tokens, the knee");
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private static String words(int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append(Words.VOCABULARY.get((i * 31) % Words.VOCABULARY.size())).append(' ');
    }
    return b.toString().trim();
  }

  private HttpRequest post(URI base, String id, String prompt, int maxTokens) throws Exception {
    byte[] body = JSON.writeValueAsBytes(Map.of("prompt", prompt, "max_tokens", maxTokens));
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(DemoService.PATH))
        .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (id != null) {
      b.header(RequestIds.HEADER, id);
    }
    return b.build();
  }

  private static JsonSchema schema() throws Exception {
    try (InputStream in = DemoService.class.getResourceAsStream("/io/github/trtrace/core/inference-record.schema.json")) {
      assertThat(in).as("record schema on the class path").isNotNull();
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    }
  }

  @Test
  void theServiceEchoesIdsRejectsOverloadWith429AndLogsOneValidLinePerRequest(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("logs/inference.log");
    Backend backend = new CpuBackend(Tokenizer.standard());
    DemoService.Config config = new DemoService.Config(0, 1, 1, log);
    List<String> ok = new ArrayList<>();
    List<HttpResponse<String>> overload = new ArrayList<>();
    String hostileServedAs;
    String garbledText;
    try (DemoService service = DemoService.start(config, backend, line -> {})) {
      URI base = service.uri();

      HttpResponse<String> plain = client.send(post(base, "api-e2e-0001", "please summarise the meeting notes", 8),
          HttpResponse.BodyHandlers.ofString());
      assertThat(plain.statusCode()).isEqualTo(200);
      assertThat(plain.headers().allValues(RequestIds.HEADER)).containsExactly("api-e2e-0001");
      JsonNode answer = JSON.readTree(plain.body());
      assertThat(answer.path("id").asText()).isEqualTo("api-e2e-0001");
      assertThat(answer.path("text").asText()).isNotBlank();
      assertThat(answer.path("usage").path("completion_tokens").asInt()).isBetween(1, 8);
      ok.add("api-e2e-0001");

      String hostile = "evil%0D%0AX-Injected:%20yes" + "x".repeat(10 * 1024);
      HttpResponse<String> h = client.send(post(base, hostile, "hello world", 4), HttpResponse.BodyHandlers.ofString());
      assertThat(h.statusCode()).isEqualTo(200);
      hostileServedAs = h.headers().firstValue(RequestIds.HEADER).orElseThrow();
      assertThat(hostileServedAs).matches(GENERATED);
      assertThat(h.headers().firstValue("X-Injected")).isEmpty();
      assertThat(JSON.readTree(h.body()).path("id").asText()).isEqualTo(hostileServedAs);

      HttpResponse<String> g = client.send(post(base, "api-e2e-0002", "please rewrite \u202Eolleh dlrow", 8),
          HttpResponse.BodyHandlers.ofString());
      garbledText = JSON.readTree(g.body()).path("text").asText();
      assertThat(garbledText).contains("\u202E");
      ok.add("api-e2e-0002");

      HttpResponse<String> bad = client.send(HttpRequest.newBuilder(base.resolve(DemoService.PATH))
          .header(RequestIds.HEADER, "api-e2e-0003").POST(HttpRequest.BodyPublishers.ofString("{not json"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(bad.body()).contains("\"request_id\":\"api-e2e-0003\"");

      HttpResponse<String> tooLong = client.send(post(base, "api-e2e-0004", words(4100), 8),
          HttpResponse.BodyHandlers.ofString());
      assertThat(tooLong.statusCode()).isEqualTo(400);
      assertThat(tooLong.body()).contains("context_length_exceeded", "\"request_id\":\"api-e2e-0004\"");

      // One worker and one queue place: of 12 long requests sent at once, most find no place.
      List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        inFlight.add(client.sendAsync(post(base, String.format("api-e2e-1%03d", i), words(1500), 32),
            HttpResponse.BodyHandlers.ofString()));
      }
      for (CompletableFuture<HttpResponse<String>> f : inFlight) {
        overload.add(f.join());
      }
    }

    List<HttpResponse<String>> rejected = overload.stream().filter(r -> r.statusCode() == 429).toList();
    assertThat(rejected).isNotEmpty();
    for (HttpResponse<String> r : rejected) {
      String id = r.request().headers().firstValue(RequestIds.HEADER).orElseThrow();
      assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly(id);
      assertThat(r.body()).contains("\"request_id\":\"" + id + "\"");
    }
    assertThat(overload).allMatch(r -> r.statusCode() == 200 || r.statusCode() == 429);

    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    JsonSchema schema = schema();
    List<JsonNode> records = new ArrayList<>();
    for (String line : lines) {
      JsonNode n = JSON.readTree(line);
      assertThat(schema.validate(n)).as(line).isEmpty();
      records.add(n);
    }
    assertThat(records).hasSize(5 + overload.size()); // every request, the bad ones too
    for (String id : ok) {
      assertThat(lines.stream().filter(l -> l.contains(id))).as("grep " + id).hasSize(1);
    }
    JsonNode hostileRec = byId(records, hostileServedAs);
    assertThat(hostileRec.path("attributes").path("rejected_request_id").asText())
        .startsWith("evil_0D_0AX-Injected:_20yes").hasSizeLessThanOrEqualTo(65);
    JsonNode garbled = byId(records, "api-e2e-0002");
    assertThat(garbled.path("input_flags").toString()).contains("bidi_control");
    assertThat(garbled.path("output_flags").toString()).contains("bidi_control", "repetition");
    assertThat(byId(records, "api-e2e-0001").path("output_flags").size()).isZero();
    assertThat(byId(records, "api-e2e-0003").path("status").asText()).isEqualTo("error");
    JsonNode tooLongRec = byId(records, "api-e2e-0004");
    assertThat(tooLongRec.path("status").asText()).isEqualTo("error");
    assertThat(tooLongRec.path("error_type").asText()).isEqualTo("context_length_exceeded");
    assertThat(tooLongRec.path("input_tokens").asInt()).isEqualTo(4100);
    for (HttpResponse<String> r : rejected) {
      JsonNode rec = byId(records, r.request().headers().firstValue(RequestIds.HEADER).orElseThrow());
      assertThat(rec.path("status").asText()).isEqualTo("rejected");
      assertThat(rec.path("attributes").path("http_status").asText()).isEqualTo("429");
    }
    for (HttpResponse<String> r : overload.stream().filter(x -> x.statusCode() == 200).toList()) {
      JsonNode rec = byId(records, r.request().headers().firstValue(RequestIds.HEADER).orElseThrow());
      assertThat(rec.path("input_tokens").asInt()).isEqualTo(1500);
      assertThat(rec.path("infer_ms").asDouble()).isPositive();
    }
  }

  @Test
  void aBackendFailureIsAnswered500AndRecordedAsAnError(@TempDir Path dir) throws Exception {
    CpuBackend cpu = new CpuBackend(Tokenizer.standard());
    Backend failing = new Backend() { // the engine fails mid-request, as a lost GPU context would
      @Override public String modelName() { return cpu.modelName(); }
      @Override public String description() { return "fails"; }
      @Override public int maxContext() { return cpu.maxContext(); }
      @Override public Tokenizer tokenizer() { return cpu.tokenizer(); }
      @Override public int[] generate(io.github.trtrace.core.InferenceTrace t, int[] p, int max,
          java.util.function.IntConsumer onToken) {
        throw new IllegalStateException("engine lost");
      }
      @Override public void close() {}
    };
    Path log = dir.resolve("inference.log");
    HttpResponse<String> r;
    try (DemoService service = DemoService.start(new DemoService.Config(0, 1, 1, log), failing, line -> {})) {
      r = client.send(post(service.uri(), "api-e2e-0500", "hello world", 4), HttpResponse.BodyHandlers.ofString());
    }
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.body()).contains("\"request_id\":\"api-e2e-0500\"");
    JsonNode rec = JSON.readTree(Files.readAllLines(log, StandardCharsets.UTF_8).get(0));
    assertThat(rec.path("status").asText()).isEqualTo("error");
    assertThat(rec.path("error_type").asText()).isEqualTo("java.lang.IllegalStateException");
  }

  private static JsonNode byId(List<JsonNode> records, String id) {
    List<JsonNode> found = records.stream().filter(r -> r.path("request_id").asText().equals(id)).toList();
    assertThat(found).as(id).hasSize(1);
    return found.get(0);
  }

  @Test
  void aSmallDemoLoadLetsTheAnalysisFindTheKneeTheBidiCorrelationAndTheBurst(@TempDir Path dir) throws Exception {
    Demo.Options o = new Demo.Options(dir.resolve("inference.log"), 80, 20, 0.3, 8, 11L, 0, 1, 16,
        LoadGenerator.Mix.EVEN);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Demo.Result result = Demo.run(o, new PrintStream(printed, true, StandardCharsets.UTF_8));
    LogAnalysis a = result.analysis();
    String text = printed.toString(StandardCharsets.UTF_8);

    assertThat(a.records()).as(text).isEqualTo(result.outcomes().size());
    // Field case 1 from each request's CPU-time compute share: a knee, and the long inputs compute most.
    BatchFindings batch = BatchFindings.read(o.log());
    assertThat(batch.knee()).as(text).isNotNull();
    assertThat(batch.knee().found()).as(text).isTrue();
    // inside the even mix's inputs (8 to 2,408 words), not at a fixed place: the per-token compute rises smoothly
    // (attention over a longer context), so the two-segment fit's break moves from run to run; in the CI run of
    // 2026-12-06 12:42 UTC, on an otherwise idle machine, it fell at 2,140 tokens, past the former bound of 2,048
    assertThat(batch.knee().tokens()).as(text).isBetween(256.0, 2408.0);
    assertThat(text).contains(String.format(java.util.Locale.ROOT,
        "compute per token rises past a knee at %,.0f input tokens", batch.knee().tokens()));
    assertThat(batch.requests().stream().sorted(java.util.Comparator.comparingDouble(BatchFindings.Req::computeCpuMs)
        .reversed()).limit(10).filter(r -> r.inputTokens() >= Analysis.LONG_INPUT))
        .as(text).hasSizeGreaterThanOrEqualTo(6); // 58% of these inputs are that long
    LogAnalysis.Garbled g = a.garbled();
    assertThat(g.outputFlagged()).as(text).isPositive();
    assertThat(g.inputFlag()).as(text).isEqualTo("bidi_control");
    assertThat(g.withInputFlag()).as(text).isEqualTo(g.outputFlagged());
    // Field case 3: victims and the culprit named from the records, and the culprit's record is a long prompt.
    assertThat(batch.victims()).as(text).isNotEmpty();
    BatchFindings.Culprit culprit = batch.culprits().get(0);
    assertThat(culprit.inputTokens()).as(text).isGreaterThanOrEqualTo(256);
    assertThat(text).contains("3. Long prompts arriving while others decode inflate their TPOT",
        "victim " + batch.victims().get(0).req().id() + ": ", "culprits: " + culprit.id() + " (",
        "./trtrace find " + culprit.id() + " ");
    LogAnalysis.Rejected rejected = a.rejected();
    assertThat(rejected.count()).as(text).isPositive();
    assertThat(rejected.nearPeak()).as(text).isGreaterThanOrEqualTo((long) Math.ceil(0.8 * rejected.count()));
    assertThat(text).contains("./trtrace find api-demo-", "./trtrace find " + g.example() + " ",
        "./trtrace find " + rejected.example() + " ", "== trtrace stats ", "Slowest 10 requests");
    assertThat(Files.readString(o.log().resolveSibling("report.html"))).contains("<svg");

    // One wall-clock knee: wherever the demo and 'trtrace stats' name stats' knee, the same token count.
    Matcher m = KNEE.matcher(text);
    List<Long> knees = new ArrayList<>();
    while (m.find()) {
      knees.add(Long.parseLong((m.group(1) != null ? m.group(1) : m.group(2)).replace(",", "")));
    }
    if (a.knee().found()) {
      assertThat(knees).as(text).hasSizeGreaterThanOrEqualTo(2).containsOnly(Math.round(a.knee().tokens()));
    } else {
      assertThat(knees).as(text).isEmpty();
    }
    launchLogAddsUpAndJoinsTheRecords(o.log());
    explainNamesTheCulpritOfAVictim(o.log(), batch.victims().get(0));
  }

  /** {@code trtrace explain <victim> <records> <launch log>} on the demo's own logs names the victim's culprit. */
  private static void explainNamesTheCulpritOfAVictim(Path log, BatchFindings.Victim victim) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = io.github.trtrace.cli.TrtraceCli.run(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), "explain", victim.req().id(), log.toString(),
        DemoService.launchLog(log).toString());
    String why = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(why + err.toString(StandardCharsets.UTF_8)).isZero();
    JsonNode record = null;
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      JsonNode r = JSON.readTree(line);
      if (r.path("request_id").asText().equals(victim.req().id())) {
        record = r;
      }
    }
    assertThat(record).isNotNull();
    String shared = "decode steps shared the batch with another request's prefill: ";
    assertThat(why).as(why).contains(victim.req().id() + " was slow", shared);
    assertThat(why.substring(why.indexOf(shared))).as(why).contains(victim.culprit() + " (");
    assertThat(why).as(why).contains("launches: all " + record.path("launch_count").asInt() + " of its launches found in the launch log",
        "the members' share_ms add up to gpu_ms").doesNotContain("WARNING");
  }

  /**
   * The demo's own launch log against its records: every line is valid by the launch-log schema and its
   * members' shares add up to its measured time (conservation); every batched record's launches are all in
   * the log (as many as its {@code launch_count}, its first and last by ID), and its {@code gpu_ms} is the
   * sum of its shares there (to the rounding of values written with 3 decimals).
   */
  private static void launchLogAddsUpAndJoinsTheRecords(Path log) throws Exception {
    JsonSchema launchSchema;
    try (InputStream in = DemoService.class.getResourceAsStream("/io/github/trtrace/core/launch-log.schema.json")) {
      assertThat(in).as("launch-log schema on the class path").isNotNull();
      launchSchema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
    }
    Map<Long, JsonNode> launches = new java.util.HashMap<>();
    Map<String, List<Long>> launchesOf = new java.util.HashMap<>();
    Map<String, Double> sharesOf = new java.util.HashMap<>();
    for (String line : Files.readAllLines(DemoService.launchLog(log), StandardCharsets.UTF_8)) {
      JsonNode l = JSON.readTree(line);
      assertThat(launchSchema.validate(l)).as(line).isEmpty();
      assertThat(l.path("share_method").asText()).as(line).isEqualTo("weighted");
      assertThat(l.path("batch_size").asInt()).as(line).isEqualTo(l.path("members").size());
      double shares = 0;
      for (JsonNode member : l.path("members")) {
        String id = member.path("request_id").asText();
        shares += member.path("share_ms").asDouble();
        launchesOf.computeIfAbsent(id, k -> new ArrayList<>()).add(l.path("launch_id").asLong());
        sharesOf.merge(id, member.path("share_ms").asDouble(), Double::sum);
      }
      // exact in the tracer (ConservationPropertiesTest); the log writes ms to 3 decimals, each value within 0.5 µs
      double gpu = l.path("gpu_ms").asDouble();
      assertThat(shares).as(line).isCloseTo(gpu, org.assertj.core.data.Offset.offset(
          0.0005 * (l.path("members").size() + 1) + 1e-9));
      assertThat(launches.put(l.path("launch_id").asLong(), l)).as("one line per launch: " + line).isNull();
    }
    assertThat(launches).isNotEmpty();
    int batched = 0;
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      JsonNode r = JSON.readTree(line);
      if (r.path("launch_count").asInt() == 0) {
        continue;
      }
      batched++;
      String id = r.path("request_id").asText();
      List<Long> mine = launchesOf.getOrDefault(id, List.of());
      assertThat(mine).as(id + "'s launches in the log").hasSize(r.path("launch_count").asInt());
      assertThat(mine).as(id).contains(r.path("first_launch_id").asLong(), r.path("last_launch_id").asLong());
      assertThat(r.path("gpu_ms_method").asText()).as(id).isEqualTo("weighted");
      assertThat(r.path("gpu_ms").asDouble()).as(id).isCloseTo(sharesOf.get(id),
          org.assertj.core.data.Offset.offset(0.0005 * (mine.size() + 1) + 1e-9)); // 3 decimals, as above
    }
    assertThat(batched).isPositive();
  }
}
