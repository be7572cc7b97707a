// Over 400 lines: the tracer's entry points (call/run/start in their overloads), the garbage-free pools of traces, handles and scopes they share, and the wall-clock calibration.
package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer.TracedRunnable;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.InferenceTracer.TracedCallable;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.TraceParent;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.internal.dispatch.Dispatcher;
import io.github.trtrace.core.internal.gpu.GpuMetricsPoller;
import io.github.trtrace.core.internal.context.ContextAccess;
import io.github.trtrace.core.sampling.Sampler;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The tracer: starts traces, turns ended traces into records, hands them to the dispatcher.
 *
 * <p>Garbage-free (issue 10): an ended trace's {@link RecordEntry} goes to trtrace's own dispatcher
 * as it is ({@code PendingOffer}); the worker builds the immutable record and calls the listeners'
 * {@code onEnd} with it, whether listeners are installed or not (issue 16 §3). The record is built on the
 * caller only for listeners of a record no worker builds (sampled out, dropped, failed) or for a
 * dispatcher that is not trtrace's own. With {@link
 * InferenceTracer.Builder#garbageFree(boolean)}, {@code call}/{@code run} also reuse ended trace
 * objects ({@link #freeTraces}), since these methods bound the trace's lifetime: it is ended and back
 * in the pool when the body returns. The body (and the listeners' {@code onStart}) get a {@link
 * TraceHandle} of it, stamped with the request, so that a handle kept past its body reaches no later
 * request.
 */
final class DefaultInferenceTracer implements InferenceTracer {

  final Clock wallClock;
  final LongSupplier nanoClock;
  private final Dispatcher dispatcher;
  private final @Nullable GpuMetricsPoller gpuPoller;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final TraceListener[] listeners;
  /** Counted here: traces started; the rest in {@link RecordHandoff} and {@link TraceServices#misuse}. */
  private final LongAdder started = new LongAdder();
  private final LongAdder misuse = new LongAdder();
  /** What ended traces' entries go through on their way to the sinks. */
  private final RecordHandoff handoff;
  /** What this tracer's traces use of it. */
  final TraceServices services;
  /** Whether {@code call}/{@code run} reuse trace objects; see {@link InferenceTracer.Builder#garbageFree}. */
  private final boolean garbageFree;
  /**
   * The ended traces {@code call}/{@code run} reuse (garbage-free mode only). A bounded MPMC queue of
   * the tracer, not a thread-local: a thread-local value holding traces would hold their tracer, and
   * with it the thread-local's key, so every pool thread would keep a closed tracer alive for good.
   */
  private final org.jctools.queues.atomic.MpmcAtomicArrayQueue<DefaultInferenceTrace> freeTraces =
      new org.jctools.queues.atomic.MpmcAtomicArrayQueue<>(TRACE_POOL_CAPACITY);

  /** The handles garbage-free bodies hold instead of the pooled traces (issue 19 §2). */
  private final TraceHandle.Ring handles = new TraceHandle.Ring();

  /** Ended traces kept for reuse; more in flight at once are made and left to the GC. */
  static final int TRACE_POOL_CAPACITY = 256;

  /** Per thread, the context scopes of {@code call}/{@code run} bodies; see {@link ScopeCache}. */
  private static final ThreadLocal<ScopeCache> SCOPES = ThreadLocal.withInitial(ScopeCache::new);

  /**
   * Free entries kept: the default queue (8192) plus its reserve (1024) and a batch in the worker's
   * hands, so that even a full queue recycles its entries. Entries are made on demand, not up front.
   */
  static final int ENTRY_POOL_CAPACITY = 16_384;


  DefaultInferenceTracer(
      TracerFactory b, Sampler sampler, Dispatcher dispatcher, @Nullable GpuMetricsPoller gpuPoller) {
    this.wallClock = b.wallClock;
    this.nanoClock = b.nanoClock;
    this.listeners = b.listeners.toArray(new TraceListener[0]);
    this.dispatcher = dispatcher;
    this.gpuPoller = gpuPoller;
    ListenerEnds.Failures failures = this::listenerFailed;
    this.handoff = new RecordHandoff(sampler, b.redactor, b.inputDigest, dispatcher, gpuPoller, failures,
        b.nanoClock, b.systemClocks);
    this.services = new TraceServices(nanoClock, new RecordEntry.Pool(ENTRY_POOL_CAPACITY, failures),
        b.inputDigest, b.veryLongInputChars, handoff, misuse);
    this.garbageFree = b.garbageFree;
    this.systemClocks = b.systemClocks;
    calibrate();
    this.launches = new io.github.trtrace.core.internal.batch.Launches(nanoClock, this::epochNanosAt, listeners,
        b.launchLogSink == null ? null
            : new io.github.trtrace.core.internal.batch.LaunchLog(b.launchLogSink, b.launchLogMembers),
        this::launchMisuse);
  }

  /** Shared launches (issue 17): IDs, the pool, the listeners' onLaunch and the launch log. */
  private final io.github.trtrace.core.internal.batch.Launches launches;

  private void launchMisuse(String what) {
    services.misuse(what);
  }

  @Override
  public io.github.trtrace.core.SharedLaunch launch(@Nullable String engineFingerprint) {
    return launches.open(engineFingerprint);
  }

  @Override
  public io.github.trtrace.core.SharedLaunch.Stats launchStats() {
    return launches.stats();
  }

  /**
   * With the system clocks, a request's wall-clock start is {@code System.nanoTime()} plus an offset taken
   * from one {@code Clock.instant()} reading, because {@code Clock.instant()} makes an {@code Instant} per
   * call (its {@code EPOCH} shortcut defeats escape analysis), and the record wants more than {@code
   * currentTimeMillis()}'s precision. At most every {@link #RECALIBRATE_NANOS} a caller checks the offset
   * against {@code Clock.millis()} (no allocation) and takes a new {@code Instant} reading only when the
   * derived time has left that millisecond by more than {@link #DRIFT_NANOS} (NTP slewing over many
   * seconds, or a step of the wall clock). So the derived time is within about 1.5 ms of the wall clock,
   * and the check allocates nothing: it runs on whatever thread calls (the scheduler's too, where a
   * launch must allocate nothing). Test clocks ({@code clocks(...)}) are read as they are, once per trace.
   */
  private final boolean systemClocks;

  static final long RECALIBRATE_NANOS = 1_000_000_000L;
  static final long DRIFT_NANOS = 500_000L;
  /** Epoch nanos minus {@code nanoTime()}, from the last {@code Instant} reading. */
  private volatile long offsetNanos;
  /** The monotonic reading of the last check; two threads checking at once only repeat a check. */
  private volatile long checkedAt;

  /** The wall clock, in epoch nanos, at monotonic reading {@code nanos} (just taken). */
  long epochNanosAt(long nanos) {
    if (!systemClocks) {
      return DefaultInferenceTrace.toEpochNanos(wallClock.instant());
    }
    if (nanos - checkedAt >= RECALIBRATE_NANOS) {
      check(nanos);
    }
    return nanos + offsetNanos;
  }

  private void check(long nanos) {
    checkedAt = nanos;
    if (drifted(nanos + offsetNanos, wallClock.millis())) {
      calibrate();
    }
  }

  /** Whether a derived time is more than {@link #DRIFT_NANOS} outside the wall clock's millisecond. */
  static boolean drifted(long derivedEpochNanos, long wallMillis) {
    long from = wallMillis * 1_000_000L;
    return derivedEpochNanos < from - DRIFT_NANOS || derivedEpochNanos >= from + 1_000_000L + DRIFT_NANOS;
  }

  private void calibrate() {
    long epoch = DefaultInferenceTrace.toEpochNanos(wallClock.instant());
    long now = nanoClock.getAsLong();
    offsetNanos = epoch - now;
    checkedAt = now;
  }

  /**
   * Per thread, shared by every tracer: the context scopes {@code call}/{@code run} open around their
   * bodies (every mode: a scope never leaves the call that opened it, so reusing it is always safe).
   * Nested calls take one per level. Holds nothing of a tracer.
   */
  static final class ScopeCache {
    final ContextAccess.ReusableScope[] scopes = new ContextAccess.ReusableScope[4];
    int freeScopes;

    ContextAccess.ReusableScope takeScope() {
      if (freeScopes > 0) {
        ContextAccess.ReusableScope s = scopes[--freeScopes];
        scopes[freeScopes] = null;
        return s;
      }
      return ContextAccess.hooks().newScope();
    }

    void giveBack(ContextAccess.ReusableScope s) {
      if (freeScopes < scopes.length) {
        scopes[freeScopes++] = s;
      }
    }
  }

  @Override
  public <T, E extends Throwable> T call(String modelName, TracedCallable<T, E> body) throws E {
    RequestContext ctx = RequestContext.current();
    String id = ctx.requestId();
    return callTraced(traceFor(modelName, id == null ? RequestIds.generate() : id, ctx.attributes()), body);
  }

  @Override
  public <T, E extends Throwable> T call(String modelName, @Nullable String requestIdHeader, TracedCallable<T, E> body)
      throws E {
    if (requestIdHeader == null || !RequestIds.isValid(requestIdHeader)) {
      return InferenceTracer.super.call(modelName, requestIdHeader, body); // a generated ID, maybe a rejected value
    }
    return callTraced(traceFor(modelName, requestIdHeader, attributesFor(requestIdHeader)), body);
  }

  @Override
  public <E extends Throwable> void run(String modelName, TracedRunnable<E> body) throws E {
    RequestContext ctx = RequestContext.current();
    String id = ctx.requestId();
    runTraced(traceFor(modelName, id == null ? RequestIds.generate() : id, ctx.attributes()), body);
  }

  @Override
  public <E extends Throwable> void run(String modelName, @Nullable String requestIdHeader, TracedRunnable<E> body)
      throws E {
    if (requestIdHeader == null || !RequestIds.isValid(requestIdHeader)) {
      InferenceTracer.super.run(modelName, requestIdHeader, body);
      return;
    }
    runTraced(traceFor(modelName, requestIdHeader, attributesFor(requestIdHeader)), body);
  }

  /** The current context's attributes for a trace with the valid ID {@code id} (see {@link #start(String, String)}). */
  private static Map<String, String> attributesFor(String id) {
    RequestContext ctx = RequestContext.current();
    Map<String, String> attributes = ctx.attributes();
    if (attributes.containsKey(RequestIds.REJECTED_ATTRIBUTE) && !id.equals(ctx.requestId())) {
      attributes = new LinkedHashMap<>(attributes);
      attributes.remove(RequestIds.REJECTED_ATTRIBUTE);
    }
    return attributes;
  }

  /** A new trace, or in garbage-free mode one of this thread's ended ones, started now. */
  private InferenceTrace traceFor(@Nullable String modelName, String id, Map<String, String> attributes) {
    String model = modelName == null ? "unknown" : modelName;
    if (!garbageFree) {
      return begin(model, id, attributes);
    }
    long nanos = nanoClock.getAsLong();
    long epochNanos = epochNanosAt(nanos);
    DefaultInferenceTrace t = freeTraces.poll();
    if (t != null) {
      t.init(id, model, attributes, epochNanos, nanos);
    } else {
      t = new DefaultInferenceTrace(services, id, model, attributes, epochNanos, nanos);
      t.pooled = true;
    }
    TraceHandle h = handles.take(t);
    started.increment();
    attach(t, h, id);
    return h;
  }

  /**
   * {@code call}'s body under {@code t}: what {@code InferenceTracer.callWith} does, with the context
   * opened through this thread's reusable scope instead of a new context and scope per request.
   */
  private <T, E extends Throwable> T callTraced(InferenceTrace view, TracedCallable<T, E> body) throws E {
    DefaultInferenceTrace t = traceOf(view);
    ScopeCache cache = SCOPES.get();
    ContextAccess.ReusableScope scope = cache.takeScope();
    try {
      t.enterForBody(scope);
      try {
        return body.call(view);
      } catch (Throwable e) {
        t.error(e);
        throw e;
      } finally {
        t.exitBody();
        t.close();
      }
    } finally {
      cache.giveBack(scope);
      release(t, view);
    }
  }

  /**
   * {@link #callTraced} for a body without a result; not an adapter to it, which would make a lambda
   * capturing {@code body} per request (the garbage-free path must allocate nothing).
   */
  private <E extends Throwable> void runTraced(InferenceTrace view, TracedRunnable<E> body) throws E {
    DefaultInferenceTrace t = traceOf(view);
    ScopeCache cache = SCOPES.get();
    ContextAccess.ReusableScope scope = cache.takeScope();
    try {
      t.enterForBody(scope);
      try {
        body.run(view);
      } catch (Throwable e) {
        t.error(e);
        throw e;
      } finally {
        t.exitBody();
        t.close();
      }
    } finally {
      cache.giveBack(scope);
      release(t, view);
    }
  }

  /** The trace behind what the body gets: the trace itself, or in garbage-free mode its handle. */
  private static DefaultInferenceTrace traceOf(InferenceTrace view) {
    return view instanceof TraceHandle h ? h.trace() : (DefaultInferenceTrace) view;
  }

  /** A garbage-free trace back into the pool once ended, its handle into the ring. */
  private void release(DefaultInferenceTrace t, InferenceTrace view) {
    if (view instanceof TraceHandle h) {
      handles.giveBack(h);
    }
    if (t.pooled && t.isEndedForReuse()) {
      freeTraces.offer(t);
    }
  }

  @Override
  public InferenceTrace start(String modelName) {
    RequestContext ctx = RequestContext.current();
    String id = ctx.requestId();
    // RequestContext.with(...) already replaced an invalid ID (keeping the rejected value as an
    // attribute), so a context's ID is valid by construction and is not checked again here.
    return begin(
        modelName == null ? "unknown" : modelName, id == null ? RequestIds.generate() : id, ctx.attributes());
  }

  @Override
  public InferenceTrace start(String modelName, @Nullable String requestId) {
    if (requestId != null && RequestIds.isValid(requestId)) {
      return begin(modelName == null ? "unknown" : modelName, requestId, attributesFor(requestId));
    }
    RequestIds.Accepted accepted = RequestIds.accept(requestId);
    RequestContext ctx = RequestContext.current();
    Map<String, String> attributes = ctx.attributes();
    String rejected = accepted.rejectedValue();
    if (rejected != null) {
      attributes = new LinkedHashMap<>(attributes);
      attributes.put(RequestIds.REJECTED_ATTRIBUTE, rejected);
    } else if (attributes.containsKey(RequestIds.REJECTED_ATTRIBUTE) && !accepted.id().equals(ctx.requestId())) {
      // the context's rejected value belongs to the request whose ID replaced it, not to this one
      attributes = new LinkedHashMap<>(attributes);
      attributes.remove(RequestIds.REJECTED_ATTRIBUTE);
    }
    return begin(modelName == null ? "unknown" : modelName, accepted.id(), attributes);
  }

  private DefaultInferenceTrace begin(String model, String id, Map<String, String> attributes) {
    started.increment();
    long nanos = nanoClock.getAsLong();
    DefaultInferenceTrace t = new DefaultInferenceTrace(services, id, model, attributes, epochNanosAt(nanos), nanos);
    attach(t, t, id);
    return t;
  }

  /** The GPU mark and the listeners' handles of a trace that just started. */
  private void attach(DefaultInferenceTrace t, InferenceTrace view, String id) {
    if (gpuPoller != null) {
      t.gpuMark = gpuPoller.mark();
    }
    if (listeners.length > 0) {
      TraceListener.Handle[] handles = new TraceListener.Handle[listeners.length];
      t.handles(handles);
      for (int i = 0; i < listeners.length; i++) {
        try {
          handles[i] =
              Objects.requireNonNull(listeners[i].onStart(view, t.startEpochNanos()), "onStart returned null");
        } catch (RuntimeException | LinkageError e) {
          handles[i] = null;
          listenerFailed(listeners[i].getClass().getName(), "onStart", id, e);
        }
      }
    }
    // The caller's trace context (trace-http's filter put it in the request's context): after the
    // listeners, so that one exporting its own span (trace-otel, parented on it) links the record first.
    RequestContext ctx = RequestContext.current();
    TraceParent caller = ctx.traceParent();
    if (caller != null && id.equals(ctx.requestId())) {
      t.traceContext(caller.traceId(), caller.parentId());
    }
  }

  void listenerFailed(String listener, String callback, String requestId, Throwable e) {
    TraceServices.listenerFailed(misuse, listener, callback, requestId, e);
  }

  /** Traces started and not yet ended (the shutdown hook's drain waits for them). */
  long inFlight() {
    return started.sum() - handoff.ended.sum();
  }

  @Override
  public TracerStats stats() {
    return new TracerCounts(
        started.sum(),
        handoff.ended.sum(),
        handoff.sampledOut.sum(),
        handoff.enqueued.sum(),
        handoff.recordErrors.sum(),
        misuse.sum(),
        dispatcher.stats());
  }

  @Override
  public CompletableFuture<Void> flush() {
    return CompletableFuture.allOf(dispatcher.flush(), launches.flush());
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (gpuPoller != null) {
      gpuPoller.close();
    }
    launches.close();
    dispatcher.close();
  }
}
