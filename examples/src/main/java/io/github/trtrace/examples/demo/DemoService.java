package io.github.trtrace.examples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.Slf4jSink;
import io.github.trtrace.http.HttpServerTracing;
import io.github.trtrace.http.TracedRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo inference service: {@code POST /v1/completions} over the JDK HTTP server, traced through
 * trace-http. Admission control is a bounded number of places (workers plus a queue): a request that finds
 * none is answered 429 with its request ID and leaves a {@code rejected} record; an admitted one waits in the
 * queue (queue time is real only when the engines are busy). On a backend that steps ({@link
 * Backend#stepModel}: the CPU backend, and the TensorRT backend on a GPU) the service batches continuously: the
 * request is tokenized ({@code preprocess}), queued for the least loaded of its
 * {@link BatchEngine}s ({@code queue} until a step first takes it), prefilled in chunks beside other requests'
 * decode rows ({@code infer}, up to its first token), decoded one row per step ({@code decode}), then checked
 * and answered on a worker ({@code postprocess}); each step is one of the tracer's shared launches
 * ({@link io.github.trtrace.core.SharedLaunch}): its share on each member's record (the batching fields,
 * {@code gpu_ms} by {@code gpu_ms_method}) and a line in the tracer's launch log, {@code launches.log}. A backend that does not batch
 * (or {@code batching} null) runs one request per worker thread: tokenize, prefill, decode, output check and response.
 *
 * <p>Request: {@code {"prompt": "...", "max_tokens": 32, "model": "demo-llm-cpu"}} ({@code model} optional).
 * Response: {@code {"id": "<request id>", "model": ..., "text": ..., "finish_reason": "stop"|"length",
 * "usage": {"prompt_tokens": n, "completion_tokens": m}}}.
 *
 * <p>Records go to a JSON Lines file and to SLF4J (Logback's JSON encoder writes them, and the service's own
 * log lines with their MDC {@code request_id}, to {@code logs/app.json}).
 */
public final class DemoService implements AutoCloseable {
  static final String PATH = "/v1/completions";
  static final int MAX_TOKENS_LIMIT = 256;
  static final java.time.Duration GPU_POLL = java.time.Duration.ofMillis(50);
  private static final Logger log = LoggerFactory.getLogger(DemoService.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How to run the service.
   *
   * @param port 0 for an ephemeral port
   * @param workers inference threads
   * @param queueCapacity admitted requests that may wait for a worker
   * @param log the JSON Lines record file (replaced at start: one run, one file)
   * @param batching how the engines of a backend that steps schedule (one engine per worker); null: one request per
   *     worker thread through {@link Backend#generate}, as for a backend that does not batch
   */
  public record Config(int port, int workers, int queueCapacity, Path log, BatchEngine.@Nullable Settings batching) {
    /** Continuous batching on a backend that steps. */
    public Config(int port, int workers, int queueCapacity, Path log) {
      this(port, workers, queueCapacity, log, BatchEngine.Settings.continuous());
    }

    public static Config defaults(Path log) {
      return new Config(8080, Math.max(1, Runtime.getRuntime().availableProcessors()), 16, log);
    }

    public Config withPort(int p) {
      return new Config(p, workers, queueCapacity, log, batching);
    }

    public Config withCapacity(int w, int q) {
      return new Config(port, w, q, log, batching);
    }

    public Config withBatching(BatchEngine.@Nullable Settings b) {
      return new Config(port, workers, queueCapacity, log, b);
    }
  }

  private final Config config;
  private final Backend backend;
  private final InferenceTracer tracer;
  private final HttpServer server;
  private final ExecutorService httpThreads;
  private final ThreadPoolExecutor workerPool;
  private final ExecutorService workers;
  private final Semaphore places;
  /** The OpenTelemetry SDK the demo set up, closed after the tracer; null when nothing is exported. */
  private @Nullable AutoCloseable openTelemetry;
  private final List<BatchEngine> engines = new ArrayList<>();

  private DemoService(Config config, Backend backend, InferenceTracer tracer) {
    this.config = config;
    this.backend = backend;
    this.tracer = tracer;
    if (batches(config, backend)) {
      for (int i = 0; i < config.workers(); i++) {
        engines.add(BatchEngine.start(java.util.Objects.requireNonNull(backend.stepModel(i)), config.batching(), i,
            tracer));
      }
    }
    this.places = new Semaphore(config.workers() + config.queueCapacity());
    AtomicInteger n = new AtomicInteger();
    // Unbounded queue, bounded by the admission semaphore: a request is refused before it is traced as queued.
    this.workerPool = new ThreadPoolExecutor(config.workers(), config.workers(), 0, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> new Thread(r, "inference-" + n.incrementAndGet()));
    this.workers = workerPool;
    this.httpThreads = Executors.newFixedThreadPool(8, r -> new Thread(r, "http-" + n.incrementAndGet()));
    try {
      this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), config.port()), 256);
    } catch (IOException e) {
      engines.forEach(BatchEngine::close);
      throw new UncheckedIOException(e);
    }
    server.setExecutor(httpThreads);
    server.createContext(PATH, this::handle).getFilters().add(HttpServerTracing.filter());
  }

  /** Whether the service batches: settings given and a backend that steps ({@link Backend#stepModel}). */
  private static boolean batches(Config config, Backend backend) {
    return config.batching() != null && backend.stepModel(0) != null;
  }

  /** The launch log beside the record file. */
  static Path launchLog(Path recordLog) {
    return recordLog.resolveSibling("launches.log");
  }

  /**
   * Starts the service: opens the record file (replacing it), the sinks, the HTTP server. {@code say} hears
   * the start-up statement (backend, sinks, address).
   */
  public static DemoService start(Config config, Backend backend, Consumer<String> say) throws IOException {
    return start(config, backend, say, System.getenv("OTEL_EXPORTER_OTLP_ENDPOINT"));
  }

  /** {@link #start(Config, Backend, Consumer)} exporting to {@code otlpEndpoint} when it is set. */
  static DemoService start(Config config, Backend backend, Consumer<String> say, @Nullable String otlpEndpoint)
      throws IOException {
    Path parent = config.log().toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.deleteIfExists(config.log());
    InferenceTracer.Builder tb = InferenceTracer.builder()
        .sink(JsonLinesFileSink.builder(config.log()).build())
        .sink(Slf4jSink.builder().build())
        .inputDigest(true);
    String slf4j = LoggerFactory.getILoggerFactory().getClass().getName();
    say.accept("records: " + Analysis.display(config.log()) + " (JSON Lines) and SLF4J logger " + Slf4jSink.DEFAULT_LOGGER_NAME
        + (slf4j.startsWith("ch.qos.logback.") ? " (Logback JSON encoder, logs/app.json)" : " (SLF4J backend " + slf4j + ")"));
    GpuMetricsSource gpu = backend.gpuMetrics();
    if (gpu != null) {
      tb.gpuMetrics(gpu, GPU_POLL);
      say.accept("GPU metrics: NVML every " + GPU_POLL.toMillis() + " ms (gpu_util, gpu_mem_util on each record)");
    }
    AutoCloseable sdk = openTelemetry(tb, say, otlpEndpoint);
    boolean batched = batches(config, backend);
    if (batched) {
      Files.deleteIfExists(launchLog(config.log()));
      tb.launchLog(launchLog(config.log())); // every engine step, its members and their shares
    }
    DemoService s = new DemoService(config, backend, tb.build());
    if (sdk != null) {
      s.openTelemetry = sdk;
      // On SIGTERM as on close(): the tracer first (its last spans end), then the SDK (its final export).
      Runtime.getRuntime().addShutdownHook(new Thread(s::closeTracing, "demo-tracing-shutdown"));
    }
    s.server.start();
    say.accept("listening on " + s.uri() + PATH + " with " + config.workers()
        + (batched ? " engines, " + config.batching().describe() + ", launch log " + Analysis.display(
            launchLog(config.log())) + "," : " workers (one request each) and") + " "
        + config.queueCapacity() + " queue places");
    log.info("demo service started on {}", s.uri());
    return s;
  }

  /**
   * When {@code OTEL_EXPORTER_OTLP_ENDPOINT} is set, the demo exports its spans and metrics there through
   * trace-otel, with an OpenTelemetry SDK configured from the standard {@code OTEL_*} variables (OTLP over
   * HTTP/protobuf by default), as a host application would set one up. Without it nothing is exported.
   */
  static @Nullable AutoCloseable openTelemetry(InferenceTracer.Builder tb, Consumer<String> say, @Nullable String endpoint) {
    if (endpoint == null || endpoint.isBlank()) {
      say.accept("OpenTelemetry: off (set OTEL_EXPORTER_OTLP_ENDPOINT to export spans)");
      return null;
    }
    // Closed by close() after the tracer, not by a shutdown hook of its own: metrics are exported every
    // 60 s, so a shorter run's only export is the SDK's close; a hook of its own ran in parallel with the
    // tracer's, or never within a run (the demo runs inside Maven's JVM), and no metric left (issue 19).
    io.opentelemetry.sdk.OpenTelemetrySdk sdk =
        io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk.builder()
            .addPropertiesSupplier(() -> java.util.Map.of(
                "otel.service.name", "trtrace-demo",
                "otel.exporter.otlp.endpoint", endpoint,
                "otel.exporter.otlp.protocol", "http/protobuf",
                "otel.logs.exporter", "none"))
            .disableShutdownHook()
            .build()
            .getOpenTelemetrySdk();
    tb.listener(io.github.trtrace.otel.TrtraceOpenTelemetry.create(sdk));
    say.accept("OpenTelemetry: exporting spans and metrics to " + endpoint + " (OTLP)");
    return sdk;
  }

  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  public InferenceTracer tracer() {
    return tracer;
  }

  public Config config() {
    return config;
  }

  public Backend backend() {
    return backend;
  }

  private void handle(HttpExchange ex) throws IOException {
    TracedRequest r = HttpServerTracing.request(ex);
    if (!"POST".equals(ex.getRequestMethod())) {
      respond(ex, 405, error("method_not_allowed", r.requestId()));
      return;
    }
    Completion c;
    try (InputStream in = ex.getRequestBody()) {
      c = Completion.parse(JSON.readTree(in), backend.modelName());
    } catch (IOException | IllegalArgumentException e) {
      try (InferenceTrace t = r.startTrace(tracer, backend.modelName())) {
        t.error("bad_request");
      }
      respond(ex, 400, error("bad_request: " + e.getMessage(), r.requestId()));
      return;
    }
    if (!places.tryAcquire()) {
      HttpServerTracing.reject(ex, tracer, backend.modelName(), 429);
      return;
    }
    InferenceTrace t = r.startTrace(tracer, backend.modelName());
    if (!engines.isEmpty()) {
      submit(ex, t, c);
      return;
    }
    InferenceTrace.StageTimer queued = t.stage(Stage.QUEUE); // ends when a worker takes it
    try {
      workers.execute(() -> serve(ex, t, queued, c));
    } catch (RuntimeException e) { // the pool was shut down
      places.release();
      try (t) {
        t.error(e);
      }
      respond(ex, 503, error("shutting_down", r.requestId()));
    }
  }

  /** On a worker: the trace is in the queue stage until now. */
  private void serve(HttpExchange ex, InferenceTrace t, InferenceTrace.StageTimer queued, Completion c) {
    queued.close();
    try (t; TraceScope current = t.makeCurrent()) { // request_id in the MDC of this worker's log lines
      try { // failures are recorded in here: the outer try closes the trace before a catch of its own would run
        complete(ex, t, c);
      } catch (IOException | RuntimeException e) {
        t.error(e);
        log.warn("completion failed", e);
        respond(ex, 500, error("internal_error", t.requestId()));
      }
    } finally {
      places.release();
      ex.close();
    }
  }

  private void complete(HttpExchange ex, InferenceTrace t, Completion c) throws IOException {
    t.input(c.prompt()).maxTokens(c.maxTokens());
    Tokenizer.Session session = backend.tokenizer().session();
    int[] ids = t.callStage(Stage.PREPROCESS, () -> session.encode(c.prompt()));
    t.inputTokens(ids.length);
    if (ids.length + c.maxTokens() > backend.maxContext()) {
      t.error("context_length_exceeded");
      respond(ex, 400, error("context_length_exceeded: " + ids.length + " prompt tokens + " + c.maxTokens()
          + " > " + backend.maxContext(), t.requestId()));
      return;
    }
    StringBuilder text = new StringBuilder();
    int[] out = backend.generate(t, ids, c.maxTokens(), id -> text.append(session.decode(id)));
    byte[] body = t.callStage(Stage.POSTPROCESS, () -> body(t, c, text, out, ids.length));
    try {
      send(ex, 200, body);
    } catch (IOException e) {
      t.status(Status.CANCELLED); // the client went away
      return;
    }
    log.info("completion served: {} prompt tokens, {} generated", ids.length, out.length);
  }

  /**
   * Continuous batching: tokenized here, then queued for the least loaded engine, whose scheduler runs its
   * prefill and decode steps beside the other requests'; the answer is checked and sent on a worker.
   */
  private void submit(HttpExchange ex, InferenceTrace t, Completion c) {
    int[] ids;
    Tokenizer.Session session = backend.tokenizer().session();
    StringBuilder text = new StringBuilder();
    try (TraceScope current = t.makeCurrent()) {
      t.input(c.prompt()).maxTokens(c.maxTokens());
      ids = t.callStage(Stage.PREPROCESS, () -> session.encode(c.prompt()));
      t.inputTokens(ids.length);
      if (ids.length + c.maxTokens() > backend.maxContext()) {
        t.error("context_length_exceeded");
        respond(ex, 400, error("context_length_exceeded: " + ids.length + " prompt tokens + " + c.maxTokens()
            + " > " + backend.maxContext(), t.requestId()));
        places.release();
        t.close();
        return;
      }
    }
    BatchEngine engine = engines.get(0);
    for (BatchEngine e : engines) {
      if (e.load() < engine.load()) {
        engine = e;
      }
    }
    engine.submit(new BatchEngine.Request(t, ids, c.maxTokens(), id -> text.append(session.decode(id))))
        .whenComplete((out, failure) -> {
          try {
            workers.execute(() -> answer(ex, t, ids.length, c, text, out, failure));
          } catch (RuntimeException e) { // shut down
            answer(ex, t, ids.length, c, text, out, failure);
          }
        });
  }

  private void answer(HttpExchange ex, InferenceTrace t, int promptTokens, Completion c, StringBuilder text,
      int @Nullable [] out, @Nullable Throwable failure) {
    try (t; TraceScope current = t.makeCurrent()) {
      try {
        if (failure != null || out == null) {
          t.error(failure == null ? new IllegalStateException("no output") : failure);
          log.warn("completion failed", failure);
          respond(ex, 500, error("internal_error", t.requestId()));
          return;
        }
        byte[] body = t.callStage(Stage.POSTPROCESS, () -> body(t, c, text, out, promptTokens));
        try {
          send(ex, 200, body);
        } catch (IOException e) {
          t.status(Status.CANCELLED); // the client went away
          return;
        }
        log.info("completion served: {} prompt tokens, {} generated", promptTokens, out.length);
      } catch (IOException | RuntimeException e) {
        t.error(e);
        respond(ex, 500, error("internal_error", t.requestId()));
      }
    } finally {
      places.release();
      ex.close();
    }
  }

  private byte[] body(InferenceTrace t, Completion c, StringBuilder text, int[] out, int promptTokens)
      throws IOException {
    String output = text.toString();
    t.output(output); // the output check: output_flags (replacement_char, repetition, bidi_control, empty)
    String finish = out.length < c.maxTokens() ? "stop" : "length";
    t.finishReason(finish);
    ObjectNode json = JSON.createObjectNode();
    json.put("id", t.requestId()).put("model", backend.modelName()).put("text", output)
        .put("finish_reason", finish);
    json.putObject("usage").put("prompt_tokens", promptTokens).put("completion_tokens", out.length);
    return JSON.writeValueAsBytes(json);
  }

  /** A parsed request body. */
  record Completion(String prompt, int maxTokens) {
    static Completion parse(JsonNode body, String model) {
      if (body == null || !body.isObject()) {
        throw new IllegalArgumentException("body must be a JSON object");
      }
      JsonNode prompt = body.get("prompt");
      if (prompt == null || !prompt.isTextual()) {
        throw new IllegalArgumentException("prompt (string) is required");
      }
      JsonNode m = body.get("model");
      if (m != null && !m.isNull() && !model.equals(m.asText())) {
        throw new IllegalArgumentException("unknown model '" + m.asText() + "', this service serves " + model);
      }
      JsonNode mt = body.get("max_tokens");
      int maxTokens = mt == null || mt.isNull() ? 32 : mt.asInt(-1);
      if (maxTokens < 1 || maxTokens > MAX_TOKENS_LIMIT) {
        throw new IllegalArgumentException("max_tokens must be 1.." + MAX_TOKENS_LIMIT);
      }
      return new Completion(prompt.asText(), maxTokens);
    }
  }

  private static byte[] error(String message, String requestId) {
    ObjectNode json = JSON.createObjectNode().put("error", message).put("request_id", requestId);
    try {
      return JSON.writeValueAsBytes(json);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void respond(HttpExchange ex, int status, byte[] body) {
    try (ex) {
      send(ex, status, body);
    } catch (IOException e) {
      log.debug("could not answer {}: {}", status, e.toString());
    }
  }

  private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  /** Stops accepting, finishes admitted requests, drains the tracer (every record on disk). */
  @Override
  public void close() {
    server.stop(0);
    engines.forEach(BatchEngine::close); // every admitted request finished
    workerPool.shutdown();
    try {
      if (!workerPool.awaitTermination(60, TimeUnit.SECONDS)) {
        workerPool.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    httpThreads.shutdownNow();
    tracer.flush().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> null).join();
    closeTracing(); // the launch log too
    backend.close();
  }

  /** Closes the tracer, then the OpenTelemetry SDK (spans flushed, metrics exported a last time); idempotent. */
  private void closeTracing() {
    tracer.close();
    AutoCloseable sdk = openTelemetry;
    if (sdk != null) {
      try {
        sdk.close();
      } catch (Exception e) {
        log.warn("closing the OpenTelemetry SDK failed", e);
      }
    }
  }
}
