// Over 400 lines: the ~30 methods of InferenceTrace, each checked and applied under the trace's one monitor with its stage stack and listener fan-out (what it needs of the tracer is TraceServices; the record's path to the sinks RecordHandoff).
package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.internal.inspect.OutputInspector;
import io.github.trtrace.core.internal.inspect.InputInspector;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One request's mutable timing state. Every method changes it holding the trace's monitor: a trace
 * is touched by one thread at a time in practice (it hops threads with the request), so the lock is
 * uncontended and costs a few nanoseconds, while any accidental concurrent use stays consistent.
 * Listener callbacks run after the monitor is released.
 *
 * <p>Stages: {@link #open} is a stack of open stages (ordinals); only the innermost accumulates time
 * (since {@link #topSince}), so opening a stage pauses the one below and closing it resumes that one.
 *
 * <p>Garbage-free (issue 10): the record's fields go straight into a pooled {@link RecordEntry}
 * that the dispatcher's worker turns into the immutable record; stage handles are one object per
 * trace and stage ({@link StageHandle}), made on first use; the start time is kept as epoch nanos.
 * With {@link InferenceTracer.Builder#garbageFree(boolean)} the trace object itself is reused by
 * {@code call}/{@code run} once ended ({@link #init}); a trace from {@code start} is new
 * each time, its entry still pooled. A reused trace is reached only through its current
 * {@link TraceHandle}: the methods taking a {@code gen} argument check the holder's generation
 * ({@link #isCurrent}) under the monitor, with the same check as the ended one.
 */
final class DefaultInferenceTrace implements InferenceTrace, io.github.trtrace.core.internal.batch.BatchMember {
  private static final Stage[] STAGES = Stage.values();
  static final StageTimer NOOP_TIMER = () -> {};
  /** The generation argument of a caller that holds this trace itself (not a {@link TraceHandle}): no check. */
  static final int ANY = Integer.MIN_VALUE;
  private static final Stage[] NO_STAGES = new Stage[0];

  /** What this trace uses of its tracer (clock, pool, settings, hand-off, misuse counter). */
  final TraceServices services;
  private String requestId;
  private String modelName;
  private long startNanos;
  private long startEpochNanos;
  private final long[] stageNanos = new long[STAGES.length];
  /** Bit i: stage i was opened. */
  private int stageSeen;
  /** The record being filled; handed to the dispatcher (then null) or reset when the trace ends. */
  private @Nullable RecordEntry entry;

  /** Listener handles in registration order; null without listeners; a slot is nulled when its listener fails. */
  private TraceListener.Handle @Nullable [] handles;

  /** Open stages (ordinals), innermost last; only the innermost runs (since {@link #topSince}). */
  private int[] open = new int[8];
  private int depth;
  private long topSince;
  /** One handle per stage, made on first use; see {@link StageHandle}. */
  private final StageHandle[] timers = new StageHandle[STAGES.length];

  private long firstTokenNanos;
  private long firstMarkNanos;
  private long lastTokenNanos;
  private int tokenMarks;
  private int outputTokens;
  private double gpuMs;
  private Status status;
  private boolean statusExplicit;
  private @Nullable String input;
  private boolean ended;
  /** Between the end and the last step of {@link #close()}: the entry may still be in use, no reuse. */
  private boolean closing;
  private boolean linked;
  /** Reused by {@code call}/{@code run} once ended (garbage-free mode): keeps its entry when not handed off. */
  boolean pooled;
  /**
   * Bumped by every {@link #init}: a {@link TraceHandle} (what a garbage-free body holds) carries the
   * generation it was given, and a call whose generation is not this one is ignored and counted.
   */
  private int generation;
  /** The GPU poller's history position at the start; null without a poller. Set once, before publication. */
  io.github.trtrace.core.internal.gpu.GpuMetricsPoller.@Nullable Mark gpuMark;

  DefaultInferenceTrace(
      TraceServices services,
      String requestId,
      String modelName,
      Map<String, String> attributes,
      long startEpochNanos,
      long startNanos) {
    this.services = services;
    this.requestId = requestId;
    this.modelName = modelName;
    this.status = Status.SUCCESS;
    init(requestId, modelName, attributes, startEpochNanos, startNanos);
  }

  /** (Re)starts this trace for a new request: every field as a new trace has it, a fresh entry. */
  synchronized void init(
      String requestId, String modelName, Map<String, String> attributes, long startEpochNanos, long startNanos) {
    if (++generation == ANY) {
      generation++; // wrapped round: ANY is no holder's generation
    }
    this.requestId = requestId;
    this.modelName = modelName;
    this.startEpochNanos = startEpochNanos;
    this.startNanos = startNanos;
    java.util.Arrays.fill(stageNanos, 0);
    stageSeen = 0;
    handles = null;
    depth = 0;
    topSince = 0;
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
    gpuMark = null;
    io.github.trtrace.core.internal.batch.MemberState batch = batchState;
    if (batch != null) {
      batch.reset();
    }
    RecordEntry e = entry;
    if (e == null) {
      e = entry = services.entries.take();
    }
    e.requestId = requestId;
    e.modelName = modelName;
    e.timestampEpochNanos = startEpochNanos;
    e.attributes(attributes);
    ended = false;
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
    return RecordEntry.instant(startEpochNanos);
  }

  long startEpochNanos() {
    return startEpochNanos;
  }

  /** The monotonic start of the current request. */
  synchronized long startNanos() {
    return startNanos;
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

  /** The scope {@link #enterForBody} opened, until {@link #exitBody()}. */
  private io.github.trtrace.core.internal.context.ContextAccess.@Nullable ReusableScope bodyScope;
  private @Nullable TraceScope bodyFallback;

  /**
   * What {@link #makeCurrent()} does, for the body of {@code call}/{@code run}, without a scope
   * object: the request's context is opened through {@code scope}, the calling thread's reusable one.
   * With listeners, or when only the model differs from the current context's, it is {@code
   * makeCurrent()} (which allocates). Closed by {@link #exitBody()} on the same thread.
   */
  void enterForBody(io.github.trtrace.core.internal.context.ContextAccess.ReusableScope scope) {
    io.github.trtrace.core.internal.context.ContextAccess.Hooks hooks = io.github.trtrace.core.internal.context.ContextAccess.hooks();
    boolean sameId = requestId.equals(hooks.currentRequestId());
    if (handles != null || (sameId && !modelName.equals(hooks.currentModelName()))) {
      bodyFallback = makeCurrent();
    } else if (!sameId) {
      scope.open(requestId, modelName, java.util.Map.of());
      bodyScope = scope;
    }
  }

  /** Undoes {@link #enterForBody}. */
  void exitBody() {
    TraceScope fallback = bodyFallback;
    if (fallback != null) {
      bodyFallback = null;
      fallback.close();
    }
    io.github.trtrace.core.internal.context.ContextAccess.ReusableScope scope = bodyScope;
    if (scope != null) {
      bodyScope = null;
      scope.close();
    }
  }

  /** The current generation; read by the tracer right after {@link #init}, on the same thread. */
  synchronized int generation() {
    return generation;
  }

  @Override
  public TraceScope makeCurrent() {
    return makeCurrent(ANY);
  }

  /** {@link #makeCurrent()} for a holder of generation {@code gen}: nothing is made current when it is stale. */
  TraceScope makeCurrent(int gen) {
    String requestId;
    String modelName;
    TraceListener.Handle[] hs;
    synchronized (this) {
      if (!isCurrent(gen, "makeCurrent")) {
        return TraceScope.NOOP;
      }
      requestId = this.requestId;
      modelName = this.modelName;
      hs = handles;
    }
    RequestContext current = RequestContext.current();
    RequestContext.Scope context = null;
    if (!requestId.equals(current.requestId()) || !modelName.equals(current.modelName())) {
      RequestContext mine =
          requestId.equals(current.requestId())
              ? current.withModel(modelName)
              : RequestContext.with(requestId).model(modelName).build();
      context = mine.open();
    }
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

  /**
   * The handle of one stage of this trace: one object per trace and stage (no allocation per
   * opening). {@code close()} ends the innermost open occurrence of its stage; when the stage is not
   * open it does nothing (a second close), unless the same stage was opened again since, which it
   * then ends.
   */
  private final class StageHandle implements StageTimer {
    final Stage stage;

    StageHandle(Stage stage) {
      this.stage = stage;
    }

    @Override
    public void close() {
      endStage(stage.ordinal(), ANY);
    }
  }

  @Override
  public StageTimer stage(Stage stage) {
    return stage(stage, ANY);
  }

  /**
   * {@link #stage(Stage)} for a holder of generation {@code gen}: {@link #NOOP_TIMER} when ignored,
   * else this trace's own timer of the stage (a {@link TraceHandle} returns its own instead).
   */
  StageTimer stage(Stage stage, int gen) {
    StageHandle opened;
    long now;
    synchronized (this) {
      if (!isCurrent(gen, "stage") || isEndedMisuse("stage") || isNullMisuse("stage", stage)) {
        return NOOP_TIMER;
      }
      now = services.nanoClock.getAsLong();
      if (depth > 0) {
        pauseTop(now);
      }
      if (depth == open.length) {
        open = java.util.Arrays.copyOf(open, depth * 2);
      }
      int ordinal = stage.ordinal();
      opened = timers[ordinal];
      if (opened == null) {
        opened = timers[ordinal] = new StageHandle(stage);
      }
      open[depth++] = ordinal;
      topSince = now;
      stageSeen |= 1 << ordinal;
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
    stageNanos[open[depth - 1]] += Math.max(0, now - topSince);
    topSince = now;
  }

  /** Ends the innermost open occurrence of stage {@code ordinal}, for a holder of generation {@code gen}. */
  void endStage(int ordinal, int gen) {
    Stage[] ended;
    long now;
    synchronized (this) {
      if (!isCurrent(gen, "stage(...).close")) {
        return;
      }
      if (this.ended) {
        return; // its stages ended with the trace
      }
      int at = depth - 1;
      while (at >= 0 && open[at] != ordinal) {
        at--;
      }
      if (at < 0) {
        return; // not open: closed already
      }
      if (at != depth - 1) {
        misuse("stage " + STAGES[ordinal] + " closed while " + STAGES[open[depth - 1]]
            + " inside it is open (the inner stages end with it) on trace " + requestId);
      }
      now = services.nanoClock.getAsLong();
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
      if (ended.length > 0) {
        ended[k] = STAGES[open[i]];
      }
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
    services.listenerFailed(name, callback, requestId, e);
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
  public InferenceTrace event(String kind, String severity, String message) {
    event(kind, severity, message, ANY);
    return this;
  }

  /** {@link #event} for a holder of generation {@code gen}. */
  void event(String kind, String severity, String message, int gen) {
    InferenceRecord.Event added;
    synchronized (this) {
      if (!isCurrent(gen, "event")
          || isEndedMisuse("event")
          || isNullMisuse("event", kind)
          || isNullMisuse("event", severity)
          || isNullMisuse("event", message)) {
        return;
      }
      double offset = (services.nanoClock.getAsLong() - startNanos) / 1e6;
      added = new InferenceRecord.Event(kind, severity, message, Math.max(0, offset));
      entry().addEvent(added);
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
  public long elapsedNanos() {
    return services.nanoClock.getAsLong() - startNanos;
  }

  @Override
  public synchronized boolean isEnded() {
    return ended;
  }

  @Override
  public void close() {
    close(ANY);
  }

  /** {@link #close()} for a holder of generation {@code gen}: a stale one never ends the current request. */
  void close(int gen) {
    RecordEntry record;
    double latencyMs;
    CharSequence in;
    Stage[] stillOpen;
    long now;
    endBatch(gen);
    synchronized (this) {
      if (!isCurrent(gen, "close")) {
        return;
      }
      if (ended) {
        misuse("trace " + requestId + " ended twice");
        return;
      }
      ended = true;
      closing = true;
      now = services.nanoClock.getAsLong();
      stillOpen = depth > 0 ? popTo(0, now) : NO_STAGES;
      latencyMs = Math.max(0, now - startNanos) / 1e6;
      record = entry();
      for (int i = 0; i < STAGES.length; i++) {
        if ((stageSeen & (1 << i)) != 0) {
          record.stageMs[i] = stageNanos[i] / 1e6;
        }
      }
      if (firstTokenNanos >= 0) {
        record.ttftMs = Math.max(0, firstTokenNanos - startNanos) / 1e6;
        if (tokenMarks > 1) {
          record.tpotMs = Math.max(0, lastTokenNanos - firstMarkNanos) / 1e6 / (tokenMarks - 1);
        }
      }
      record.outputTokens = outputTokens >= 0 ? outputTokens : (tokenMarks > 0 ? tokenMarks : -1);
      record.gpuMs = record.batch.hasShare() ? (Double.isNaN(gpuMs) ? 0 : gpuMs) + record.batch.shareMs() : gpuMs;
      record.latencyMs = latencyMs;
      record.status = status;
      record.endEpochNanos = epochNanos(now);
      in = input;
      input = null;
    }
    fireStageEnds(stillOpen, now);
    boolean handedOff = services.handoff.finish(record, in, handles, gpuMark);
    synchronized (this) {
      if (handedOff || !pooled) {
        entry = null; // the dispatcher owns it now, or it goes back to the pool below
      } else {
        record.reset(); // kept for this trace's next request
      }
      closing = false; // done with the entry: call/run may reuse this trace from now on
    }
    if (!handedOff && !pooled) {
      record.discard();
    }
  }

  /** The entry being filled; only called while the trace has not ended (the entry is then set). */
  private RecordEntry entry() {
    RecordEntry e = entry;
    if (e == null) {
      throw new IllegalStateException("trace " + requestId + " has no entry"); // not reachable: ended checked first
    }
    return e;
  }

  /**
   * Whether this trace has ended and its {@link #close()} has finished, so that {@code call}/{@code
   * run} may {@linkplain #init reuse} it. A close still running on another thread (the body let a
   * task end the trace and returned meanwhile) is still filling and handing off the entry: reusing the
   * trace then would write the next request into that entry.
   */
  synchronized boolean isEndedForReuse() {
    io.github.trtrace.core.internal.batch.MemberState batch = batchState;
    return ended && !closing && (batch == null || batch.isReusable());
  }

  // --- shared launches (issue 17): the scheduler's side, see SharedLaunch

  /** Made on the first launch or mark, then kept with this trace object (reused in garbage-free mode). */
  private volatile io.github.trtrace.core.internal.batch.@Nullable MemberState batchState;

  @Override
  public io.github.trtrace.core.internal.batch.MemberState batchState() {
    io.github.trtrace.core.internal.batch.MemberState b = batchState;
    if (b == null) {
      synchronized (this) {
        b = batchState;
        if (b == null) {
          b = batchState = new io.github.trtrace.core.internal.batch.MemberState();
        }
      }
    }
    return b;
  }

  @Override
  public TraceListener.@Nullable Handle @Nullable [] listenerHandles() {
    return handles;
  }

  @Override
  public void sharedLaunchFailed(long launchId, String errorType) {
    if (!isEnded()) {
      error(errorType);
      event("launch_error", "ERROR", "shared launch " + launchId + " failed: " + errorType);
    }
  }

  @Override
  public void sharedLaunchEvent(String kind, String severity, String message) {
    if (!isEnded()) {
      event(kind, severity, message);
    }
  }

  @Override
  public InferenceTrace waitingForSlot() {
    waitingForSlot(ANY);
    return this;
  }

  /** {@link #waitingForSlot()} for a holder of generation {@code gen}. */
  void waitingForSlot(int gen) {
    synchronized (this) {
      if (!isCurrent(gen, "waitingForSlot") || isEndedMisuse("waitingForSlot")) {
        return;
      }
    }
    if (!batchState().markSlotWait(services.nanoClock.getAsLong())) {
      misuse("waitingForSlot() on trace " + requestId + " while it is in an open launch");
    }
  }

  @Override
  public InferenceTrace preempted(String reason) {
    preempted(reason, ANY);
    return this;
  }

  /** {@link #preempted(String)} for a holder of generation {@code gen}. */
  void preempted(String reason, int gen) {
    synchronized (this) {
      if (!isCurrent(gen, "preempted") || isEndedMisuse("preempted") || isNullMisuse("preempted", reason)) {
        return;
      }
    }
    if (batchState().markPreempted(services.nanoClock.getAsLong())) {
      event("preempted", "INFO", reason, gen);
    } else {
      misuse("preempted() on trace " + requestId + " while it is in an open launch");
    }
  }

  /** Before the end: takes the batching state for good and copies it into the record (outside the monitor). */
  private void endBatch(int gen) {
    io.github.trtrace.core.internal.batch.MemberState batch = batchState;
    RecordEntry e = entry;
    if (batch != null && e != null && isLive(gen)) {
      // waits (bounded) for a launch of this request still open on another thread, which needs
      // this trace's monitor to report a failure: so not under the monitor
      batch.end(services.nanoClock.getAsLong(), e.batch);
    }
  }

  /**
   * Whether a holder of generation {@code gen} still holds this trace's current request; if not, the
   * call is counted as misuse (the handle's request ended and this trace serves another one). Holds
   * the monitor.
   */
  boolean isCurrent(int gen, String call) {
    if (gen == ANY || gen == generation) {
      return true;
    }
    misuse(call + "() on a garbage-free trace after its request ended (the trace now serves another request)");
    return false;
  }

  /** Whether generation {@code gen} is current and not ended. */
  synchronized boolean isLive(int gen) {
    return !ended && (gen == ANY || gen == generation);
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
    services.misuse(what);
  }
}
