// Over 400 lines: the pooled entry's fields, their reset, the checks and the read-only view the record's assembly reads, kept with the pool.
package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.OutputFlag;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.internal.dispatch.PendingRecord;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.redact.Redactor;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * One request's record in mutable, reusable form: what a trace fills on the caller thread and the
 * dispatcher's worker turns into the immutable {@link InferenceRecord} (issue 10's garbage-free
 * path, after Log4j2's pre-allocated ring entries).
 *
 * <p>Why not the immutable record itself: building it on the caller costs about 1.4 KB per request
 * (the record, its builder, the attribute map and its nodes, the list copies), and the record must
 * stay immutable because user sinks and listeners keep it. So the caller only writes plain fields
 * into an entry taken from a pool (strings are shared, not copied; attributes go into two arrays
 * that grow only on first use; stage times into a {@code double[]}; the start time as epoch nanos,
 * not an {@code Instant}), checks the values the record's builder would reject ({@link #check()}),
 * and hands the entry to the dispatcher. The worker builds the record from it ({@link #toRecord()})
 * and puts the entry back into the pool; so do a sampled-out, dropped or failed request's entry at
 * once ({@link #discard()}). An entry belongs to one owner at a time: the trace until it is handed
 * off, then the dispatcher, then the pool; nothing touches it after giving it away.
 *
 * <p>Listeners ({@link TraceListener}) do not change that path: an entry queued for the sinks carries
 * the trace's listener handles and its end time ({@link #endListeners}), and the worker calls their
 * {@code onEnd} with the record it built, before the sinks get it. The record is built on the caller
 * only where no worker will build it and a listener needs it (sampled out, dropped, failed) or where
 * the dispatcher is not trtrace's own.
 */
final class RecordEntry implements PendingRecord, RecordValues {
  static final RateLimitedLogger LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger("io.github.trtrace.tracer"), 10_000);
  private static final Stage[] STAGES = Stage.values();

  private final Pool pool;

  String requestId = "";
  String modelName = "";
  long timestampEpochNanos;
  Status status = Status.SUCCESS;
  @Nullable String errorType;
  double latencyMs;
  @Nullable String traceId;
  @Nullable String spanId;
  int inputTokens;
  int outputTokens;
  int maxTokens;
  double temperature;
  double topP;
  @Nullable String finishReason;
  final double[] stageMs = new double[STAGES.length];
  double gpuMs;
  double ttftMs;
  double tpotMs;
  double gpuUtil;
  double gpuUtilMean;
  double gpuUtilMax;
  double gpuMemUtilMean;
  double gpuMemUtilMax;
  double gpuMemUsedMb;
  @Nullable String engineFingerprint;
  @Nullable String sampledReason;
  Set<InputFlag> inputFlags = Collections.emptySet();
  @Nullable String inputDigest;
  Set<OutputFlag> outputFlags = Collections.emptySet();
  /** The request's shared launches (issue 17), copied from its trace at the end ({@link #batchTally()}); reused. */
  private final io.github.trtrace.core.internal.batch.BatchTally batch = new io.github.trtrace.core.internal.batch.BatchTally();
  /**
   * Whether {@link #batch} was filled since the last reset. Most requests of a service without shared launches
   * never fill it: then the worker neither reads nor resets it, a separate object the caller's thread did not
   * touch (its reset was 14 % of the worker's record building in a saturated run, cache misses mostly).
   */
  private boolean batched;
  /** Work on the raw input and output deferred from the caller to whoever builds the record. */
  private final DeferredInspection deferred;
  /** Allocated on the first event or layer only. */
  @Nullable List<InferenceRecord.Event> events;
  @Nullable List<InferenceRecord.LayerTime> layers;
  /** Attributes in insertion order: keys[i] = values[i], i below attributeCount; grown on first use. */
  private String @Nullable [] keys;
  private String @Nullable [] values;
  private int attributeCount;

  /**
   * The trace's listener handles, set when the entry is handed to the worker, which then calls their
   * {@code onEnd} ({@link #toRecord()}); null without listeners. {@link #endEpochNanos}: the trace's end.
   */
  TraceListener.@Nullable Handle @Nullable [] endListeners;
  long endEpochNanos;

  private RecordEntry(Pool pool) {
    this.pool = pool;
    this.deferred = new DeferredInspection(pool);
    reset();
  }

  /** Back to the unset state: every field as a new builder has it. */
  void reset() {
    requestId = "";
    modelName = "";
    timestampEpochNanos = 0;
    endListeners = null;
    endEpochNanos = 0;
    status = Status.SUCCESS;
    errorType = null;
    latencyMs = Double.NaN;
    traceId = null;
    spanId = null;
    inputTokens = -1;
    outputTokens = -1;
    maxTokens = -1;
    temperature = Double.NaN;
    topP = Double.NaN;
    finishReason = null;
    Arrays.fill(stageMs, Double.NaN);
    gpuMs = Double.NaN;
    ttftMs = Double.NaN;
    tpotMs = Double.NaN;
    gpuUtil = Double.NaN;
    gpuUtilMean = Double.NaN;
    gpuUtilMax = Double.NaN;
    gpuMemUtilMean = Double.NaN;
    gpuMemUtilMax = Double.NaN;
    gpuMemUsedMb = Double.NaN;
    engineFingerprint = null;
    sampledReason = null;
    inputFlags = Collections.emptySet();
    inputDigest = null;
    outputFlags = Collections.emptySet();
    if (batched) {
      batch.reset();
      batched = false;
    }
    deferred.release(); // a sampled-out, dropped or discarded entry gives its share back too
    if (events != null) {
      events.clear();
    }
    if (layers != null) {
      layers.clear();
    }
    if (keys != null && values != null) {
      Arrays.fill(keys, 0, attributeCount, null);
      Arrays.fill(values, 0, attributeCount, null);
    }
    attributeCount = 0;
  }

  /** Adds or replaces one attribute, keeping the first insertion's position (as a LinkedHashMap). */
  void attribute(String key, String value) {
    String[] k = keys;
    String[] v = values;
    if (k == null || v == null) {
      k = keys = new String[4];
      v = values = new String[4];
    }
    for (int i = 0; i < attributeCount; i++) {
      if (k[i].equals(key)) {
        v[i] = value;
        return;
      }
    }
    if (attributeCount == k.length) {
      k = keys = Arrays.copyOf(k, attributeCount * 2);
      v = values = Arrays.copyOf(v, attributeCount * 2);
    }
    k[attributeCount] = key;
    v[attributeCount] = value;
    attributeCount++;
  }

  void attributes(Map<String, String> attributes) {
    if (!attributes.isEmpty()) {
      attributes.forEach(this::attribute);
    }
  }

  void addEvent(InferenceRecord.Event e) {
    if (events == null) {
      events = new ArrayList<>(4);
    }
    events.add(e);
  }

  void addLayer(InferenceRecord.LayerTime l) {
    if (layers == null) {
      layers = new ArrayList<>(8);
    }
    layers.add(l);
  }

  /**
   * What {@link InferenceRecord.Builder#build()} would reject, checked here on the caller (allocating
   * only for the exception), so that the worker's {@link #toRecord()} does not fail.
   *
   * @throws IllegalArgumentException as {@code build()} does
   */
  void check() {
    TracerFactory.valueRule().check(latencyMs, inputTokens, outputTokens, maxTokens, temperature, topP,
        stageMs[0], stageMs[1], stageMs[2], gpuMs, stageMs[3], stageMs[4], ttftMs, tpotMs);
  }

  /**
   * The immutable record, the entry unchanged, for the worker; only after {@link #check()} passed. The record's
   * own assembly reads this entry's values ({@link RecordValues}) and copies its attributes, events and layers
   * once into the record's immutable collections: no builder in between (issue 22).
   */
  InferenceRecord buildChecked() {
    resolveInput();
    return TracerFactory.recordAssembly().build(this);
  }

  /** The immutable record with every check of {@link InferenceRecord.Builder#build()}, the entry unchanged. */
  InferenceRecord build() {
    resolveInput();
    check();
    return TracerFactory.recordAssembly().build(this);
  }

  // The values the record's assembly reads (RecordValues): the fields above, as they are, except where noted.
  @Override public String requestId() { return requestId; }
  @Override public String modelName() { return modelName; }
  @Override public Instant timestamp() { return instant(timestampEpochNanos); }
  @Override public Status status() { return status; }
  @Override public @Nullable String errorType() { return errorType; }
  @Override public double latencyMs() { return latencyMs; }
  @Override public @Nullable String traceId() { return traceId; }
  @Override public @Nullable String spanId() { return spanId; }
  @Override public int inputTokens() { return inputTokens; }
  @Override public int outputTokens() { return outputTokens; }
  @Override public int maxTokens() { return maxTokens; }
  @Override public double temperature() { return temperature; }
  @Override public double topP() { return topP; }
  @Override public @Nullable String finishReason() { return finishReason; }
  @Override public double stageMs(Stage stage) { return stageMs[stage.ordinal()]; }
  @Override public double gpuMs() { return gpuMs; }
  @Override public double ttftMs() { return ttftMs; }
  @Override public double tpotMs() { return tpotMs; }
  @Override public double gpuUtil() { return gpuUtil; }
  @Override public double gpuUtilMean() { return gpuUtilMean; }
  @Override public double gpuUtilMax() { return gpuUtilMax; }
  @Override public double gpuMemUtilMean() { return gpuMemUtilMean; }
  @Override public double gpuMemUtilMax() { return gpuMemUtilMax; }
  @Override public double gpuMemUsedMb() { return gpuMemUsedMb; }
  @Override public @Nullable String sampledReason() { return sampledReason; }
  @Override public Set<InputFlag> inputFlags() { return inputFlags; }
  @Override public @Nullable String inputDigest() { return inputDigest; }
  @Override public Set<OutputFlag> outputFlags() { return outputFlags; }
  @Override public String[] attributeKeys() { return keys != null ? keys : NO_STRINGS; }
  @Override public String[] attributeValues() { return values != null ? values : NO_STRINGS; }
  @Override public int attributeCount() { return attributeCount; }
  @Override public @Nullable List<InferenceRecord.Event> events() { return events; }
  @Override public @Nullable List<InferenceRecord.LayerTime> layers() { return layers; }

  /** A member of shared launches without a fingerprint of its own carries its launches' engine's. */
  @Override
  public @Nullable String engineFingerprint() {
    return engineFingerprint != null || !batched ? engineFingerprint : batch.engineFingerprint();
  }

  /** The request's shared launches summed up (a new summary), or null: none. */
  @Override
  public SharedLaunch.@Nullable Summary batching() {
    return batched ? batch.toBatching() : null;
  }

  /** {@code ownGpuMs} plus the request's shares of its shared launches' GPU time, when one had GPU time. */
  double withShares(double ownGpuMs) {
    return batched && batch.hasShare() ? (Double.isNaN(ownGpuMs) ? 0 : ownGpuMs) + batch.shareMs() : ownGpuMs;
  }

  /** The tally the trace's batching figures are copied into at its end; from then on the record carries them. */
  io.github.trtrace.core.internal.batch.BatchTally batchTally() {
    batched = true;
    return batch;
  }

  private static final String[] NO_STRINGS = {};

  /** See {@link DeferredInspection#resolve}. */
  void resolveInput() {
    deferred.resolve(this);
  }

  boolean deferInput(String input, int veryLong) {
    return deferred.deferInput(input, veryLong);
  }

  boolean deferOutput(String output) {
    return deferred.deferOutput(output);
  }

  void digestInput(String input, Redactor redactor) {
    deferred.digestInput(input, redactor, this);
  }

  void undeferInput() {
    deferred.undeferInput();
  }

  void undeferOutput() {
    deferred.undeferOutput();
  }

  /** The digest of an input whose redactor threw (the marker {@link Redactor}'s own failures use). */
  static final String REDACTION_FAILED = "[REDACTION_FAILED]";

  static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
  }

  /**
   * Builds the record and gives the entry back to the pool; then, on the same (worker) thread, the
   * listeners' {@code onEnd} with it (after the entry is back: they keep the immutable record only).
   */
  @Override
  public InferenceRecord toRecord() {
    TraceListener.@Nullable Handle[] listeners = endListeners;
    long end = endEpochNanos;
    endListeners = null;
    InferenceRecord r;
    try {
      check(); // ran on the caller already: the values cannot have changed since; cheap
      r = buildChecked();
    } catch (RuntimeException e) {
      // not expected: check() ran on the caller; written all the same, in its minimal form
      LOG.warn("trtrace could not build the record of request {}, wrote a minimal one: {}", requestId, e.toString());
      r = RecordHandoff.minimalRecord(requestId, modelName, instant(timestampEpochNanos), status, latencyMs);
    }
    discard();
    if (listeners != null) {
      ListenerEnds.fire(listeners, r, end, pool.listenerFailures);
    }
    return r;
  }

  /**
   * Back to the pool unbuilt. An entry that still carries listeners (the dispatcher discarding its queue
   * at a close that timed out) is built for them first, so that every listener still ends its trace.
   */
  @Override
  public void discard() {
    if (endListeners != null) {
      toRecord();
      return;
    }
    reset();
    pool.release(this);
  }

  /**
   * The free entries of one tracer: a bounded lock-free MPMC queue (taken by callers, given back by
   * the worker or by the caller for an entry that was not handed off). Empty: a new entry is made
   * (the pool fills up during warm-up to the number in flight); full: the entry is left to the GC.
   */
  static final class Pool {
    /**
     * The most characters of input and output text the tracer's queued entries may keep for the worker
     * to inspect (about 8 MiB of UTF-16, 4 MiB of Latin-1 strings). A deferred text stays referenced by
     * its entry until the record is built, so without a bound the queue's capacity, counted in records,
     * would not bound its memory: 8,192 queued requests with 100K-character prompts and answers would pin
     * gigabytes, exactly while the sinks are slow. Past the budget a text is inspected on the caller, as
     * a mutable one always is; in steady state the queue is nearly empty and everything is deferred.
     */
    static final long MAX_DEFERRED_CHARS = 4L << 20;

    private final org.jctools.queues.atomic.MpmcAtomicArrayQueue<RecordEntry> free;
    private final java.util.concurrent.atomic.AtomicLong deferredChars = new java.util.concurrent.atomic.AtomicLong();
    private final long maxDeferredChars;
    /** Where a listener's failing {@code onEnd} on the worker is counted. */
    final ListenerEnds.Failures listenerFailures;

    Pool(int capacity, ListenerEnds.Failures listenerFailures) {
      this(capacity, MAX_DEFERRED_CHARS, listenerFailures);
    }

    Pool(int capacity, long maxDeferredChars, ListenerEnds.Failures listenerFailures) {
      free = new org.jctools.queues.atomic.MpmcAtomicArrayQueue<>(capacity);
      this.maxDeferredChars = maxDeferredChars;
      this.listenerFailures = listenerFailures;
    }

    boolean reserve(long chars) {
      if (deferredChars.addAndGet(chars) <= maxDeferredChars) {
        return true;
      }
      deferredChars.addAndGet(-chars);
      return false;
    }

    void give(long chars) {
      deferredChars.addAndGet(-chars);
    }

    /** Characters of text the queued entries keep for the worker now. */
    long deferredChars() {
      return deferredChars.get();
    }

    RecordEntry take() {
      RecordEntry e = free.poll();
      return e != null ? e : new RecordEntry(this);
    }

    void release(RecordEntry e) {
      free.offer(e);
    }
  }
}
