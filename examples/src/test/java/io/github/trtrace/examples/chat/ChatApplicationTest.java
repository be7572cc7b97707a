package io.github.trtrace.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.testing.InMemorySink;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The sample over real HTTP on loopback, as an OpenAI client calls it (java.net.http, the SSE stream read line
 * by line), with its application.properties; the test adds an in-memory record sink, a sink it can make fail
 * and an in-memory span exporter.
 */
@SpringBootTest(
    classes = {ChatApplication.class, ChatApplicationTest.Probes.class},
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "trtrace.log.path=target/chat-test/inference.log")
@ExtendWith(OutputCaptureExtension.class)
class ChatApplicationTest {
  private static final String KEY = "Bearer demo-key";
  private static final Pattern HEX32 = Pattern.compile("[0-9a-f]{32}");

  @Autowired Environment env;
  @Autowired InMemorySink sink;
  @Autowired FailingSink failing;
  @Autowired InferenceTracer tracer;
  @Autowired InMemorySpanExporter spans;
  @Autowired SdkTracerProvider tracerProvider;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @TestConfiguration(proxyBeanMethods = false)
  static class Probes {
    @Bean
    InMemorySink memorySink() {
      return InMemorySink.create();
    }

    @Bean
    FailingSink failingSink() {
      return new FailingSink();
    }

    @Bean
    InMemorySpanExporter spanExporter() {
      return InMemorySpanExporter.create();
    }
  }

  /** A sink whose writes fail while {@code failing} is set, as a full disk makes them. */
  static final class FailingSink implements RecordSink {
    volatile boolean failing;

    @Override
    public String name() {
      return "probe";
    }

    @Override
    public void write(List<InferenceRecord> batch) throws IOException {
      if (failing) {
        throw new IOException("No space left on device");
      }
    }
  }

  @BeforeEach
  void reset() {
    failing.failing = false;
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + env.getProperty("local.server.port") + path))
        .timeout(Duration.ofSeconds(60));
  }

  private HttpRequest chat(String requestId, boolean stream, String content, int maxTokens) {
    String body = "{\"model\":\"demo-llm-cpu\",\"stream\":" + stream + ",\"max_tokens\":" + maxTokens
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]}";
    HttpRequest.Builder b = request("/v1/chat/completions").header("Authorization", KEY)
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    if (requestId != null) {
      b.header("X-Request-ID", requestId);
    }
    return b.build();
  }

  private HttpResponse<String> get(String path, String key) throws Exception {
    HttpRequest.Builder b = request(path);
    if (key != null) {
      b.header("Authorization", key);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private InferenceRecord record(String requestId) throws Exception {
    tracer.flush().get(10, TimeUnit.SECONDS);
    return sink.findByRequestId(requestId).orElseThrow(() -> new AssertionError("no record for " + requestId));
  }

  @Test
  void aWholeAnswerIsOpenAisChatCompletionWithItsRecord() throws Exception {
    HttpResponse<String> r = http.send(chat("whole-1", false, "Why is the sky blue?", 16),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("X-Request-ID")).hasValue("whole-1");
    assertThat(JsonPath.<String>read(r.body(), "$.id")).isEqualTo("chatcmpl-whole-1");
    assertThat(JsonPath.<String>read(r.body(), "$.choices[0].message.content")).isNotBlank();
    InferenceRecord rec = record("whole-1");
    assertThat(rec.status()).isEqualTo(Status.SUCCESS);
    assertThat(rec.modelName()).isEqualTo("demo-llm-cpu");
    assertThat(rec.outputTokens()).isEqualTo(JsonPath.<Integer>read(r.body(), "$.usage.completion_tokens"));
    assertThat(rec.inputTokens()).isEqualTo(JsonPath.<Integer>read(r.body(), "$.usage.prompt_tokens"));
  }

  /**
   * The record's ttft_ms against the client's time to the first SSE chunk, measured from sending the request.
   * The client's time is the sum of three parts: the way in before the trace starts (loopback, the filter chain
   * with Spring Security, body parsing), the record's ttft_ms (queue, tokenizing, prefill, writing the first
   * chunk), and the way out (the chunk crossing loopback to the client's reader). The way in is measured from
   * the record itself: its timestamp is when the trace started, on the same clock the client read when it sent
   * (one JVM, microseconds). What is left, client - way in - ttft_ms, is the way out, which the record must not
   * contain. Scheduling moves a stream's way out away from zero, up (the client's threads wait for a CPU) or down
   * (the server's thread waits between writing the chunk and taking the mark), so the stream a loaded machine
   * disturbed least bounds what the record itself gets wrong: of 5 streams, the smallest |way out| is at most
   * 80 ms. Every stream's ttft_ms is also at most the client's time (the record's interval lies inside the
   * client's). Runs on 2 cores: at load average 13, ways out of 17 to 100 ms, ways in of 10 to 34 ms, ttft_ms of
   * 238 to 674 ms; at load average 18, ways out of 31, 156, 186, 274 and 1,245 ms (a median bound of 80 ms, tried
   * first, failed there), ways in of 16 to 173 ms, ttft_ms of 554 to 1,266 ms. A ttft taken at the trace's start
   * (the 1,202-token prompt's prefill missing) moves every way out up by the prefill, 101 ms and more in these runs
   * (a CPU that prefills the prompt in under 80 ms would not tell that mistake apart); the 23 decode steps after
   * the first token take too little time here to tell a ttft taken at the trace's end apart: the paced streams of
   * trace-spring-boot's ServletApplicationTest do.
   */
  @Test
  void aStreamedAnswersTtftIsTheClientsTimeToTheFirstChunkLessTheWayInAndOut() throws Exception {
    String prompt = String.join(" ", Collections.nCopies(120, "why is the sky blue today"));
    http.send(chat("warm-up", true, prompt, 8), HttpResponse.BodyHandlers.ofString()); // JIT, connection
    List<Double> wayOut = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String id = "ttft-" + i;
      Instant sentAt = Instant.now();
      long start = System.nanoTime();
      HttpResponse<InputStream> r = http.send(chat(id, true, prompt, 24), HttpResponse.BodyHandlers.ofInputStream());
      double clientTtft = Double.NaN;
      int chunks = 0;
      boolean done = false;
      try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          if (line.startsWith("data: {") && line.contains("\"content\"")) {
            if (chunks++ == 0) {
              clientTtft = (System.nanoTime() - start) / 1e6;
            }
          } else if (line.equals("data: [DONE]")) {
            done = true;
          }
        }
      }
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("X-Request-ID")).hasValue(id);
      assertThat(done).isTrue();
      InferenceRecord rec = record(id);
      assertThat(rec.status()).isEqualTo(Status.SUCCESS);
      assertThat(rec.outputTokens()).isEqualTo(chunks);
      double wayIn = Duration.between(sentAt, rec.timestamp()).toNanos() / 1e6;
      double out = clientTtft - wayIn - rec.ttftMs();
      System.out.printf("stream %d (%d prompt tokens): client ttft %.1f ms = way in %.1f + record ttft_ms %.1f + way out %.1f%n",
          i, rec.inputTokens(), clientTtft, wayIn, rec.ttftMs(), out);
      assertThat(rec.ttftMs()).as("record ttft_ms of stream %d", i).isLessThanOrEqualTo(clientTtft);
      wayOut.add(out);
    }
    double best = wayOut.stream().mapToDouble(Math::abs).min().orElseThrow();
    assertThat(best).as("the smallest |way out|, ms, of %s", wayOut).isLessThanOrEqualTo(80);
  }

  @Test
  void hostileRequestIdsAreReplacedAndTheReplacementIsEchoedAndRecorded() throws Exception {
    for (String hostile : List.of("x\"><script>alert(1)</script>", "a b", "é-unicode",
        "x".repeat(300), "'; DROP TABLE records;--")) {
      HttpResponse<String> r = http.send(chat(hostile, false, "hello", 4), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      String id = r.headers().firstValue("X-Request-ID").orElseThrow();
      assertThat(id).isNotEqualTo(hostile).startsWith("req-").matches("[A-Za-z0-9._:-]{1,64}");
      assertThat(JsonPath.<String>read(r.body(), "$.id")).isEqualTo("chatcmpl-" + id);
      assertThat(record(id).attributes().get("rejected_request_id")).isNotNull().doesNotContain("<", "\"", " ");
    }
  }

  @Test
  void healthAndTheTrtraceEndpointReportASinkMadeToFail() throws Exception {
    http.send(chat("sink-ok", false, "hello", 4), HttpResponse.BodyHandlers.ofString());
    record("sink-ok");
    assertThat(JsonPath.<String>read(get("/actuator/health", null).body(), "$.components.trtrace.status"))
        .isEqualTo("UP");
    failing.failing = true;
    http.send(chat("sink-failing", false, "hello", 4), HttpResponse.BodyHandlers.ofString());
    record("sink-failing"); // the in-memory sink has it; the probe failed on the same batch
    HttpResponse<String> health = get("/actuator/health", null);
    assertThat(health.statusCode()).isEqualTo(503);
    assertThat(JsonPath.<String>read(health.body(), "$.components.trtrace.status")).isEqualTo("DOWN");
    assertThat(JsonPath.<String>read(health.body(), "$.components.trtrace.details.sinks.probe.lastError"))
        .contains("No space left on device");
    assertThat(get("/actuator/trtrace", null).statusCode()).isEqualTo(401); // behind the API key
    String endpoint = get("/actuator/trtrace", KEY).body();
    assertThat(JsonPath.<String>read(endpoint, "$.status")).isEqualTo("DOWN");
    assertThat(JsonPath.<Integer>read(endpoint, "$.health.sinks.probe.failures")).isGreaterThanOrEqualTo(1);
    failing.failing = false;
    http.send(chat("sink-back", false, "hello", 4), HttpResponse.BodyHandlers.ofString());
    record("sink-back");
    assertThat(JsonPath.<String>read(get("/actuator/health", null).body(), "$.components.trtrace.status"))
        .isEqualTo("UP");
  }

  @Test
  void theApplicationsLogLinesCarryRequestIdAndBootsTraceIdOfTheRecord(CapturedOutput output) throws Exception {
    http.send(chat("mdc-1", false, "hello", 4), HttpResponse.BodyHandlers.ofString());
    InferenceRecord rec = record("mdc-1");
    assertThat(rec.traceId()).matches(HEX32);
    assertThat(output.getOut()).containsPattern(
        "request_id=mdc-1 traceId=" + rec.traceId() + " - chat completion: 1 messages");
  }

  /**
   * Issue 20, item 2: Spring Security rejects a request without the key (401) after trtrace's filter ran, so the
   * answer echoes its ID and the rejection's log line has request_id and Boot's traceId; an accepted request's
   * span is an INTERNAL child of the one SERVER span Boot's HTTP observation created.
   */
  @Test
  void aRequestRejectedBySpringSecurityKeepsItsIdAndTraceAndTheRequestSpanNestsUnderBootsServerSpan(
      CapturedOutput output) throws Exception {
    HttpRequest anonymous = request("/v1/chat/completions").header("X-Request-ID", "no-key-1")
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"messages\":[{\"content\":\"hi\"}]}")).build();
    HttpResponse<String> rejected = http.send(anonymous, HttpResponse.BodyHandlers.ofString());
    assertThat(rejected.statusCode()).isEqualTo(401);
    assertThat(rejected.headers().firstValue("X-Request-ID")).hasValue("no-key-1");
    assertThat(JsonPath.<String>read(rejected.body(), "$.error.code")).isEqualTo("invalid_api_key");
    Matcher line = Pattern.compile("request_id=no-key-1 traceId=([0-9a-f]{32}) - rejected POST /v1/chat/completions")
        .matcher(output.getOut());
    assertThat(line.find()).as("the rejection's log line in %s", output.getOut()).isTrue();
    String rejectedTrace = line.group(1);
    HttpResponse<String> generated = http.send(HttpRequest.newBuilder(anonymous, (k, v) -> !k.equals("X-Request-ID"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(generated.statusCode()).isEqualTo(401);
    assertThat(generated.headers().firstValue("X-Request-ID")).hasValueSatisfying(id -> assertThat(id).startsWith("req-"));

    http.send(chat("nested-1", false, "hello", 4), HttpResponse.BodyHandlers.ofString());
    InferenceRecord rec = record("nested-1");
    List<SpanData> trace = awaitSpans(rec.traceId(), 2);
    List<SpanData> servers = trace.stream().filter(s -> s.getKind() == SpanKind.SERVER).toList();
    assertThat(servers).as("SERVER spans of %s", trace).hasSize(1);
    SpanData request = trace.stream().filter(s -> s.getSpanId().equals(rec.spanId())).findFirst().orElseThrow();
    assertThat(request.getKind()).isEqualTo(SpanKind.INTERNAL);
    // Spring Security's observation ("secured request") spans the chain after its filters, so it may sit between
    // Boot's server span and the request span: every span between is INTERNAL and the chain ends at the server span
    List<String> ancestry = new ArrayList<>();
    SpanData up = request;
    while (!up.getParentSpanId().equals(servers.get(0).getSpanId())) {
      String parentId = up.getParentSpanId();
      up = trace.stream().filter(s -> s.getSpanId().equals(parentId)).findFirst()
          .orElseThrow(() -> new AssertionError("the request span's ancestry leaves the server span: " + trace));
      assertThat(up.getKind()).isEqualTo(SpanKind.INTERNAL);
      ancestry.add(up.getName());
    }
    System.out.println("request span " + request.getName() + " < " + ancestry + " < " + servers.get(0).getName());
    assertThat(awaitSpans(rejectedTrace, 1)).filteredOn(s -> s.getKind() == SpanKind.SERVER).hasSize(1);
  }

  /** The spans of {@code traceId} once at least {@code count} have ended and been exported. */
  private List<SpanData> awaitSpans(String traceId, int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    List<SpanData> found;
    do {
      tracerProvider.forceFlush().join(10, TimeUnit.SECONDS);
      found = spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
      if (found.size() >= count) {
        return found;
      }
      Thread.sleep(20);
    } while (System.nanoTime() < deadline);
    return found;
  }
}
