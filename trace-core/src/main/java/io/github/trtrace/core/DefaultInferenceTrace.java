package io.github.trtrace.core;

import io.github.trtrace.core.internal.RateLimitedLogger;
import io.github.trtrace.core.redact.InputInspector;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * One request's mutable timing state. Every method holds the trace's monitor: a trace is touched by
 * one thread at a time in practice (it hops threads with the request), so the lock is uncontended
 * and costs a few nanoseconds, while any accidental concurrent use stays consistent.
 */
final class DefaultInferenceTrace implements InferenceTrace {
  private static final RateLimitedLogger MISUSE_LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger("io.github.trtrace.tracer"), 10_000);
  private static final Stage[] STAGES = Stage.values();
  private static final StageScope NOOP_SCOPE = () -> {};

  private final DefaultInferenceTracer tracer;
  private final String requestId;
  private final String modelName;
  private final Instant startedAt;
  private final long startNanos;
  private final long[] stageNanos = new long[STAGES.length];
  private final boolean[] stageSeen = new boolean[STAGES.length];
  private final InferenceRecord.Builder record;

  private @Nullable Stage openStage;
  private long openSince;
  private long firstTokenNanos = -1;
  private long firstMarkNanos = -1;
  private long lastTokenNanos = -1;
  private int tokenMarks;
  private int outputTokens = -1;
  private double gpuMs = Double.NaN;
  private Status status = Status.SUCCESS;
  private boolean statusExplicit;
  private @Nullable String input;
  private @Nullable List<InferenceRecord.Event> events;
  private boolean ended;

  DefaultInferenceTrace(
      DefaultInferenceTracer tracer,
      String requestId,
      String modelName,
      Map<String, String> attributes,
      Instant startedAt,
      long startNanos) {
    this.tracer = tracer;
    this.requestId = requestId;
    this.modelName = modelName;
    this.startedAt = startedAt;
    this.startNanos = startNanos;
    this.record = InferenceRecord.builder(requestId, modelName).attributes(attributes);
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
  public StageScope stage(Stage stage) {
    beginStage(stage);
    return stage == null ? NOOP_SCOPE : () -> endStage(stage);
  }

  @Override
  public synchronized InferenceTrace beginStage(Stage stage) {
    if (isEndedMisuse("beginStage") || isNullMisuse("beginStage", stage)) {
      return this;
    }
    long now = tracer.nanoClock.getAsLong();
    closeOpenStage(now);
    openStage = stage;
    openSince = now;
    return this;
  }

  @Override
  public synchronized InferenceTrace endStage(Stage stage) {
    if (isEndedMisuse("endStage") || isNullMisuse("endStage", stage)) {
      return this;
    }
    if (openStage != stage) {
      misuse("endStage(" + stage + ") while " + (openStage == null ? "no stage" : openStage) + " is open");
      return this;
    }
    closeOpenStage(tracer.nanoClock.getAsLong());
    return this;
  }

  private void closeOpenStage(long now) {
    Stage s = openStage;
    if (s != null) {
      stageNanos[s.ordinal()] += Math.max(0, now - openSince);
      stageSeen[s.ordinal()] = true;
      openStage = null;
    }
  }

  @Override
  public synchronized InferenceTrace firstToken() {
    if (isEndedMisuse("firstToken")) {
      return this;
    }
    if (firstTokenNanos < 0) {
      firstTokenNanos = tracer.nanoClock.getAsLong();
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace token() {
    if (isEndedMisuse("token")) {
      return this;
    }
    long now = tracer.nanoClock.getAsLong();
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
    Set<InputFlag> flags = InputInspector.flags(rawInput, tracer.veryLongInputChars);
    record.inputFlags(flags);
    if (tracer.inputDigest) {
      // A snapshot: a caller reusing its StringBuilder must not change the digest written later.
      input = rawInput.toString();
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace inputTokens(int count) {
    if (!isEndedMisuse("inputTokens")) {
      if (count < 0) {
        misuse("inputTokens(" + count + ")");
      } else {
        record.inputTokens(count);
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
      record.engineFingerprint(fingerprint);
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
      record.errorType(errorType == null || errorType.isBlank() ? "unknown" : errorType);
      if (!statusExplicit || status == Status.SUCCESS) {
        status = Status.ERROR;
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace event(String kind, String severity, String message) {
    if (!isEndedMisuse("event")
        && !isNullMisuse("event", kind)
        && !isNullMisuse("event", severity)
        && !isNullMisuse("event", message)) {
      if (events == null) {
        events = new ArrayList<>(4);
      }
      double offset = (tracer.nanoClock.getAsLong() - startNanos) / 1e6;
      events.add(new InferenceRecord.Event(kind, severity, message, Math.max(0, offset)));
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace layers(List<InferenceRecord.LayerTime> layers) {
    if (!isEndedMisuse("layers") && !isNullMisuse("layers", layers)) {
      for (InferenceRecord.LayerTime layer : layers) {
        if (!isNullMisuse("layers", layer)) {
          record.addLayer(layer);
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
    record.traceId(traceId).spanId(spanId);
    return this;
  }

  @Override
  public synchronized InferenceTrace attribute(String key, String value) {
    if (!isEndedMisuse("attribute") && !isNullMisuse("attribute", key) && !isNullMisuse("attribute", value)) {
      record.attribute(key, value);
    }
    return this;
  }

  @Override
  public long elapsedNanos() {
    return tracer.nanoClock.getAsLong() - startNanos;
  }

  @Override
  public synchronized boolean isEnded() {
    return ended;
  }

  @Override
  public void close() {
    double latencyMs;
    Status finalStatus;
    CharSequence in;
    synchronized (this) {
      if (ended) {
        misuse("trace " + requestId + " ended twice");
        return;
      }
      ended = true;
      long now = tracer.nanoClock.getAsLong();
      closeOpenStage(now);
      latencyMs = Math.max(0, now - startNanos) / 1e6;
      for (int i = 0; i < STAGES.length; i++) {
        if (stageSeen[i]) {
          record.stageMs(STAGES[i], stageNanos[i] / 1e6);
        }
      }
      if (firstTokenNanos >= 0) {
        record.ttftMs(Math.max(0, firstTokenNanos - startNanos) / 1e6);
        if (tokenMarks > 1) {
          record.tpotMs(Math.max(0, lastTokenNanos - firstMarkNanos) / 1e6 / (tokenMarks - 1));
        }
      }
      int out = outputTokens >= 0 ? outputTokens : (tokenMarks > 0 ? tokenMarks : -1);
      record.outputTokens(out).gpuMs(gpuMs).latencyMs(latencyMs).status(status).timestamp(startedAt);
      if (events != null) {
        events.forEach(record::addEvent);
      }
      finalStatus = status;
      in = input;
      input = null;
    }
    tracer.finish(modelName, record, finalStatus, latencyMs, in);
  }

  private boolean isEndedMisuse(String call) {
    if (ended) {
      misuse(call + "() after trace " + requestId + " ended");
      return true;
    }
    return false;
  }

  private boolean isNullMisuse(String call, @Nullable Object argument) {
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

  private void misuse(String what) {
    tracer.misuse.increment();
    MISUSE_LOG.warn("trtrace: ignored {}", what);
  }
}
