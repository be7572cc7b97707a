// Over 400 lines: the user-facing entry point; most of it is the javadoc of each builder option.
package io.github.trtrace.core;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.redact.Redactor;
import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.core.internal.trace.TracerFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Starts one {@link InferenceTrace} per request and writes one record per request, asynchronously.
 * Build one per application and share it; it is thread-safe. {@link #close()} drains what is
 * queued.
 *
 * <p>Caller cost: records are handed to the dispatcher as pooled entries and built on its worker, so
 * ending a trace allocates nothing on the request thread, and {@link #call call}/{@link #run run}
 * open the body's context through per-thread reusable scopes. With {@link Builder#garbageFree(boolean)}
 * they also reuse ended trace objects: a request traced with them (and a valid request ID, or the
 * current context's) then allocates nothing in steady state, as in Log4j2's garbage-free mode, under
 * the rule that the body's trace is not used after the body returns ({@link Builder#garbageFree(boolean)}
 * says why). Traces from {@link #start} are never reused.
 *
 * <pre>{@code
 * InferenceTracer tracer = InferenceTracer.builder()
 *     .jsonLinesFile(Path.of("logs/inference.log"))
 *     .fromEnvironment()                                  // TRTRACE_LOG_PATH, TRTRACE_SAMPLE_RATE, ...
 *     .build();
 * String answer = tracer.call("llama-8b", request.getHeader(RequestIds.HEADER), t -> {
 *   response.setHeader(RequestIds.HEADER, t.requestId());
 *   return t.callStage(Stage.DECODE, () -> engine.generate(prompt));
 * });
 * }</pre>
 */
public interface InferenceTracer extends AutoCloseable {

  /**
   * Traces one request around {@code body} and returns its result: starts a trace for {@code
   * modelName} (ID from the current context, else generated), makes it current for the body ({@link
   * InferenceTrace#makeCurrent()}: {@code request_id} in the context and the MDC, listener state),
   * records a throwable the body throws ({@link InferenceTrace#error(Throwable)}, so an explicit
   * failure status such as {@code TIMEOUT} set by the body is kept) and rethrows it unchanged, then
   * ends the trace. The recommended way to trace a request.
   *
   * <pre>{@code
   * String answer = tracer.call("llama-8b", t -> engine.generate(prompt));
   * }</pre>
   */
  default <T, E extends Throwable> T call(String modelName, TracedCallable<T, E> body) throws E {
    return traced(start(modelName), body);
  }

  /**
   * {@link #call(String, TracedCallable)} with the request ID taken from {@code requestIdHeader}, the
   * caller's {@code X-Request-ID}: used when valid, else replaced by a generated one (null too), the
   * rejected value kept sanitized in {@code rejected_request_id}. Return {@code t.requestId()} to the
   * caller.
   *
   * <pre>{@code
   * String answer = tracer.call("llama-8b", request.getHeader(RequestIds.HEADER), t -> {
   *   response.setHeader(RequestIds.HEADER, t.requestId());
   *   return engine.generate(prompt);
   * });
   * }</pre>
   */
  default <T, E extends Throwable> T call(
      String modelName, @Nullable String requestIdHeader, TracedCallable<T, E> body) throws E {
    return traced(start(modelName, requestIdHeader), body);
  }

  /**
   * {@link #call(String, TracedCallable)} for a body without a result.
   *
   * <pre>{@code
   * tracer.run("llama-8b", t -> stream(engine, prompt, response));
   * }</pre>
   */
  default <E extends Throwable> void run(String modelName, TracedRunnable<E> body) throws E {
    traced(start(modelName), asCallable(body));
  }

  /** {@link #call(String, String, TracedCallable)} for a body without a result. */
  default <E extends Throwable> void run(
      String modelName, @Nullable String requestIdHeader, TracedRunnable<E> body) throws E {
    traced(start(modelName, requestIdHeader), asCallable(body));
  }

  private static <E extends Throwable> TracedCallable<@Nullable Void, E> asCallable(TracedRunnable<E> body) {
    return t -> {
      body.run(t);
      return null;
    };
  }

  /**
   * Runs {@code body} under a trace started elsewhere exactly as {@link #call(String, TracedCallable)}
   * does: makes {@code t} current, records a throwable the body throws and rethrows it unchanged, ends
   * {@code t}. For integrations that start the trace themselves (trace-http's {@code TracedRequest}).
   *
   * <pre>{@code
   * String answer = InferenceTracer.callWith(tracedRequest.startTrace(tracer, "llama-8b"), t -> generate(t));
   * }</pre>
   */
  static <T, E extends Throwable> T callWith(InferenceTrace t, TracedCallable<T, E> body) throws E {
    return traced(t, body);
  }

  /** Runs {@code body} under {@code t} made current; records what it throws; ends {@code t}. */
  private static <T, E extends Throwable> T traced(InferenceTrace t, TracedCallable<T, E> body) throws E {
    TraceScope scope = t.makeCurrent();
    try {
      return body.call(t);
    } catch (Throwable e) {
      t.error(e);
      throw e;
    } finally {
      scope.close();
      t.close();
    }
  }

  /**
   * Starts a trace now for {@code modelName}, for requests whose start and end are not in one block.
   * The request ID comes from {@link RequestContext#current()}; without one, an ID is generated
   * ({@code req-...}). The trace is not made current: call {@link InferenceTrace#makeCurrent()} where
   * the request is worked on, and record failures before {@link InferenceTrace#close()} (see {@link
   * InferenceTrace}). Prefer {@link #call(String, TracedCallable)}.
   */
  InferenceTrace start(String modelName);

  /**
   * Starts a trace now with an explicit request ID (validated like an {@code X-Request-ID}: an
   * invalid or null one is replaced by a generated one, an invalid one kept in {@code
   * rejected_request_id}). A {@code rejected_request_id} of the current context is not carried over
   * when the ID differs from the context's.
   */
  InferenceTrace start(String modelName, @Nullable String requestId);

  /** A snapshot of the counters. */
  TracerStats stats();

  /**
   * Opens a {@link SharedLaunch} now, on the calling (scheduler) thread: one engine step or dynamic
   * batch that several requests share. {@code engineFingerprint} (nullable) is written to its log line.
   *
   * <pre>{@code
   * try (SharedLaunch step = tracer.launch(fingerprint)) {
   *   running.forEach(r -> step.decode(r.trace()));
   *   step.gpuMs(engine.step(running));
   * }
   * }</pre>
   */
  default SharedLaunch launch(@Nullable String engineFingerprint) {
    return TracerFactory.noopLaunch();
  }

  /** The launch counters: launches opened, lines logged, dropped and lost. */
  default SharedLaunch.Stats launchStats() {
    return TracerFactory.noLaunchStats();
  }

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
    return TracerFactory.noop();
  }

  /**
   * The body of a traced request that returns a value: {@link InferenceTracer#call(String,
   * TracedCallable)}. It may throw {@code E}; the trace records it and the tracer rethrows it unchanged.
   *
   * <pre>{@code
   * String answer = tracer.call("llama-8b", t -> engine.generate(prompt));
   * }</pre>
   *
   * @param <T> the result
   * @param <E> what the body may throw (checked exceptions included)
   */
  @FunctionalInterface
  interface TracedCallable<T, E extends Throwable> {
    /** Handles the request under {@code trace}. */
    T call(InferenceTrace trace) throws E;
  }

  /**
   * The body of a traced request that returns nothing: {@link InferenceTracer#run(String,
   * TracedRunnable)}. It may throw {@code E}; the trace records it and the tracer rethrows it unchanged.
   *
   * <pre>{@code
   * tracer.run("llama-8b", t -> stream(engine, prompt, response));
   * }</pre>
   *
   * @param <E> what the body may throw (checked exceptions included)
   */
  @FunctionalInterface
  interface TracedRunnable<E extends Throwable> {
    /** Handles the request under {@code trace}. */
    void run(InferenceTrace trace) throws E;
  }

  /**
   * What ending a trace does when the record queue (and, for priority records, the reserved
   * capacity) is full. Either way the caller is never held longer than the configured block timeout
   * and every record that is not queued is counted in {@link TracerStats.DispatcherStats}.
   *
   * <pre>{@code
   * InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(path)
   *     .queueFullPolicy(InferenceTracer.QueueFullPolicy.DROP).build();
   * }</pre>
   */
  enum QueueFullPolicy {
    /**
     * Wait for space, at most {@link Builder#blockTimeout} (default 1 s, not while every sink is stuck); then drop the record
     * and count it as {@link TracerStats.DispatcherStats#droppedBlockTimeout()}. Never waits when called on the
     * dispatcher's own thread (a sink that records): there it behaves like {@link #DROP}.
     */
    BLOCK,
    /** Drop the record at once and count it as {@link TracerStats.DispatcherStats#droppedQueueFull()}. */
    DROP
  }

  /** Configuration of a tracer. Not thread-safe. */
  final class Builder {
    private final TracerFactory factory = new TracerFactory();

    Builder() {}

    /** Adds a sink; records go to every sink (per-sink failure isolation). */
    public Builder sink(RecordSink sink) {
      factory.sink(sink);
      return this;
    }

    /**
     * Adds a {@link JsonLinesFileSink} at {@code path} with default options. Nothing is opened here:
     * {@link #build()} opens the file (creating its directories) after every setting was validated.
     * The same file named twice, here or by {@code TRTRACE_LOG_PATH}, in any spelling (relative,
     * {@code ..}, a symbolic link), is one sink.
     *
     * @throws IllegalArgumentException if {@code path} names no file (a root)
     */
    public Builder jsonLinesFile(Path path) {
      factory.jsonLinesFile(path);
      return this;
    }


    /**
     * Adds a listener that sees every trace's lifecycle as it happens (e.g. the OpenTelemetry module's
     * span listener). Several are allowed: started in the order added, ended in reverse. A listener that
     * throws is counted in {@link TracerStats#misuse()}, logged and skipped for that trace; the request
     * is never affected. Listeners also see records the sampler did not keep.
     */
    public Builder listener(TraceListener listener) {
      factory.listener(listener);
      return this;
    }

    /**
     * Sampling policy; default: keep every record, failures and slow ones marked as such. A sampler
     * given here wins over {@code TRTRACE_SAMPLE_RATE} and {@code TRTRACE_SLOW_MS} (a warning says so).
     */
    public Builder sampler(Sampler sampler) {
      factory.sampler(sampler);
      return this;
    }

    /** Redaction rules for input digests and messages; default {@link Redactor#defaults()}. */
    public Builder redactor(Redactor redactor) {
      factory.redactor(redactor);
      return this;
    }

    /**
     * Whether error and slow records carry {@code input_digest}: at most 100 characters of the input
     * after redaction. Off by default: no input text is recorded unless you opt in.
     */
    public Builder inputDigest(boolean enabled) {
      factory.inputDigest(enabled);
      return this;
    }

    /**
     * Garbage-free mode (issue 10; as Log4j2's {@code log4j2.enableThreadlocals}): {@link
     * InferenceTracer#call call} and {@link InferenceTracer#run run} reuse ended trace objects (a
     * small pool of the tracer) instead of making one per request, so that a request traced with them
     * (and a valid request ID, or the current context's) allocates nothing on the calling thread in
     * steady state. Default off.
     *
     * <p>Every tracer already hands its records to the worker without building them on the caller
     * (pooled entries; the worker builds the immutable record), and stage handles are not made per
     * stage. What this option adds is the reuse of the trace itself, which is only safe because
     * {@code call}/{@code run} bound its lifetime: <strong>with it on, the trace given to the body
     * (and the stage handles it returned) must not be used after the body returns</strong> (not kept
     * in a field, not used by a task that outlives the body). Inside the body, calls after {@code
     * close()} are ignored and counted as misuse as always, and so are calls on a trace that the body
     * left behind, until a later {@code call}/{@code run} of this tracer (on any thread) takes the
     * object for a new request; from then on a stale call would be recorded in that request. Traces
     * from {@link InferenceTracer#start} are never reused. The pool belongs to the tracer, not to
     * threads (no thread-local holds a closed tracer).
     * Listeners ({@link #listener}) still allocate (they receive immutable records built on the
     * caller).
     *
     * <pre>{@code
     * InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(path).garbageFree(true).build();
     * tracer.run("llama-8b", requestId, t -> t.runStage(Stage.DECODE, () -> generate(t)));
     * }</pre>
     */
    public Builder garbageFree(boolean enabled) {
      factory.garbageFree(enabled);
      return this;
    }

    /**
     * Writes the launch log ({@link SharedLaunch}: one JSON line per launch, with its members and
     * their shares) to a JSON Lines file at {@code path}, opened by {@link #build()}, with the records'
     * defaults for flushing and rotation. Every launch is logged (no sampling): a record kept at its end
     * (slow, failed) finds its launches by {@code first_launch_id}..{@code last_launch_id}.
     */
    public Builder launchLog(Path path) {
      factory.launchLog(path);
      return this;
    }

    /**
     * Writes the launch log to {@code sink} (built with the rotation, fsync and flush options you
     * want); the tracer closes it.
     */
    public Builder launchLog(JsonLinesFileSink sink) {
      factory.launchLog(sink);
      return this;
    }

    /**
     * Members listed per launch line (default 1024); a larger batch's line lists the first ones and
     * counts the rest in {@code members_truncated}.
     */
    public Builder launchLogMembers(int members) {
      factory.launchLogMembers(members);
      return this;
    }

    /** Inputs longer than this many characters get the {@code very_long} flag. */
    public Builder veryLongInputChars(int chars) {
      factory.veryLongInputChars(chars);
      return this;
    }

    /**
     * Polls {@code source} every {@code interval} on a background thread, started by {@link #build()}.
     *
     * @throws IllegalArgumentException if {@code interval} is shorter than 10 ms
     */
    public Builder gpuMetrics(GpuMetricsSource source, Duration interval) {
      factory.gpuMetrics(source, interval);
      return this;
    }

    public Builder queueCapacity(int capacity) {
      factory.queueCapacity(capacity);
      return this;
    }

    /**
     * The most records the dispatcher hands a sink in one {@code write}, 1 to 2^20 (default 128;
     * {@code TRTRACE_BATCH_SIZE}). When the sinks fall behind, queue space comes back a batch at a
     * time, so a smaller batch makes callers blocked on a full queue wait less each time and more
     * often, and larger batches write more records per second. Measured at saturation on two cores
     * (BENCHMARKS.md, "Batch size"): with 128 the callers' p99.9 was 0.40-0.65x Log4j2's in six
     * interleaved cells (one and two threads, one round beside a busy loop) and their p99 3.7-161 us;
     * with 512, 0.26-1.72x and 1.6-4.4 us; sustained throughput 3-16 % lower with 128. The worker
     * also wakes by itself when about a quarter of a batch has arrived, so smaller batches mean more
     * wake-ups under steady traffic.
     *
     * <pre>{@code
     * InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(path).batchSize(512).build();
     * }</pre>
     */
    public Builder batchSize(int size) {
      factory.batchSize(size);
      return this;
    }

    public Builder reservedCapacity(int capacity) {
      factory.reservedCapacity(capacity);
      return this;
    }

    public Builder queueFullPolicy(QueueFullPolicy policy) {
      factory.queueFullPolicy(policy);
      return this;
    }

    /**
     * The longest a traced call waits for queue space under {@link QueueFullPolicy#BLOCK} (default
     * 1 s, at most 10 s); then its record is dropped and counted. A wait happens only while the sinks
     * fall behind, and lasts until the dispatcher next frees space; while every sink is stuck past its
     * export timeout (a hung destination) a full queue refuses at once instead of waiting.
     */
    public Builder blockTimeout(Duration timeout) {
      factory.blockTimeout(timeout);
      return this;
    }

    /**
     * The longest a record waits in the queue before it is written when traffic is light (default
     * 20 ms; a batch is written when it is full or when its oldest record waited this long).
     */
    public Builder maxWriteDelay(Duration delay) {
      factory.maxWriteDelay(delay);
      return this;
    }

    public Builder closeTimeout(Duration timeout) {
      factory.closeTimeout(timeout);
      return this;
    }

    /**
     * The longest one sink's call may take before the others get the next batch without it (default
     * 2 s).
     */
    public Builder exportTimeout(Duration timeout) {
      factory.exportTimeout(timeout);
      return this;
    }

    /**
     * Whether a JVM shutdown hook drains the queue within the close timeout on exit or SIGTERM;
     * default on. An explicit {@code close()} removes the hook.
     */
    public Builder shutdownHook(boolean enabled) {
      factory.shutdownHook(enabled);
      return this;
    }

    /**
     * How long the shutdown hook keeps accepting and writing records while traces are in flight, before
     * it closes the tracer; default 10 s, 0 to 1 h ({@code trtrace.shutdown.drain.ms} / {@code
     * TRTRACE_SHUTDOWN_DRAIN_MS} in {@link #fromEnvironment()}). The JVM runs every shutdown hook at
     * once, so on SIGTERM a server's graceful stop and the tracer's hook run side by side: within the
     * drain, a request the server still answers leaves its record. The hook closes as soon as no trace
     * has been in flight for 100 ms, and at the end of the drain at the latest (a warning says how many
     * were still in flight). Set it to the server's own drain timeout; drain plus {@link #closeTimeout}
     * should fit in the platform's grace period (Kubernetes: 30 s). An explicit {@code close()} does not
     * wait: a host that stops its server first and then closes the tracer needs no drain.
     *
     * <pre>{@code
     * InferenceTracer tracer = InferenceTracer.builder().fromEnvironment().shutdownDrain(Duration.ofSeconds(20)).build();
     * }</pre>
     */
    public Builder shutdownDrain(Duration drain) {
      factory.shutdownDrain(drain);
      return this;
    }



    /**
     * Reads settings from system properties, then environment variables (a system property wins):
     * {@code trtrace.log.path} / {@code TRTRACE_LOG_PATH} (adds a JSON Lines file sink),
     * {@code trtrace.sample.rate} / {@code TRTRACE_SAMPLE_RATE} (0..1),
     * {@code trtrace.slow.ms} / {@code TRTRACE_SLOW_MS} (fixed slow threshold),
     * {@code trtrace.queue.size} / {@code TRTRACE_QUEUE_SIZE},
     * {@code trtrace.queue.policy} / {@code TRTRACE_QUEUE_POLICY} ({@code block} or {@code drop}),
     * {@code trtrace.batch.size} / {@code TRTRACE_BATCH_SIZE} ({@link #batchSize}),
     * {@code trtrace.input.digest} / {@code TRTRACE_INPUT_DIGEST} ({@code true}/{@code false}),
     * {@code trtrace.shutdown.drain.ms} / {@code TRTRACE_SHUTDOWN_DRAIN_MS} ({@link #shutdownDrain}, in ms).
     * Invalid values fail here with a message naming the setting. A {@code trtrace.*} system property or
     * {@code TRTRACE_*} variable that trtrace does not read (a typo) is logged once as a warning, with the
     * name it probably meant.
     */
    public Builder fromEnvironment() {
      factory.fromEnvironment();
      return this;
    }

    /**
     * Reads the settings of {@link #fromEnvironment()} from {@code byPropertyName}, keyed by their
     * system-property names ({@code trtrace.log.path}, {@code trtrace.sample.rate}, ...), instead of the
     * system properties and environment: for a framework that resolves configuration itself (Spring's
     * {@code Environment}, where system properties and environment variables already take precedence).
     * The same validation and messages as {@link #fromEnvironment()}; a null or blank value is unset.
     *
     * <pre>{@code
     * InferenceTracer tracer = InferenceTracer.builder().fromProperties(environment::getProperty).build();
     * }</pre>
     */
    public Builder fromProperties(java.util.function.Function<String, @Nullable String> byPropertyName) {
      Objects.requireNonNull(byPropertyName, "byPropertyName");
      factory.fromEnvironment((property, env) -> byPropertyName.apply(property));
      return this;
    }

    /**
     * Builds the tracer: opens the JSON Lines files and starts the dispatcher's worker (and the GPU
     * poller). A builder builds one tracer.
     *
     * @throws IllegalStateException if no sink was configured, or {@code build()} was already called
     */
    public InferenceTracer build() {
      return factory.build();
    }
  }
}
