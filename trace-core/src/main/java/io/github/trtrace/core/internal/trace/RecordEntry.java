package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.OutputFlag;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.internal.inspect.InputInspector;
import io.github.trtrace.core.internal.inspect.OutputInspector;
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
 * <p>Where a consumer of the immutable record runs on the caller (a {@link TraceListener}'s {@code
 * onEnd}) or the dispatcher is not trtrace's own, the record is built on the caller from the entry
 * (allocating as before).
 */
final class RecordEntry implements PendingRecord {
  private static final RateLimitedLogger LOG =
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
  /** The request's shared launches (issue 17), copied from its trace at the end; reused. */
  final io.github.trtrace.core.internal.batch.BatchTally batch = new io.github.trtrace.core.internal.batch.BatchTally();
  /**
   * Work on the raw input deferred from the caller to whoever builds the record ({@link #resolveInput}),
   * the dispatcher's worker on the garbage-free path: only ever an immutable {@code String} (a mutable
   * {@code CharSequence} is scanned, or snapshotted, on the caller), never written anywhere, cleared once
   * used and on {@link #reset()}. {@code flagsInput}: the input whose {@link #inputFlags} are still to
   * be computed (threshold {@code veryLongChars}); {@code digestInput}: the input whose redacted {@link
   * #inputDigest} is still to be computed with {@code digestRedactor}; {@code flagsOutput}: the output
   * whose {@link #outputFlags} are still to be computed.
   */
  @Nullable String flagsInput;
  @Nullable String flagsOutput;
  int veryLongChars;
  @Nullable String digestInput;
  @Nullable Redactor digestRedactor;
  /** Allocated on the first event or layer only. */
  @Nullable List<InferenceRecord.Event> events;
  @Nullable List<InferenceRecord.LayerTime> layers;
  /** Attributes in insertion order: keys[i] = values[i], i below attributeCount; grown on first use. */
  private String @Nullable [] keys;
  private String @Nullable [] values;
  private int attributeCount;

  private RecordEntry(Pool pool) {
    this.pool = pool;
    reset();
  }

  /** Back to the unset state: every field as a new builder has it. */
  void reset() {
    requestId = "";
    modelName = "";
    timestampEpochNanos = 0;
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
    batch.reset();
    releaseDeferred(); // a sampled-out, dropped or discarded entry gives its share back too
    digestRedactor = null;
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
   * The immutable record, the entry unchanged: what {@link #build()} makes, without a builder, for
   * the worker. Only after {@link #check()} passed.
   */
  InferenceRecord buildChecked() {
    resolveInput();
    InferenceRecord.Builder b = InferenceRecord.builder(requestId, modelName)
        .timestamp(instant(timestampEpochNanos))
        .status(status)
        .errorType(errorType)
        .latencyMs(latencyMs)
        .traceId(traceId)
        .spanId(spanId)
        .inputTokens(inputTokens)
        .outputTokens(outputTokens)
        .maxTokens(maxTokens)
        .temperature(temperature)
        .topP(topP)
        .finishReason(finishReason)
        .gpuMs(gpuMs)
        .ttftMs(ttftMs)
        .tpotMs(tpotMs)
        .gpuUtil(gpuUtil)
        .gpuUtilMean(gpuUtilMean)
        .gpuUtilMax(gpuUtilMax)
        .gpuMemUtilMean(gpuMemUtilMean)
        .gpuMemUtilMax(gpuMemUtilMax)
        .gpuMemUsedMb(gpuMemUsedMb)
        .engineFingerprint(engineFingerprint)
        .sampledReason(sampledReason)
        .inputFlags(inputFlags)
        .inputDigest(inputDigest)
        .outputFlags(outputFlags)
        .batching(batch.toBatching());
    for (Stage s : STAGES) {
      b.stageMs(s, stageMs[s.ordinal()]);
    }
    if (events != null) {
      events.forEach(b::addEvent);
    }
    if (layers != null) {
      layers.forEach(b::addLayer);
    }
    String[] k = keys;
    String[] v = values;
    for (int i = 0; i < attributeCount && k != null && v != null; i++) {
      b.attribute(k[i], v[i]);
    }
    return b.build();
  }


  /** The immutable record through its builder (every check), the entry unchanged. */
  InferenceRecord build() {
    resolveInput();
    InferenceRecord.Builder b = InferenceRecord.builder(requestId, modelName)
        .timestamp(instant(timestampEpochNanos))
        .status(status)
        .errorType(errorType)
        .latencyMs(latencyMs)
        .traceId(traceId)
        .spanId(spanId)
        .traceId(traceId)
        .spanId(spanId)
        .inputTokens(inputTokens)
        .outputTokens(outputTokens)
        .maxTokens(maxTokens)
        .temperature(temperature)
        .topP(topP)
        .finishReason(finishReason)
        .gpuMs(gpuMs)
        .ttftMs(ttftMs)
        .tpotMs(tpotMs)
        .gpuUtil(gpuUtil)
        .gpuUtilMean(gpuUtilMean)
        .gpuUtilMax(gpuUtilMax)
        .gpuMemUtilMean(gpuMemUtilMean)
        .gpuMemUtilMax(gpuMemUtilMax)
        .gpuMemUsedMb(gpuMemUsedMb)
        .engineFingerprint(engineFingerprint)
        .sampledReason(sampledReason)
        .inputFlags(inputFlags)
        .inputDigest(inputDigest)
        .outputFlags(outputFlags)
        .batching(batch.toBatching());
    for (int i = 0; i < STAGES.length; i++) {
      b.stageMs(STAGES[i], stageMs[i]);
    }
    if (events != null) {
      events.forEach(b::addEvent);
    }
    if (layers != null) {
      layers.forEach(b::addLayer);
    }
    String[] k = keys;
    String[] v = values;
    for (int i = 0; i < attributeCount && k != null && v != null; i++) {
      b.attribute(k[i], v[i]);
    }
    return b.build();
  }

  /**
   * Computes what the caller deferred on the raw input (its flags, its redacted digest) and on the
   * output (its flags), and forgets both texts. Runs where the record is built: on the worker for a handed-off entry, which is what
   * takes the scan and the redaction (the redactor's regular expressions over up to 8,192 characters)
   * off the request's thread. A redactor that throws (against its contract; a {@link
   * StackOverflowError} or {@link LinkageError} included) yields {@value #REDACTION_FAILED}, logged:
   * the record is written all the same, and the raw input never is.
   */
  void resolveInput() {
    String flagsOf = flagsInput;
    String output = flagsOutput;
    String digestOf = digestInput;
    Redactor redactor = digestRedactor;
    releaseDeferred();
    if (flagsOf != null) {
      inputFlags = InputInspector.flags(flagsOf, veryLongChars);
    }
    if (output != null) {
      outputFlags = OutputInspector.flags(output);
    }
    if (digestOf != null && redactor != null) {
      digestRedactor = null;
      inputDigest = digest(redactor, digestOf);
    }
  }

  private String digest(Redactor redactor, String input) {
    try {
      return redactor.digest(input);
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      // the user's code, on the dispatcher's worker: an error from it must not stop the worker
      // (which treats what escapes it as a broken JVM and writes nothing more)
      LOG.warn("trtrace: the redactor failed on request {}: {}", requestId, e.toString());
      return REDACTION_FAILED;
    }
  }

  /**
   * Leaves the flags of {@code input} to {@link #resolveInput} (the worker) when the tracer's budget of
   * deferred text allows it; false: the caller must inspect it now. See {@link Pool#MAX_DEFERRED_CHARS}.
   */
  boolean deferInput(String input, int veryLong) {
    undeferInput();
    if (!pool.reserve(input.length())) {
      return false;
    }
    flagsInput = input;
    veryLongChars = veryLong;
    return true;
  }

  /** As {@link #deferInput} for the output's flags. */
  boolean deferOutput(String output) {
    undeferOutput();
    if (!pool.reserve(output.length())) {
      return false;
    }
    flagsOutput = output;
    return true;
  }

  /**
   * The redacted digest of {@code input}: left to {@link #resolveInput} when it is the text whose flags
   * are already deferred (the same string, no further share of the budget) or within the budget; past
   * the budget made now, so the queue does not keep the text.
   */
  void digestInput(String input, Redactor redactor) {
    if (input == flagsInput || pool.reserve(input.length())) {
      digestInput = input;
      digestRedactor = redactor;
    } else {
      inputDigest = digest(redactor, input);
    }
  }

  /** Forgets a deferred input (a later {@code input(...)} replaces it), giving its share back. */
  void undeferInput() {
    String earlier = flagsInput;
    if (earlier != null) {
      flagsInput = null;
      pool.give(earlier.length());
    }
  }

  /** As {@link #undeferInput} for the output. */
  void undeferOutput() {
    String earlier = flagsOutput;
    if (earlier != null) {
      flagsOutput = null;
      pool.give(earlier.length());
    }
  }

  /** Gives the deferred texts' share of the budget back and forgets them. */
  private void releaseDeferred() {
    long chars = 0;
    if (flagsInput != null) {
      chars += flagsInput.length();
    }
    if (flagsOutput != null) {
      chars += flagsOutput.length();
    }
    if (digestInput != null && digestInput != flagsInput) { // the same string holds one share
      chars += digestInput.length();
    }
    flagsInput = null;
    flagsOutput = null;
    digestInput = null;
    if (chars > 0) {
      pool.give(chars);
    }
  }

  /** The digest of an input whose redactor threw (the marker {@link Redactor}'s own failures use). */
  static final String REDACTION_FAILED = "[REDACTION_FAILED]";

  static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
  }

  @Override
  public InferenceRecord toRecord() {
    InferenceRecord r;
    try {
      check(); // ran on the caller already: the values cannot have changed since; cheap
      r = buildChecked();
    } catch (RuntimeException e) {
      // not expected: check() ran on the caller; written all the same, in its minimal form
      LOG.warn("trtrace could not build the record of request {}, wrote a minimal one: {}", requestId, e.toString());
      r = DefaultInferenceTracer.minimalRecord(requestId, modelName, instant(timestampEpochNanos), status, latencyMs);
    }
    discard();
    return r;
  }

  @Override
  public void discard() {
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

    Pool(int capacity) {
      this(capacity, MAX_DEFERRED_CHARS);
    }

    Pool(int capacity, long maxDeferredChars) {
      free = new org.jctools.queues.atomic.MpmcAtomicArrayQueue<>(capacity);
      this.maxDeferredChars = maxDeferredChars;
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
