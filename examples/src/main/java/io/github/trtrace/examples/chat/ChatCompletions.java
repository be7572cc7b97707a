package io.github.trtrace.examples.chat;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.examples.demo.DemoModel;
import io.github.trtrace.http.ServletTracing;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;
import tools.jackson.databind.json.JsonMapper;

/**
 * OpenAI's {@code POST /v1/chat/completions} on the demo's CPU model: the whole answer as one JSON object, or
 * ({@code "stream": true}) as server-sent events, one {@code chat.completion.chunk} per token and
 * {@code data: [DONE]} at the end. Each request is one trace, started here with the ID the starter's filter
 * decided; a streamed answer is written and flushed token by token, so the record's {@code ttft_ms} and
 * {@code tpot_ms} are taken when the client was sent each piece, and a client that goes away leaves a
 * {@code cancelled} record with the tokens it was sent. At most {@code chat.concurrency} answers are computed
 * at once (the rest wait under {@code queue_ms}); past {@code chat.max-waiting} waiting, 429.
 */
@RestController
class ChatCompletions {
  private static final Logger log = LoggerFactory.getLogger(ChatCompletions.class);
  private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);

  private final InferenceTracer tracer;
  private final DemoModel model;
  private final JsonMapper json;
  private final Semaphore computing;
  private final int capacity;
  private final AtomicInteger admitted = new AtomicInteger();
  private final ContextSnapshotFactory snapshots = ContextSnapshotFactory.builder().build();

  ChatCompletions(InferenceTracer tracer, DemoModel model, JsonMapper json,
      @Value("${chat.concurrency:2}") int concurrency, @Value("${chat.max-waiting:64}") int maxWaiting) {
    this.tracer = tracer;
    this.model = model;
    this.json = json;
    this.computing = new Semaphore(concurrency, true);
    this.capacity = concurrency + maxWaiting;
  }

  @PostMapping(path = "/v1/chat/completions", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<StreamingResponseBody> complete(@RequestBody OpenAi.ChatRequest body, HttpServletRequest request,
      HttpServletResponse response) throws IOException {
    String prompt = body.prompt();
    int maxTokens = body.maxTokensOrDefault();
    model.checkContext(prompt, maxTokens);
    if (admitted.incrementAndGet() > capacity) {
      admitted.decrementAndGet();
      ServletTracing.reject(request, response, tracer, model.name(), 429);
      return null;
    }
    InferenceTrace t = ServletTracing.request(request).startTrace(tracer, model.name());
    t.attribute("stream", Boolean.toString(body.streamed()));
    log.info("chat completion: {} messages, max_tokens {}, stream {}", body.messagesOrEmpty().size(), maxTokens,
        body.streamed());
    // Answered on Spring MVC's async executor, with this thread's context there (Boot's observation, so traceId
    // in the MDC, and the request's trace); the answer ends the trace.
    ContextSnapshot context = snapshots.captureAll();
    StreamingResponseBody answer = out -> {
      try (ContextSnapshot.Scope restored = context.setThreadLocals(); TraceScope current = t.makeCurrent()) {
        if (body.streamed()) {
          stream(t, prompt, maxTokens, out);
        } else {
          whole(t, prompt, maxTokens, out);
        }
      }
    };
    return ResponseEntity.ok()
        .contentType(body.streamed() ? MediaType.TEXT_EVENT_STREAM : MediaType.APPLICATION_JSON)
        .header("Cache-Control", "no-cache")
        .body(answer);
  }

  private void whole(InferenceTrace t, String prompt, int maxTokens, OutputStream out) throws IOException {
    byte[] json;
    try (t) { // the catch runs before the trace ends
      try {
        StringBuilder text = new StringBuilder();
        int tokens = generate(t, prompt, maxTokens, text::append);
        t.output(text);
        json = this.json.writeValueAsBytes(OpenAi.completion(t.requestId(), model.name(), text.toString(),
            model.tokens(prompt), tokens, tokens < maxTokens ? "stop" : "length"));
      } catch (RuntimeException e) {
        t.error(e);
        log.warn("chat completion failed", e);
        throw e;
      }
    }
    out.write(json);
  }

  private void stream(InferenceTrace t, String prompt, int maxTokens, OutputStream out) {
    String id = "chatcmpl-" + t.requestId();
    long created = System.currentTimeMillis() / 1000;
    int[] sent = {0};
    try (t) { // the catches run before the trace ends
      try {
        int tokens = generate(t, prompt, maxTokens, piece -> {
          write(out, OpenAi.chunk(id, created, model.name(), piece, null));
          sent[0]++;
        });
        write(out, OpenAi.chunk(id, created, model.name(), null, tokens < maxTokens ? "stop" : "length"));
        out.write(DONE);
        out.flush();
        t.outputTokens(sent[0]);
        log.info("chat completion streamed: {} tokens", sent[0]);
      } catch (ClientGone | IOException e) {
        t.status(Status.CANCELLED).outputTokens(sent[0]);
        log.info("client went away after {} tokens", sent[0]);
      } catch (RuntimeException e) {
        t.error(e);
        log.warn("chat completion failed after {} tokens", sent[0], e);
      }
    }
  }

  /** A request the model cannot answer (no messages, a bad max_tokens): 400 in OpenAI's error format. */
  @ExceptionHandler(IllegalArgumentException.class)
  ResponseEntity<Map<String, Object>> badRequest(IllegalArgumentException e) {
    return ResponseEntity.badRequest().body(OpenAi.error(e.getMessage(), "invalid_request_error"));
  }

  /** Waits for a computing slot under {@code QUEUE}, then generates. */
  private int generate(InferenceTrace t, String prompt, int maxTokens, Consumer<String> onText) {
    try {
      t.runStage(Stage.QUEUE, computing::acquire);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      admitted.decrementAndGet();
      throw new IllegalStateException("interrupted while waiting for the model", e);
    }
    try {
      return model.generate(t, prompt, maxTokens, onText);
    } finally {
      computing.release();
      admitted.decrementAndGet();
    }
  }

  /** One SSE event, flushed: when this returns, the client has been sent it. */
  private void write(OutputStream out, Map<String, Object> event) {
    try {
      out.write(("data: " + json.writeValueAsString(event) + "\n\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException e) {
      throw new ClientGone(e);
    }
  }

  /** The client closed the connection while its answer was written. */
  private static final class ClientGone extends UncheckedIOException {
    private static final long serialVersionUID = 1L;

    ClientGone(IOException cause) {
      super(cause);
    }
  }
}
