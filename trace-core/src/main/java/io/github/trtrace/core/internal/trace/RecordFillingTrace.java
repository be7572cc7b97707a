package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.internal.inspect.InputInspector;
import io.github.trtrace.core.internal.inspect.OutputInspector;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The record-filling half of a trace: the {@link InferenceTrace} calls that set a field of the record
 * (tokens, sampling parameters, input and output, status and error, layers, trace context, attributes),
 * each checked and written into the pooled {@link RecordEntry} under the trace's monitor, and the
 * figures derived from them at the end ({@link #fillEnd}). The lifecycle, the stages and the listeners
 * are {@link DefaultInferenceTrace}'s, the only subclass.
 */
abstract class RecordFillingTrace implements InferenceTrace {
  /** What this trace uses of its tracer (clock, pool, settings, hand-off, misuse counter). */
  final TraceServices services;
  String requestId;
  String modelName;
  /** The record being filled; handed to the dispatcher (then null) or reset when the trace ends. */
  @Nullable RecordEntry entry;
  boolean ended;
  /** The generation argument of a caller that holds the trace itself (not a {@link TraceHandle}): no check. */
  static final int ANY = Integer.MIN_VALUE;

  private long firstTokenNanos;
  private long firstMarkNanos;
  private long lastTokenNanos;
  private int tokenMarks;
  private int outputTokens;
  private double gpuMs;
  private Status status;
  private boolean statusExplicit;
  private @Nullable String input;
  private boolean linked;

  RecordFillingTrace(TraceServices services, String requestId, String modelName) {
    this.services = services;
    this.requestId = requestId;
    this.modelName = modelName;
    this.status = Status.SUCCESS;
  }

  /** The fields of this half as a new trace has them. Holds the monitor. */
  void resetFields() {
    firstTokenNanos = -1;
    firstMarkNanos = -1;
    lastTokenNanos = -1;
    tokenMarks = 0;
    outputTokens = -1;
    gpuMs = Double.NaN;
    status = Status.SUCCESS;
    statusExplicit = false;
    input = null;
    linked = false;
  }

  /**
   * Writes the figures derived at the end (TTFT, TPOT, output tokens, GPU time, status) into {@code
   * record} and returns the input kept for the digest (then forgotten). Holds the monitor.
   */
  @Nullable CharSequence fillEnd(RecordEntry record, long startNanos) {
    if (firstTokenNanos >= 0) {
      record.ttftMs = Math.max(0, firstTokenNanos - startNanos) / 1e6;
      if (tokenMarks > 1) {
        record.tpotMs = Math.max(0, lastTokenNanos - firstMarkNanos) / 1e6 / (tokenMarks - 1);
      }
    }
    record.outputTokens = outputTokens >= 0 ? outputTokens : (tokenMarks > 0 ? tokenMarks : -1);
    record.gpuMs = record.withShares(gpuMs);
    record.status = status;
    CharSequence in = input;
    input = null;
    return in;
  }

  @Override
  public String requestId() {
    return requestId;
  }

  @Override
  public String modelName() {
    return modelName;
  }

  @Override
  public synchronized InferenceTrace firstToken() {
    if (isEndedMisuse("firstToken")) {
      return this;
    }
    if (firstTokenNanos < 0) {
      firstTokenNanos = services.nanoClock.getAsLong();
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace token() {
    if (isEndedMisuse("token")) {
      return this;
    }
    long now = services.nanoClock.getAsLong();
    if (firstTokenNanos < 0) {
      firstTokenNanos = now;
    }
    if (firstMarkNanos < 0) {
      firstMarkNanos = now;
    }
    lastTokenNanos = now;
    tokenMarks++;
    return this;
  }
  @Override
  public synchronized InferenceTrace input(CharSequence rawInput) {
    if (isEndedMisuse("input") || isNullMisuse("input", rawInput)) {
      return this;
    }
    RecordEntry e = entry();
    if (rawInput instanceof String s && e.deferInput(s, services.veryLongInputChars)) {
      // Immutable: its flags are computed where the record is built (the dispatcher's worker), not
      // on the request's thread, within the tracer's budget of deferred text; see RecordEntry#resolveInput.
      input = services.inputDigest ? s : null;
    } else {
      // mutable, or over the budget: inspected now; an earlier deferred input is replaced
      e.undeferInput();
      e.inputFlags = InputInspector.flags(rawInput, services.veryLongInputChars);
      // A snapshot: a caller reusing its StringBuilder must not change the digest written later.
      input = services.inputDigest ? rawInput.toString() : null;
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace output(CharSequence output) {
    if (!isEndedMisuse("output") && !isNullMisuse("output", output)) {
      RecordEntry e = entry();
      if (!(output instanceof String s && e.deferOutput(s))) { // deferred as input(String) is
        e.undeferOutput(); // an earlier deferred output is replaced
        e.outputFlags = OutputInspector.flags(output);
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace maxTokens(int count) {
    if (!isEndedMisuse("maxTokens")) {
      if (count < 0) {
        misuse("maxTokens(" + count + ")");
      } else {
        entry().maxTokens = count;
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace temperature(double temperature) {
    if (!isEndedMisuse("temperature")) {
      if (!(temperature >= 0) || Double.isInfinite(temperature)) {
        misuse("temperature(" + temperature + ")");
      } else {
        entry().temperature = temperature;
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace topP(double topP) {
    if (!isEndedMisuse("topP")) {
      if (!(topP >= 0 && topP <= 1)) {
        misuse("topP(" + topP + ")");
      } else {
        entry().topP = topP;
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace finishReason(String reason) {
    if (!isEndedMisuse("finishReason") && !isNullMisuse("finishReason", reason)) {
      entry().finishReason = reason;
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace inputTokens(int count) {
    if (!isEndedMisuse("inputTokens")) {
      if (count < 0) {
        misuse("inputTokens(" + count + ")");
      } else {
        entry().inputTokens = count;
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace outputTokens(int count) {
    if (!isEndedMisuse("outputTokens")) {
      if (count < 0) {
        misuse("outputTokens(" + count + ")");
      } else {
        outputTokens = count;
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace addGpuMs(double ms) {
    if (!isEndedMisuse("addGpuMs")) {
      if (!(ms >= 0) || Double.isInfinite(ms)) {
        misuse("addGpuMs(" + ms + ")");
      } else {
        gpuMs = Double.isNaN(gpuMs) ? ms : gpuMs + ms;
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace engineFingerprint(String fingerprint) {
    if (!isEndedMisuse("engineFingerprint") && !isNullMisuse("engineFingerprint", fingerprint)) {
      entry().engineFingerprint = fingerprint;
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace status(Status status) {
    if (isEndedMisuse("status") || isNullMisuse("status", status)) {
      return this;
    }
    if (status == Status.SUCCESS && this.status.isFailure()) {
      // A success must not hide a recorded failure (nor leave success with an error_type).
      misuse("status(SUCCESS) after " + this.status.wireName() + " on trace " + requestId);
      return this;
    }
    this.status = status;
    this.statusExplicit = true;
    return this;
  }

  @Override
  public InferenceTrace error(Throwable error) {
    return error(error == null ? "unknown" : error.getClass().getName());
  }

  @Override
  public synchronized InferenceTrace error(String errorType) {
    if (!isEndedMisuse("error")) {
      entry().errorType = errorType == null || errorType.isBlank() ? "unknown" : errorType;
      if (!statusExplicit || status == Status.SUCCESS) {
        status = Status.ERROR;
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace layers(List<InferenceRecord.LayerTime> layers) {
    if (!isEndedMisuse("layers") && !isNullMisuse("layers", layers)) {
      for (InferenceRecord.LayerTime layer : layers) {
        if (!isNullMisuse("layers", layer)) {
          entry().addLayer(layer);
        }
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace traceContext(String traceId, String spanId) {
    if (isEndedMisuse("traceContext")) {
      return this;
    }
    if (!isW3cId(traceId, 32) || !isW3cId(spanId, 16)) {
      misuse("traceContext: not a W3C trace ID (32 lowercase hex) and span ID (16 lowercase hex)");
      return this;
    }
    if (!linked) {
      // The first link wins: a listener (trace-otel) links the record to its own span while the trace
      // starts, and an HTTP filter's later link to the caller's span must not replace it.
      linked = true;
      RecordEntry e = entry();
      e.traceId = traceId;
      e.spanId = spanId;
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace attribute(String key, String value) {
    if (!isEndedMisuse("attribute") && !isNullMisuse("attribute", key) && !isNullMisuse("attribute", value)) {
      entry().attribute(key, value);
    }
    return this;
  }

  @Override
  public synchronized boolean isEnded() {
    return ended;
  }

  /** The entry being filled; only called while the trace has not ended (the entry is then set). */
  RecordEntry entry() {
    RecordEntry e = entry;
    if (e == null) {
      throw new IllegalStateException("trace " + requestId + " has no entry"); // not reachable: ended checked first
    }
    return e;
  }

  /**
   * The request this trace serves now, bumped by every (re)start of a pooled trace: a {@link
   * TraceHandle} (what a garbage-free body holds) carries the generation it was given, and a call whose
   * generation is not this one is ignored and counted ({@link #isCurrent}). Holds the monitor.
   */
  abstract int currentGeneration();

  /**
   * Whether a holder of generation {@code gen} still holds this trace's current request; if not, the
   * call is counted as misuse (the holder's request ended and this trace serves another one). Holds
   * the monitor.
   */
  boolean isCurrent(int gen, String call) {
    if (gen == ANY || gen == currentGeneration()) {
      return true;
    }
    misuse(call + "() on a garbage-free trace after its request ended (the trace now serves another request)");
    return false;
  }

  /** Whether generation {@code gen} is current and not ended. */
  synchronized boolean isLive(int gen) {
    return !ended && (gen == ANY || gen == currentGeneration());
  }

  boolean isEndedMisuse(String call) {
    if (ended) {
      misuse(call + "() after trace " + requestId + " ended");
      return true;
    }
    return false;
  }

  boolean isNullMisuse(String call, @Nullable Object argument) {
    if (argument == null) {
      misuse(call + "(null) on trace " + requestId);
      return true;
    }
    return false;
  }

  /** A W3C trace-context ID: {@code length} lowercase hex digits, not all zero. */
  private static boolean isW3cId(@Nullable String id, int length) {
    if (id == null || id.length() != length) {
      return false;
    }
    boolean nonZero = false;
    for (int i = 0; i < length; i++) {
      char c = id.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
      nonZero |= c != '0';
    }
    return nonZero;
  }

  void misuse(String what) {
    services.misuse(what);
  }
}
