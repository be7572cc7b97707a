package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.internal.batch.BatchMember;
import io.github.trtrace.core.internal.batch.MemberState;
import io.github.trtrace.core.internal.context.ContextAccess;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One request's trace: its lifecycle (start, reuse, end and the hand-off of its record), its stages,
 * its listeners and its shared-launch membership. Every method changes it holding the trace's monitor:
 * a trace is touched by one thread at a time in practice (it hops threads with the request), so the
 * lock is uncontended and costs a few nanoseconds, while any accidental concurrent use stays
 * consistent. Listener callbacks run after the monitor is released. The calls that fill the record's
 * fields are {@link RecordFillingTrace}'s; the stages {@link StagedTrace}'s.
 *
 * <p>Garbage-free (issue 10): the record's fields go straight into a pooled {@link RecordEntry}
 * that the dispatcher's worker turns into the immutable record; stage handles are one object per
 * trace and stage, made on first use; the start time is kept as epoch nanos.
 * With {@link InferenceTracer.Builder#garbageFree(boolean)} the trace object itself is reused by
 * {@code call}/{@code run} once ended ({@link #init}); a trace from {@code start} is new
 * each time, its entry still pooled. A reused trace is reached only through its current
 * {@link TraceHandle}: the methods taking a {@code gen} argument check the holder's generation
 * ({@link #isCurrent}) under the monitor, with the same check as the ended one.
 */
final class DefaultInferenceTrace extends StagedTrace implements BatchMember {

  private long startNanos;
  private long startEpochNanos;
  /**
   * See {@link #currentGeneration()}. A short, so that the object stays within its size (an int made every
   * trace 8 bytes larger: GarbageFreeTest's default path). It wraps after 65,536 requests of this trace,
   * each taking a handle: a stale handle has long been rebound by then ({@link TraceHandle.Ring}).
   */
  private short generation;
  /** Between the end and the last step of {@link #close()}: the entry may still be in use, no reuse. */
  private boolean closing;
  /** Reused by {@code call}/{@code run} once ended (garbage-free mode): keeps its entry when not handed off. */
  boolean pooled;
  /** The GPU poller's history position at the start; null without a poller. Set once, before publication. */
  io.github.trtrace.core.internal.gpu.GpuMetricsPoller.@Nullable Mark gpuMark;

  DefaultInferenceTrace(
      TraceServices services,
      String requestId,
      String modelName,
      Map<String, String> attributes,
      long startEpochNanos,
      long startNanos) {
    super(services, requestId, modelName);
    init(requestId, modelName, attributes, startEpochNanos, startNanos);
  }

  /** (Re)starts this trace for a new request: every field as a new trace has it, a fresh entry. */
  synchronized void init(
      String requestId, String modelName, Map<String, String> attributes, long startEpochNanos, long startNanos) {
    generation++;
    this.requestId = requestId;
    this.modelName = modelName;
    this.startEpochNanos = startEpochNanos;
    this.startNanos = startNanos;
    resetStages();
    handles = null;
    resetFields();
    gpuMark = null;
    MemberState batch = batchState;
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

  @Override
  int currentGeneration() {
    return generation;
  }

  /** The current generation; read by the tracer right after {@link #init}, on the same thread. */
  synchronized int generation() {
    return generation;
  }

  /** The monotonic start of the current request. */
  synchronized long startNanos() {
    return startNanos;
  }

  /** The wall-clock time of monotonic reading {@code nanos}: the start's wall clock plus the offset. */
  @Override
  long epochNanos(long nanos) {
    return startEpochNanos + Math.max(0, nanos - startNanos);
  }

  /** With listeners: their handles, filled by the tracer right after this call. */
  void handles(TraceListener.@Nullable Handle[] handles) {
    this.handles = handles;
  }

  /** The scope {@link #enterForBody} opened, until {@link #exitBody()}. */
  private ContextAccess.@Nullable ReusableScope bodyScope;
  private @Nullable TraceScope bodyFallback;

  /**
   * What {@link #makeCurrent()} does, for the body of {@code call}/{@code run}, without a scope
   * object: the request's context is opened through {@code scope}, the calling thread's reusable one.
   * With listeners, or when only the model differs from the current context's, it is {@code
   * makeCurrent()} (which allocates). Closed by {@link #exitBody()} on the same thread.
   */
  void enterForBody(ContextAccess.ReusableScope scope) {
    ContextAccess.Hooks hooks = ContextAccess.hooks();
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
    ContextAccess.ReusableScope scope = bodyScope;
    if (scope != null) {
      bodyScope = null;
      scope.close();
    }
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
      return context == null ? TraceScope.NOOP : new TraceListeners.CurrentScope(context, null, null, null, null);
    }
    return TraceListeners.makeCurrent(this, requestId, hs, context);
  }

  @Override
  public InferenceTrace event(String kind, String severity, String message) {
    event(kind, severity, message, ANY);
    return this;
  }

  /** {@link #event} for a holder of generation {@code gen}. */
  void event(String kind, String severity, String message, int gen) {
    InferenceRecord.Event added;
    TraceListener.Handle[] hs;
    int current;
    String id;
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
      hs = handles; // with the event added: this trace may serve another request once the monitor is released
      current = generation;
      id = requestId;
    }
    if (hs != null) {
      TraceListeners.event(this, id, hs, added, current);
    }
  }

  @Override
  public long elapsedNanos() {
    return services.nanoClock.getAsLong() - startNanos;
  }

  @Override
  public void close() {
    close(ANY);
  }

  /** {@link #close()} for a holder of generation {@code gen}: a stale one never ends the current request. */
  void close(int gen) {
    RecordEntry record;
    CharSequence in;
    Object[] stillOpen;
    long now;
    TraceListener.Handle[] hs;
    boolean claimed = false;
    while (true) {
      MemberState batch = null;
      RecordEntry e = null;
      synchronized (this) {
        if (!claimed) {
          if (!claimEnd(gen)) {
            return;
          }
          claimed = true;
          // taken for good below; from the claim on batchState() makes ended states only
          batch = batchState;
          e = entry();
        }
        if (batch == null) {
          ended = true;
          now = services.nanoClock.getAsLong();
          record = entry();
          stillOpen = endStages(now, record);
          in = fillEnd(record, startNanos);
          record.latencyMs = Math.max(0, now - startNanos) / 1e6;
          record.endEpochNanos = epochNanos(now);
          hs = handles;
          break;
        }
      }
      // A request that joined a launch: its batching state copied into the record. This waits (bounded) for
      // a launch of this request still open on another thread, which needs this trace's monitor to report a
      // failure: so not under the monitor. The claim keeps a second close() out meanwhile: it would copy
      // into the entry after this one had handed it off (and it recycled).
      batch.end(services.nanoClock.getAsLong(), e.batchTally());
    }
    fireStageEnds(record.requestId, hs, stillOpen, record.endEpochNanos);
    boolean handedOff = services.handoff.finish(record, in, hs, gpuMark, now);
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

  /**
   * Whether this trace has ended and its {@link #close()} has finished, so that {@code call}/{@code
   * run} may {@linkplain #init reuse} it. A close still running on another thread (the body let a
   * task end the trace and returned meanwhile) is still filling and handing off the entry: reusing the
   * trace then would write the next request into that entry.
   */
  synchronized boolean isEndedForReuse() {
    MemberState batch = batchState;
    return ended && !closing && (batch == null || batch.isReusable());
  }

  // --- shared launches (issue 17): the scheduler's side, see SharedLaunch

  /** Made on the first launch or mark, then kept with this trace object (reused in garbage-free mode). */
  private volatile @Nullable MemberState batchState;

  @Override
  public MemberState batchState() {
    MemberState b = batchState;
    if (b == null) {
      synchronized (this) {
        b = batchState;
        if (b == null) {
          // a request that ended (or claimed its end) before any launch or mark takes none from now on, as
          // one whose end took its state does: its end copied no batching figures (close() read none)
          b = batchState = ended || closing ? MemberState.endedForGood() : new MemberState();
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
    boolean marked;
    synchronized (this) { // marked under the monitor: init cannot reset the state for another request in between
      if (!isCurrent(gen, "waitingForSlot") || isEndedMisuse("waitingForSlot")) {
        return;
      }
      marked = batchState().markSlotWait(services.nanoClock.getAsLong()); // never waits
    }
    if (!marked) {
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
    boolean marked;
    synchronized (this) { // as waitingForSlot
      if (!isCurrent(gen, "preempted") || isEndedMisuse("preempted") || isNullMisuse("preempted", reason)) {
        return;
      }
      marked = batchState().markPreempted(services.nanoClock.getAsLong());
    }
    if (marked) {
      event("preempted", "INFO", reason, gen);
    } else {
      misuse("preempted() on trace " + requestId + " while it is in an open launch");
    }
  }

  /**
   * Makes the caller the one close() that ends the current request (under the monitor): false, and
   * misuse reported, when the holder is stale, the request has ended or another close() has claimed it.
   * Until the end itself the trace still takes fields, as a failing launch reports its error into it.
   */
  private boolean claimEnd(int gen) {
    if (!isCurrent(gen, "close")) {
      return false;
    }
    if (ended || closing) {
      misuse("trace " + requestId + " ended twice");
      return false;
    }
    closing = true;
    return true;
  }
}
