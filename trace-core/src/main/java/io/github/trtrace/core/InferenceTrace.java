package io.github.trtrace.core;

import io.github.trtrace.core.InferenceTracer.TracedRunnable;
import io.github.trtrace.core.InferenceTracer.TracedCallable;
import java.util.List;

/**
 * The timing and outcome of one request, from arrival to response. Prefer {@link
 * InferenceTracer#call(String, TracedCallable)} / {@link InferenceTracer#run(String, TracedRunnable)},
 * which start the trace, make it current, record a thrown exception and end the trace for you:
 *
 * <pre>{@code
 * String answer = tracer.call("llama-8b", t -> {         // queue time starts now
 *   response.setHeader(RequestIds.HEADER, t.requestId());
 *   t.input(prompt);                                      // input_flags from the raw text
 *   t.runStage(Stage.QUEUE, slots::acquire);              // waits for a model slot
 *   int[] ids = t.callStage(Stage.PREPROCESS, () -> tokenizer.encode(prompt));
 *   t.inputTokens(ids.length);
 *   String text = t.callStage(Stage.DECODE, () -> generate(ids, t));   // t.token() per token
 *   t.output(text);
 *   return text;
 * });                                                     // an exception is recorded, then rethrown
 * }</pre>
 *
 * <h2>Ending a trace yourself</h2>
 *
 * A trace from {@link InferenceTracer#start(String)} is ended by {@link #close()}, which completes the
 * request's record on the calling thread and hands it to the dispatcher (whose worker builds the
 * immutable {@link InferenceRecord} from it, see below). With
 * try-with-resources the trace is closed <em>before</em> any {@code catch} clause of the same {@code
 * try} runs, so <strong>a failure must be recorded inside the {@code try} block</strong> ({@link
 * #error(Throwable)} in a nested {@code try}); otherwise the record says {@code success} for a request
 * that threw. Java cannot detect this; {@code call}/{@code run} cannot get it wrong.
 *
 * <p>{@code start} does not make the trace current on the thread (a trace may be started on one thread
 * and worked on another): call {@link #makeCurrent()} where the request is worked on, so that {@code
 * request_id} is in {@link io.github.trtrace.core.context.RequestContext} and the SLF4J MDC there.
 *
 * <h2>Stages</h2>
 *
 * Stages nest as a stack and record exclusive ("self") time: a stage opened while another is open
 * pauses the outer one until it ends, so an {@code INFER} launch inside {@code DECODE} adds to {@code
 * infer_ms} and not to {@code decode_ms}, and the stage times never add up to more than {@code
 * latency_ms}. A stage entered several times accumulates its time. {@link #callStage(Stage,
 * StageCallable)} and {@link #runStage(Stage, StageRunnable)} time a block (with and without a
 * result: two names, so that a method reference such as {@code semaphore::acquire} is never
 * ambiguous); {@link #stage(Stage)} returns a handle, for stages that begin and end in different
 * places (a queue left on another thread).
 *
 * <h2>Threads and misuse</h2>
 *
 * A trace may hop threads: start it where the request is queued, time stages on the worker that runs
 * it, end it anywhere. Methods are thread-safe. Misuse never corrupts a record and never throws: calls
 * after the trace ended, ending a trace twice, closing a stage that is not the innermost open one
 * (the stages opened inside it end with it), null arguments, out-of-range values, malformed trace
 * context IDs and {@code status(SUCCESS)} after a failure was recorded are ignored and counted in
 * {@link TracerStats#misuse()}. Stages still open when the trace ends are ended with it.
 *
 * <h2>Allocation and reuse</h2>
 *
 * Ending a trace allocates nothing on the calling thread: its fields go into a pooled entry that the
 * dispatcher's worker turns into the immutable {@link InferenceRecord} (only a {@link TraceListener}
 * or a user-supplied dispatcher makes it be built on the caller), and {@link #stage(Stage)} returns
 * one handle object per trace and stage. The trace object itself is new for every {@code start}; with
 * {@link InferenceTracer.Builder#garbageFree(boolean)}, {@code call}/{@code run} reuse ended trace
 * objects, and a request traced that way allocates nothing at all in steady state (issue 10,
 * {@code GarbageFreeTest}). The rule that makes reuse safe: a trace is used only until it ends, and in
 * garbage-free mode only inside the body it was given to. A call after the end is ignored and counted
 * as misuse; in garbage-free mode this holds until a later {@code call}/{@code run} takes the
 * object for a new request (see {@code garbageFree}); without it, always.
 */
public interface InferenceTrace extends AutoCloseable {

  /** The request ID written to the record; return it to the caller in {@code X-Request-ID}. */
  String requestId();

  /** The model name written to the record. */
  String modelName();

  /**
   * Makes this trace current on the calling thread until the returned scope is closed (on this
   * thread): its request ID (and model) in {@link io.github.trtrace.core.context.RequestContext} and
   * the MDC key {@code request_id}, and every listener's per-trace state (e.g. the OpenTelemetry span).
   * Use it after a thread hop; {@code call}/{@code run} do it for the body.
   *
   * <pre>{@code
   * worker.submit(() -> { try (TraceScope scope = t.makeCurrent()) { log.info("decoding"); } });
   * }</pre>
   */
  TraceScope makeCurrent();

  /**
   * Opens {@code stage} now and returns a handle whose {@code close()} ends it (from any thread). The
   * stage open before, if any, pauses until this one ends. For a block of code prefer {@link
   * #callStage(Stage, StageCallable)}: an unused handle in try-with-resources warns under
   * {@code -Xlint:try}.
   */
  StageTimer stage(Stage stage);

  /**
   * Runs {@code body} inside {@code stage} and returns its result; the stage ends however the body
   * ends. Its exception propagates unchanged.
   *
   * <pre>{@code
   * int[] ids = t.callStage(Stage.PREPROCESS, () -> tokenizer.encode(prompt));
   * }</pre>
   */
  default <T, E extends Throwable> T callStage(Stage stage, StageCallable<T, E> body) throws E {
    StageTimer s = stage(stage);
    try {
      return body.call();
    } finally {
      s.close();
    }
  }

  /**
   * Runs {@code body} inside {@code stage}; the stage ends however the body ends.
   *
   * <pre>{@code
   * t.runStage(Stage.QUEUE, slots::acquire);
   * }</pre>
   */
  default <E extends Throwable> void runStage(Stage stage, StageRunnable<E> body) throws E {
    StageTimer s = stage(stage);
    try {
      body.run();
    } finally {
      s.close();
    }
  }

  /**
   * Marks the first output token now ({@code ttft_ms} = time since the trace started, queueing
   * included). Only the first call counts.
   */
  InferenceTrace firstToken();

  /**
   * Marks one generated token now. The first mark also marks the first token (unless {@link
   * #firstToken()} did); {@code tpot_ms} is the mean interval between consecutive marks. When {@link
   * #outputTokens(int)} is not set, the number of marks is the output token count.
   */
  InferenceTrace token();

  /**
   * Inspects the raw input for {@link InputFlag}s: a mutable input (a {@code StringBuilder}) now, a
   * {@code String} (immutable) where the record is built, off the request's thread (within a budget
   * of about 4 M characters of such text waiting in the tracer's queue; past it, now). Only if input
   * digests are enabled is the text kept ({@code toString()} now, so later changes to a mutable input
   * do not leak in) until the record is built, and then only digested (redacted, at most 100
   * characters) for error and slow records; the raw text is never written. A later call replaces the
   * flags.
   */
  InferenceTrace input(CharSequence rawInput);

  /**
   * Inspects the response text for {@link OutputFlag}s ({@code output_flags}): a mutable text now, a
   * {@code String} where the record is built, off the request's thread (within the same budget); the text is not written. A
   * later call replaces the flags.
   */
  InferenceTrace output(CharSequence output);

  InferenceTrace inputTokens(int count);

  InferenceTrace outputTokens(int count);

  /** The request's limit on generated tokens ({@code max_tokens}, >= 0). */
  InferenceTrace maxTokens(int count);

  /** The request's sampling temperature ({@code temperature}, finite and >= 0). */
  InferenceTrace temperature(double temperature);

  /** The request's nucleus-sampling probability ({@code top_p}, 0..1). */
  InferenceTrace topP(double topP);

  /** Why generation stopped ({@code finish_reason}), e.g. {@code "stop"}, {@code "length"}. */
  InferenceTrace finishReason(String reason);

  /** Adds device time measured by the backend (e.g. CUDA events around the engine launch). */
  InferenceTrace addGpuMs(double ms);

  /** The fingerprint of the engine build that served the request. */
  InferenceTrace engineFingerprint(String fingerprint);

  /**
   * Sets the outcome; {@link Status#SUCCESS} unless set or an error was recorded. A failure status
   * replaces another one; {@code SUCCESS} after a failure is ignored and counted as misuse, so a
   * record never says {@code success} with an {@code error_type}.
   */
  InferenceTrace status(Status status);

  /**
   * Marks the request failed with {@code error_type} = the throwable's class name. The status
   * becomes {@link Status#ERROR} unless a failure status (e.g. {@code TIMEOUT}) was set explicitly.
   */
  InferenceTrace error(Throwable error);

  /** Marks the request failed with an explicit {@code error_type}, e.g. {@code "tensorrt.oom"}. */
  InferenceTrace error(String errorType);

  /** Adds an event (e.g. a TensorRT message attributed to this request). */
  InferenceTrace event(String kind, String severity, String message);

  /** Attaches a per-layer timing table (per-layer profiling on demand). */
  InferenceTrace layers(List<InferenceRecord.LayerTime> layers);

  /**
   * Links the record to a distributed trace: W3C trace ID (32 lowercase hex digits) and span ID (16),
   * not all zero; anything else is ignored and counted as misuse. The first valid link wins and later
   * ones are ignored: a {@link TraceListener} that exports its own span (trace-otel) links the record to
   * that span while the trace starts, and an HTTP filter's link to the caller's span comes after it.
   */
  InferenceTrace traceContext(String traceId, String spanId);

  /** Adds a user attribute to the record. */
  InferenceTrace attribute(String key, String value);

  /**
   * Called by a batching scheduler when it admits the request and it starts waiting for a batch slot:
   * the time until its first {@link SharedLaunch} (or its end) is its {@code slot_wait_ms}, apart from
   * the admission queue ({@code queue_ms}). Ignored by traces that record nothing.
   *
   * <pre>{@code
   * waiting.add(request); request.trace().waitingForSlot();   // on the scheduler thread
   * }</pre>
   */
  default InferenceTrace waitingForSlot() {
    return this;
  }

  /**
   * Called by a batching scheduler when it preempts (pauses) the request, e.g. because the KV cache
   * is full: counted in {@code preemptions}, the time until its next launch (or its end) in {@code
   * preempted_ms}, and {@code reason} as an event. Ignored by traces that record nothing.
   */
  default InferenceTrace preempted(String reason) {
    return this;
  }

  /** Nanoseconds since the trace started (monotonic clock). */
  long elapsedNanos();

  /** Whether {@link #close()} was called. */
  boolean isEnded();

  /**
   * Ends the trace: snapshots the record and queues it. Idempotent; never throws. In
   * try-with-resources this runs before the {@code catch} clauses: record failures inside the {@code
   * try} block, or use {@link InferenceTracer#call(String, TracedCallable)}.
   */
  @Override
  void close();

  /**
   * The running timer of one open stage, from {@link #stage(Stage)}. Not a scope: it makes nothing
   * current, so unlike {@link TraceScope} and {@code RequestContext.Scope} it may be closed on any
   * thread (a {@code QUEUE} stage opened by the acceptor and ended by the worker). {@code close()}
   * ends the stage; closing it again does nothing. The handle is one object per trace and stage (no
   * allocation per stage): if the same stage was opened again on the trace after this one ended, a
   * second {@code close()} ends that newer opening.
   */
  interface StageTimer extends AutoCloseable {
    @Override
    void close();
  }

  /** A block timed by {@link #callStage(Stage, StageCallable)}. */
  @FunctionalInterface
  interface StageCallable<T, E extends Throwable> {
    T call() throws E;
  }

  /** A block timed by {@link #runStage(Stage, StageRunnable)}. */
  @FunctionalInterface
  interface StageRunnable<E extends Throwable> {
    void run() throws E;
  }
}
