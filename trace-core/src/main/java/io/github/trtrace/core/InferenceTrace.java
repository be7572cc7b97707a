package io.github.trtrace.core;

import java.util.List;

/**
 * The timing and outcome of one request, from arrival to response. Obtained from {@link
 * InferenceTracer#start(String)}; ended by {@link #close()} (try-with-resources), which takes the
 * immutable {@link InferenceRecord} snapshot on the calling thread and hands it to the dispatcher.
 *
 * <p>A trace may hop threads: start it where the request is queued, time stages on the worker
 * that runs it, end it anywhere. Methods are thread-safe.
 *
 * <p>Misuse never corrupts a record and never throws: stages run one at a time (beginning a stage
 * ends the open one); a stage entered several times accumulates its time; ending a stage that is
 * not open, calls after the trace ended, ending a trace twice, null arguments, malformed trace
 * context IDs and {@code status(SUCCESS)} after a failure was recorded are ignored and counted in
 * {@link TracerStats#misuse()}. A stage still open when the trace ends is ended with it.
 *
 * <pre>{@code
 * try (InferenceTrace t = tracer.start("llama-8b")) {       // queue time starts now
 *   t.input(prompt);                                        // input_flags from the raw text
 *   try (var s = t.stage(Stage.QUEUE)) { slot = pool.acquire(); }
 *   try (var s = t.stage(Stage.PREPROCESS)) { ids = tokenizer.encode(prompt); }
 *   t.inputTokens(ids.length);
 *   try (var s = t.stage(Stage.DECODE)) {
 *     while (generating) { engine.step(); t.token(); }       // first call marks time to first token
 *   }
 * } catch (RuntimeException e) { ... }                      // t.error(e) before close records the failure
 * }</pre>
 */
public interface InferenceTrace extends AutoCloseable {

  /** The request ID written to the record. */
  String requestId();

  /** The model name written to the record. */
  String modelName();

  /**
   * Begins {@code stage} now and returns a handle whose {@code close()} ends it. Ends the stage that
   * was open, if any.
   */
  StageScope stage(Stage stage);

  /** Begins {@code stage} now, ending the open stage, if any. */
  InferenceTrace beginStage(Stage stage);

  /** Ends {@code stage} now if it is the open stage; otherwise counted as misuse and ignored. */
  InferenceTrace endStage(Stage stage);

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
   * Inspects the raw input for {@link InputFlag}s now. Only if input digests are enabled is the text
   * kept ({@code toString()} now, so later changes to a mutable input do not leak in) until the
   * trace ends, and then only digested (redacted, at most 100 characters) for error and slow
   * records.
   */
  InferenceTrace input(CharSequence rawInput);

  InferenceTrace inputTokens(int count);

  InferenceTrace outputTokens(int count);

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
   * not all zero; anything else is ignored and counted as misuse.
   */
  InferenceTrace traceContext(String traceId, String spanId);

  /** Adds a user attribute to the record. */
  InferenceTrace attribute(String key, String value);

  /** Nanoseconds since the trace started (monotonic clock). */
  long elapsedNanos();

  /** Whether {@link #close()} was called. */
  boolean isEnded();

  /** Ends the trace: snapshots the record and queues it. Idempotent; never throws. */
  @Override
  void close();

  /** Handle of one running stage; {@code close()} ends it. */
  interface StageScope extends AutoCloseable {
    @Override
    void close();
  }
}
