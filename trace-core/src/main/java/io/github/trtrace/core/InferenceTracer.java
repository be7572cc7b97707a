package io.github.trtrace.core;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.dispatch.Dispatcher;
import io.github.trtrace.core.dispatch.QueueFullPolicy;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.redact.Redactor;
import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.RecordSink;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Starts one {@link InferenceTrace} per request and writes one record per request, asynchronously.
 * Build one per application and share it; it is thread-safe. {@link #close()} drains what is
 * queued.
 *
 * <pre>{@code
 * InferenceTracer tracer = InferenceTracer.builder()
 *     .fromEnvironment()                                  // TRTRACE_LOG_PATH, TRTRACE_SAMPLE_RATE, ...
 *     .jsonLinesFile(Path.of("logs/inference.log"))
 *     .build();
 * RequestContext.with(RequestIds.accept(header).id()).run(() -> {
 *   try (InferenceTrace t = tracer.start("llama-8b")) { ... }
 * });
 * }</pre>
 */
public interface InferenceTracer extends AutoCloseable {

  /**
   * Starts a trace now for {@code modelName}. The request ID comes from {@link
   * RequestContext#current()}; without one, an ID is generated ({@code req-...}).
   */
  InferenceTrace start(String modelName);

  /** Starts a trace now with an explicit request ID (validated like an {@code X-Request-ID}). */
  InferenceTrace start(String modelName, String requestId);

  /** A snapshot of the counters. */
  TracerStats stats();

  /** Completes when every record ended before this call has reached the sinks and was flushed. */
  CompletableFuture<Void> flush();

  /** Drains the queue within the configured timeout, closes sinks and the GPU poller. Idempotent. */
  @Override
  void close();

  /** A new builder. */
  static Builder builder() {
    return new Builder();
  }

  /** A tracer that records nothing; its traces accept every call and write nothing. */
  static InferenceTracer noop() {
    return NoopTracer.INSTANCE;
  }

  /** Configuration of a tracer. Not thread-safe. */
  final class Builder {
    /** Environment variable and system property names read by {@link #fromEnvironment()}. */
    public static final String ENV_LOG_PATH = "TRTRACE_LOG_PATH";
    public static final String ENV_SAMPLE_RATE = "TRTRACE_SAMPLE_RATE";
    public static final String ENV_SLOW_MS = "TRTRACE_SLOW_MS";
    public static final String ENV_QUEUE_SIZE = "TRTRACE_QUEUE_SIZE";
    public static final String ENV_QUEUE_POLICY = "TRTRACE_QUEUE_POLICY";
    public static final String ENV_INPUT_DIGEST = "TRTRACE_INPUT_DIGEST";

    final List<RecordSink> sinks = new ArrayList<>();
    final Dispatcher.Builder dispatcher = Dispatcher.builder();
    Sampler.@Nullable Builder samplerBuilder;
    @Nullable Sampler sampler;
    Redactor redactor = Redactor.defaults();
    boolean inputDigest;
    int veryLongInputChars = io.github.trtrace.core.redact.InputInspector.DEFAULT_VERY_LONG;
    @Nullable GpuMetricsSource gpuSource;
    Duration gpuInterval = Duration.ofMillis(500);
    Clock wallClock = Clock.systemUTC();
    LongSupplier nanoClock = System::nanoTime;
    @Nullable Dispatcher customDispatcher;

    Builder() {}

    /** Adds a sink; records go to every sink (per-sink failure isolation). */
    public Builder sink(RecordSink sink) {
      sinks.add(Objects.requireNonNull(sink, "sink"));
      return this;
    }

    /**
     * Adds a {@link JsonLinesFileSink} at {@code path} with default options (opens the file now).
     *
     * @throws java.io.UncheckedIOException when the file cannot be created or opened
     */
    public Builder jsonLinesFile(Path path) {
      try {
        return sink(JsonLinesFileSink.builder(path).build());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot open trace log " + path + ": " + e.getMessage(), e);
      }
    }

    /**
     * Sampling policy; default: keep every record, failures and slow ones marked as such. A sampler
     * given here wins over {@code TRTRACE_SAMPLE_RATE} and {@code TRTRACE_SLOW_MS} (a warning says so).
     */
    public Builder sampler(Sampler sampler) {
      this.sampler = Objects.requireNonNull(sampler, "sampler");
      return this;
    }

    /** Redaction rules for input digests and messages; default {@link Redactor#defaults()}. */
    public Builder redactor(Redactor redactor) {
      this.redactor = Objects.requireNonNull(redactor, "redactor");
      return this;
    }

    /**
     * Whether error and slow records carry {@code input_digest}: at most 100 characters of the input
     * after redaction. Off by default: no input text is recorded unless you opt in.
     */
    public Builder inputDigest(boolean enabled) {
      this.inputDigest = enabled;
      return this;
    }

    /** Inputs longer than this many characters get the {@code very_long} flag. */
    public Builder veryLongInputChars(int chars) {
      if (chars < 1) {
        throw new IllegalArgumentException("veryLongInputChars must be >= 1: " + chars);
      }
      this.veryLongInputChars = chars;
      return this;
    }

    /** Polls {@code source} every {@code interval} on a background thread (default 500 ms). */
    public Builder gpuMetrics(GpuMetricsSource source, Duration interval) {
      this.gpuSource = Objects.requireNonNull(source, "source");
      this.gpuInterval = Objects.requireNonNull(interval, "interval");
      return this;
    }

    public Builder queueCapacity(int capacity) {
      dispatcher.queueCapacity(capacity);
      return this;
    }

    public Builder reservedCapacity(int capacity) {
      dispatcher.reservedCapacity(capacity);
      return this;
    }

    public Builder queueFullPolicy(QueueFullPolicy policy) {
      dispatcher.policy(policy);
      return this;
    }

    public Builder blockTimeout(Duration timeout) {
      dispatcher.blockTimeout(timeout);
      return this;
    }

    /**
     * The longest a record waits in the queue before it is written when traffic is light (default
     * 20 ms; see {@link Dispatcher.Builder#maxWriteDelay}).
     */
    public Builder maxWriteDelay(Duration delay) {
      dispatcher.maxWriteDelay(delay);
      return this;
    }

    public Builder closeTimeout(Duration timeout) {
      dispatcher.closeTimeout(timeout);
      return this;
    }

    /**
     * The longest one sink's call may take before the others get the next batch without it (default
     * 2 s; see {@link Dispatcher.Builder#exportTimeout}).
     */
    public Builder exportTimeout(Duration timeout) {
      dispatcher.exportTimeout(timeout);
      return this;
    }

    /**
     * Whether a JVM shutdown hook drains the queue within the close timeout on exit or SIGTERM;
     * default on. An explicit {@code close()} removes the hook.
     */
    public Builder shutdownHook(boolean enabled) {
      dispatcher.shutdownHook(enabled);
      return this;
    }

    /** Uses a dispatcher you built yourself (its sinks); the queue options above are then ignored. */
    public Builder dispatcher(Dispatcher dispatcher) {
      this.customDispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
      return this;
    }

    /** Clocks, for tests: wall clock for {@code timestamp}, monotonic nanos for durations. */
    public Builder clocks(Clock wallClock, LongSupplier nanoClock) {
      this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
      this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
      return this;
    }

    /**
     * Reads settings from system properties, then environment variables (a system property wins):
     * {@code trtrace.log.path} / {@code TRTRACE_LOG_PATH} (adds a JSON Lines file sink),
     * {@code trtrace.sample.rate} / {@code TRTRACE_SAMPLE_RATE} (0..1),
     * {@code trtrace.slow.ms} / {@code TRTRACE_SLOW_MS} (fixed slow threshold),
     * {@code trtrace.queue.size} / {@code TRTRACE_QUEUE_SIZE},
     * {@code trtrace.queue.policy} / {@code TRTRACE_QUEUE_POLICY} ({@code block} or {@code drop}),
     * {@code trtrace.input.digest} / {@code TRTRACE_INPUT_DIGEST} ({@code true}/{@code false}).
     * Invalid values fail here with a message naming the setting.
     */
    public Builder fromEnvironment() {
      return fromEnvironment(TracerSettings.systemLookup());
    }

    Builder fromEnvironment(TracerSettings.Lookup lookup) {
      TracerSettings.apply(this, lookup);
      return this;
    }

    Sampler.Builder samplerBuilder() {
      if (samplerBuilder == null) {
        samplerBuilder = Sampler.builder();
      }
      return samplerBuilder;
    }

    /**
     * Builds the tracer and starts its dispatcher (and GPU poller when configured).
     *
     * @throws IllegalStateException when neither a sink nor a dispatcher was configured
     */
    public InferenceTracer build() {
      if (customDispatcher == null && sinks.isEmpty()) {
        throw new IllegalStateException(
            "no sink configured: call sink(...), jsonLinesFile(...) or fromEnvironment() with "
                + ENV_LOG_PATH);
      }
      return new DefaultInferenceTracer(this);
    }
  }
}
