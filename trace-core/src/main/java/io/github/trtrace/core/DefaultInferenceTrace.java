package io.github.trtrace.core;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.internal.OutputInspector;
import io.github.trtrace.core.internal.RateLimitedLogger;
import io.github.trtrace.core.internal.InputInspector;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * One request's mutable timing state. Every method changes it holding the trace's monitor: a trace
 * is touched by one thread at a time in practice (it hops threads with the request), so the lock is
 * uncontended and costs a few nanoseconds, while any accidental concurrent use stays consistent.
 * Listener callbacks run after the monitor is released.
 *
 * <p>Stages: {@link #open} is a stack of open stages; only the innermost accumulates time (since
 * {@link #topSince}), so opening a stage pauses the one below and closing it resumes that one.
 */
final class DefaultInferenceTrace implements InferenceTrace {
  private static final RateLimitedLogger MISUSE_LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger("io.github.trtrace.tracer"), 10_000);
  private static final Stage[] STAGES = Stage.values();
  private static final StageTimer NOOP_TIMER = () -> {};
  private static final Stage[] NO_STAGES = new Stage[0];

  private final DefaultInferenceTracer tracer;
  private final String requestId;
  private final String modelName;
  private final Instant startedAt;
  private final long startNanos;
  private final long startEpochNanos;
  private final long[] stageNanos = new long[STAGES.length];
  private final boolean[] stageSeen = new boolean[STAGES.length];
  private final InferenceRecord.Builder record;

  /** Listener handles in registration order; null without listeners; a slot is nulled when its listener fails. */
  private TraceListener.Handle @Nullable [] handles;

  /** Open stages, innermost last; only the innermost runs (since {@link #topSince}). */
  private OpenStage[] open = new OpenStage[4];
  private int depth;
  private long topSince;

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
  /** The GPU poller's history position at the start; null without a poller. Set once, before publication. */
  io.github.trtrace.core.internal.GpuMetricsPoller.@Nullable Mark gpuMark;

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
    this.startEpochNanos = toEpochNanos(startedAt);
    this.record = InferenceRecord.builder(requestId, modelName).attributes(attributes);
  }

  /** Nanoseconds since the epoch, saturating outside the years 1677..2262. */
  static long toEpochNanos(Instant t) {
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
    } catch (ArithmeticException e) {
      return t.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /** The wall-clock start, the record's {@code timestamp}. */
  Instant startedAt() {
    return startedAt;
  }

  long startEpochNanos() {
    return startEpochNanos;
  }

  /** The wall-clock time of monotonic reading {@code nanos}: the start's wall clock plus the offset. */
  long epochNanos(long nanos) {
    return startEpochNanos + Math.max(0, nanos - startNanos);
  }

  void handles(TraceListener.@Nullable Handle[] handles) {
    this.handles = handles;
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
  public TraceScope makeCurrent() {
    RequestContext current = RequestContext.current();
    RequestContext.Scope context = null;
    if (!requestId.equals(current.requestId()) || !modelName.equals(current.modelName())) {
      RequestContext mine =
          requestId.equals(current.requestId())
              ? current.withModel(modelName)
              : RequestContext.with(requestId).model(modelName).build();
      context = mine.open();
    }
    TraceListener.Handle[] hs = handles;
    if (hs == null) {
      return context == null ? TraceScope.NOOP : new CurrentScope(context, null);
    }
    TraceScope[] scopes = new TraceScope[hs.length];
    for (int i = 0; i < hs.length; i++) {
      TraceListener.Handle h = hs[i];
      if (h != null) {
        try {
          scopes[i] = h.makeCurrent();
        } catch (RuntimeException | LinkageError e) {
          listenerFailed(i, "makeCurrent", e);
        }
      }
    }
    return new CurrentScope(context, scopes);
  }

  /** The scope of {@link #makeCurrent()}: listener scopes closed in reverse, then the context. */
  private final class CurrentScope implements TraceScope {
    private final RequestContext.@Nullable Scope context;
    private final @Nullable TraceScope @Nullable [] scopes;
    private boolean closed;

    CurrentScope(RequestContext.@Nullable Scope context, @Nullable TraceScope @Nullable [] scopes) {
      this.context = context;
      this.scopes = scopes;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      if (scopes != null) {
        for (int i = scopes.length - 1; i >= 0; i--) {
          TraceScope s = scopes[i];
          if (s != null) {
            try {
              s.close();
            } catch (RuntimeException | LinkageError e) {
              listenerFailed(i, "makeCurrent().close", e);
            }
          }
        }
      }
      if (context != null) {
        context.close();
      }
    }
  }

  /** One open stage; its handle. */
  private final class OpenStage implements StageTimer {
    final Stage stage;
    boolean closed;

    OpenStage(Stage stage) {
      this.stage = stage;
    }

    @Override
    public void close() {
      endStage(this);
    }
  }

  @Override
  public StageTimer stage(Stage stage) {
    OpenStage opened;
    long now;
    synchronized (this) {
      if (isEndedMisuse("stage") || isNullMisuse("stage", stage)) {
        return NOOP_TIMER;
      }
      now = tracer.nanoClock.getAsLong();
      if (depth > 0) {
        pauseTop(now);
      }
      if (depth == open.length) {
        open = java.util.Arrays.copyOf(open, depth * 2);
      }
      opened = new OpenStage(stage);
      open[depth++] = opened;
      topSince = now;
      stageSeen[stage.ordinal()] = true;
    }
    TraceListener.Handle[] hs = handles;
    if (hs != null) {
      fireStage(hs, stage, epochNanos(now), true);
    }
    return opened;
  }

  @Override
  public <T, E extends Throwable> T callStage(Stage stage, StageCallable<T, E> body) throws E {
    StageTimer s = stage(stage);
    try {
      return body.call();
    } finally {
      s.close();
    }
  }

  @Override
  public <E extends Throwable> void runStage(Stage stage, StageRunnable<E> body) throws E {
    StageTimer s = stage(stage);
    try {
      body.run();
    } finally {
      s.close();
    }
  }

  /** Adds the innermost stage's running time up to {@code now}. */
  private void pauseTop(long now) {
    stageNanos[open[depth - 1].stage.ordinal()] += Math.max(0, now - topSince);
    topSince = now;
  }

  private void endStage(OpenStage s) {
    Stage[] ended;
    long now;
    synchronized (this) {
      if (s.closed) {
        return;
      }
      int at = depth - 1;
      while (at >= 0 && open[at] != s) {
        at--;
      }
      if (at < 0) {
        return;
      }
      if (at != depth - 1) {
        misuse("stage " + s.stage + " closed while " + open[depth - 1].stage
            + " inside it is open (the inner stages end with it) on trace " + requestId);
      }
      now = tracer.nanoClock.getAsLong();
      ended = popTo(at, now);
    }
    fireStageEnds(ended, now);
  }

  /**
   * Ends the stages from the innermost down to index {@code at}; the one below resumes. Holds the
   * monitor. Returns the ended stages, innermost first, for the listeners (none without listeners).
   */
  private Stage[] popTo(int at, long now) {
    pauseTop(now);
    Stage[] ended = handles == null ? NO_STAGES : new Stage[depth - at];
    for (int i = depth - 1, k = 0; i >= at; i--, k++) {
      open[i].closed = true;
      if (ended.length > 0) {
        ended[k] = open[i].stage;
      }
      open[i] = null;
    }
    depth = at;
    return ended;
  }

  private void fireStageEnds(Stage[] ended, long now) {
    TraceListener.Handle[] hs = handles;
    if (hs != null && ended.length > 0) {
      long epoch = epochNanos(now);
      for (Stage st : ended) {
        fireStage(hs, st, epoch, false);
      }
    }
  }

  private void fireStage(TraceListener.Handle[] hs, Stage stage, long epochNanos, boolean start) {
    for (int i = 0; i < hs.length; i++) {
      TraceListener.Handle h = hs[i];
      if (h != null) {
        try {
          if (start) {
            h.onStageStart(stage, epochNanos);
          } else {
            h.onStageEnd(stage, epochNanos);
          }
        } catch (RuntimeException | LinkageError e) {
          listenerFailed(i, start ? "onStageStart" : "onStageEnd", e);
        }
      }
    }
  }

  /** Counts and logs a listener failure and skips that listener for the rest of this trace. */
  void listenerFailed(int index, String callback, Throwable e) {
    TraceListener.Handle[] hs = handles;
    String name = hs != null && hs[index] != null ? hs[index].getClass().getName() : "listener " + index;
    if (hs != null) {
      hs[index] = null;
    }
    tracer.listenerFailed(name, callback, requestId, e);
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
  public synchronized InferenceTrace output(CharSequence output) {
    if (!isEndedMisuse("output") && !isNullMisuse("output", output)) {
      record.outputFlags(OutputInspector.flags(output));
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace maxTokens(int count) {
    if (!isEndedMisuse("maxTokens")) {
      if (count < 0) {
        misuse("maxTokens(" + count + ")");
      } else {
        record.maxTokens(count);
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
        record.temperature(temperature);
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
        record.topP(topP);
      }
    }
    return this;
  }

  @Override
  public synchronized InferenceTrace finishReason(String reason) {
    if (!isEndedMisuse("finishReason") && !isNullMisuse("finishReason", reason)) {
      record.finishReason(reason);
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
  public InferenceTrace event(String kind, String severity, String message) {
    InferenceRecord.Event added;
    synchronized (this) {
      if (isEndedMisuse("event")
          || isNullMisuse("event", kind)
          || isNullMisuse("event", severity)
          || isNullMisuse("event", message)) {
        return this;
      }
      if (events == null) {
        events = new ArrayList<>(4);
      }
      double offset = (tracer.nanoClock.getAsLong() - startNanos) / 1e6;
      added = new InferenceRecord.Event(kind, severity, message, Math.max(0, offset));
      events.add(added);
    }
    TraceListener.Handle[] hs = handles;
    if (hs != null) {
      for (int i = 0; i < hs.length; i++) {
        TraceListener.Handle h = hs[i];
        if (h != null) {
          try {
            h.onEvent(added);
          } catch (RuntimeException | LinkageError e) {
            listenerFailed(i, "onEvent", e);
          }
        }
      }
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

  private boolean linked;

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
      record.traceId(traceId).spanId(spanId);
    }
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
    Stage[] stillOpen;
    long now;
    synchronized (this) {
      if (ended) {
        misuse("trace " + requestId + " ended twice");
        return;
      }
      ended = true;
      now = tracer.nanoClock.getAsLong();
      stillOpen = depth > 0 ? popTo(0, now) : NO_STAGES;
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
    fireStageEnds(stillOpen, now);
    tracer.finish(this, record, finalStatus, latencyMs, in, handles, epochNanos(now));
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
