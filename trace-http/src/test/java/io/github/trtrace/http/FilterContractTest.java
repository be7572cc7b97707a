package io.github.trtrace.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.context.TraceParent;
import io.github.trtrace.testing.InMemorySink;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.MDC;

/**
 * What both filters must do, over real HTTP on loopback. Subclasses start a real server with two
 * endpoints: {@code /echo} answers {@link #echo}, {@code /reject} rejects with 429 and {@code /unavailable}
 * with 503.
 */
abstract class FilterContractTest {
  static final String GENERATED = "req-[0-9a-z]{24}";
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  InMemorySink sink;
  InferenceTracer tracer;
  URI base;

  /** Starts the server on an ephemeral loopback port and returns its base URI ({@code http://127.0.0.1:port}). */
  abstract URI start(InferenceTracer tracer) throws Exception;

  abstract void stop() throws Exception;

  /** What {@code /echo} answers: the handler's view of the request, and one trace started for it. */
  static String echo(TracedRequest r, InferenceTracer tracer) {
    try (InferenceTrace t = r.startTrace(tracer, "echo-model")) {
      t.outputTokens(1);
    }
    return "context=" + RequestContext.current().requestId() + "\nmdc=" + MDC.get("request_id")
        + "\nrequest=" + r.requestId();
  }

  /** What {@code /tracestate} answers: the {@code tracestate} the handler's request kept, raw and parsed. */
  static String traceStates(TracedRequest r) {
    return r.traceState() + "|" + r.traceParent().map(TraceParent::traceState).orElse(null);
  }

  @BeforeEach
  void startServer() throws Exception {
    sink = InMemorySink.create();
    tracer = InferenceTracer.builder().sink(sink).build();
    base = start(tracer);
  }

  @AfterEach
  void stopServer() throws Exception {
    stop();
    tracer.close();
  }

  HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  List<InferenceRecord> records() {
    tracer.flush().orTimeout(10, TimeUnit.SECONDS).join();
    return sink.records();
  }

  @Test
  void aValidCallerIdIsEchoedCurrentInTheHandlerAndInTheMdcAndOnTheRecord() throws Exception {
    HttpResponse<String> r = get("/echo", RequestIds.HEADER, "api-demo-0007");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly("api-demo-0007");
    assertThat(r.body()).isEqualTo("context=api-demo-0007\nmdc=api-demo-0007\nrequest=api-demo-0007");
    assertThat(records()).singleElement().satisfies(rec -> {
      assertThat(rec.requestId()).isEqualTo("api-demo-0007");
      assertThat(rec.attributes()).doesNotContainKey(RequestIds.REJECTED_ATTRIBUTE);
    });
  }

  @Test
  void withoutACallerIdOneIsGeneratedEchoedAndUsedEverywhere() throws Exception {
    HttpResponse<String> r = get("/echo");

    String id = r.headers().firstValue(RequestIds.HEADER).orElseThrow();
    assertThat(id).matches(GENERATED);
    assertThat(r.body()).isEqualTo("context=" + id + "\nmdc=" + id + "\nrequest=" + id);
    assertThat(records()).singleElement().satisfies(rec -> assertThat(rec.requestId()).isEqualTo(id));
  }

  static Stream<String> hostileIds() {
    return Stream.of(
        "x".repeat(10 * 1024),                                               // 10 KB
        "evil%0D%0AX-Injected:%20yes",                                       // encoded CRLF
        "<script>alert(1)</script>",
        "caf\u00e9-\u00ff",                                                  // Latin-1
        new String("\u202Eevil-\u4e2d\u6587".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1),
        "id with spaces and \"quotes\"");
  }

  @ParameterizedTest
  @MethodSource("hostileIds")
  void aHostileCallerIdIsReplacedAndKeptOnlySanitized(String hostile) throws Exception {
    HttpResponse<String> r = get("/echo", RequestIds.HEADER, hostile);

    assertThat(r.statusCode()).isEqualTo(200);
    String id = r.headers().firstValue(RequestIds.HEADER).orElseThrow();
    assertThat(id).matches(GENERATED);
    assertThat(r.headers().firstValue("X-Injected")).isEmpty();
    assertThat(r.body()).startsWith("context=" + id + "\n");
    InferenceRecord rec = records().get(0);
    assertThat(rec.requestId()).isEqualTo(id);
    assertThat(rec.attributes().get(RequestIds.REJECTED_ATTRIBUTE))
        .isNotNull()
        .matches("[A-Za-z0-9._:@/+=_-]{1,64}\u2026?");
  }

  @Test
  void twoCallerIdsAreAmbiguousAndReplaced() throws Exception {
    HttpResponse<String> r = get("/echo", RequestIds.HEADER, "api-a", RequestIds.HEADER, "api-b");

    assertThat(r.headers().allValues(RequestIds.HEADER)).singleElement().asString().matches(GENERATED);
    assertThat(records().get(0).attributes().get(RequestIds.REJECTED_ATTRIBUTE)).isEqualTo("api-a_api-b");
  }

  @Test
  void rawControlCharactersAndABareCarriageReturnNeverReachTheResponse() throws Exception {
    // java.net.http refuses to send these, so write the request by hand.
    String response = raw("GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-ID: a\u0001b\rX-Injected: yes\r\n"
        + "Connection: close\r\n\r\n");

    assertThat(response).doesNotContainIgnoringCase("X-Injected").doesNotContain("\u0001");
    if (response.startsWith("HTTP/1.1 200")) { // the server let it through: the filter must have replaced it
      assertThat(response).containsPattern("(?i)x-request-id: " + GENERATED + "\r\n");
    } else { // or the server refused the request line itself
      assertThat(response).startsWith("HTTP/1.1 400");
    }
  }

  @Test
  void aValidTraceparentLinksTheRecordToTheCallersSpan() throws Exception {
    get("/echo", RequestIds.HEADER, "api-linked", TraceParent.HEADER, TRACEPARENT);

    InferenceRecord rec = records().get(0);
    assertThat(rec.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(rec.spanId()).isEqualTo("00f067aa0ba902b7");
  }

  @Test
  void anInvalidTraceparentIsIgnored() throws Exception {
    get("/echo", RequestIds.HEADER, "api-unlinked", TraceParent.HEADER, TRACEPARENT.toUpperCase());

    InferenceRecord rec = records().get(0);
    assertThat(rec.requestId()).isEqualTo("api-unlinked");
    assertThat(rec.traceId()).isNull();
  }

  @Test
  void twoTraceparentHeadersAreIgnoredTogether() throws Exception {
    // W3C Trace Context's test suite (test_traceparent_duplicated): two traceparent headers are invalid,
    // the request starts a new trace; its tracestate goes with them
    get("/echo", RequestIds.HEADER, "api-two-parents", TraceParent.HEADER, TRACEPARENT,
        TraceParent.HEADER, "00-12345678901234567890123456789012-1234567890123456-01",
        TraceParent.TRACESTATE_HEADER, "congo=t61rcWkgMzE");

    InferenceRecord rec = records().get(0);
    assertThat(rec.requestId()).isEqualTo("api-two-parents");
    assertThat(rec.traceId()).isNull();
    assertThat(rec.spanId()).isNull();
  }

  @Test
  void aRejectedRequestIsAnswered429WithItsIdAndLeavesARejectedRecord() throws Exception {
    HttpResponse<String> r = get("/reject", RequestIds.HEADER, "api-demo-0429");

    assertThat(r.statusCode()).isEqualTo(429);
    assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly("api-demo-0429");
    assertThat(r.body()).isEqualTo("{\"error\":\"too_many_requests\",\"request_id\":\"api-demo-0429\"}");
    assertThat(records()).singleElement().satisfies(rec -> {
      assertThat(rec.requestId()).isEqualTo("api-demo-0429");
      assertThat(rec.status()).isEqualTo(Status.REJECTED);
      assertThat(rec.attributes()).containsEntry("http_status", "429");
    });
  }

  @Test
  void aSaturatedServiceAnswers503WithTheIdAndARejectedRecord() throws Exception {
    HttpResponse<String> r = get("/unavailable", RequestIds.HEADER, "api-demo-0503");

    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.headers().allValues(RequestIds.HEADER)).containsExactly("api-demo-0503");
    assertThat(r.body()).isEqualTo("{\"error\":\"service_unavailable\",\"request_id\":\"api-demo-0503\"}");
    assertThat(records()).singleElement().satisfies(rec -> {
      assertThat(rec.status()).isEqualTo(Status.REJECTED);
      assertThat(rec.attributes()).containsEntry("http_status", "503");
    });
  }

  @Test
  void aRejectionWithAHostileIdEchoesTheGeneratedOne() throws Exception {
    HttpResponse<String> r = get("/reject", RequestIds.HEADER, "x".repeat(10 * 1024));

    String id = r.headers().firstValue(RequestIds.HEADER).orElseThrow();
    assertThat(id).matches(GENERATED);
    assertThat(r.body()).contains("\"request_id\":\"" + id + "\"");
    InferenceRecord rec = records().get(0);
    assertThat(rec.requestId()).isEqualTo(id);
    assertThat(rec.attributes().get(RequestIds.REJECTED_ATTRIBUTE)).isEqualTo("x".repeat(64) + "\u2026");
  }

  String raw(String request) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), base.getPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      byte[] b = new byte[4096];
      for (int n; (n = in.read(b)) > 0; ) {
        buf.write(b, 0, n);
      }
      return buf.toString(StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void severalTracestateHeadersAreCombinedInOrder() throws Exception {
    // W3C Trace Context: several tracestate headers are allowed and combined as one list (RFC 7230)
    HttpResponse<String> r = get("/tracestate", TraceParent.HEADER, TRACEPARENT,
        TraceParent.TRACESTATE_HEADER, "congo=t61rcWkgMzE", TraceParent.TRACESTATE_HEADER, "rojo=00f067aa0ba902b7");

    assertThat(r.body()).isEqualTo(
        "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7|congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
  }

  @Test
  void oneTracestateHeaderIsKeptAsReceived() throws Exception {
    HttpResponse<String> r = get("/tracestate", TraceParent.HEADER, TRACEPARENT,
        TraceParent.TRACESTATE_HEADER, "congo=t61rcWkgMzE");

    assertThat(r.body()).isEqualTo("congo=t61rcWkgMzE|congo=t61rcWkgMzE");
  }
}
