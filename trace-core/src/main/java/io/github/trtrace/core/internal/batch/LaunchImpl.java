package io.github.trtrace.core.internal.batch;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.TraceListener;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The tracer's {@link SharedLaunch}, pooled ({@link Launches}): member arrays that grow to the
 * largest batch seen and are then reused, so a launch in steady state allocates nothing, members
 * included. A launch object made or grown after a larger batch was seen takes that batch's size at
 * once ({@link Launches#newLaunchCapacity()}): the pool's objects grow once each, not batch by batch.
 * Its close is O(members): weights and shares in one pass, each member's figures in a second; the top {@value #TOP_PREFILL} prefill members of the launch are kept as members join, so
 * the "slowed by" neighbours cost a constant per member.
 */
final class LaunchImpl implements SharedLaunch, SharedLaunch.Ended {
  /** One more than a member keeps: a member that is itself among them still sees {@link BatchTally#NEIGHBOURS} others. */
  static final int TOP_PREFILL = BatchTally.NEIGHBOURS + 1;
  private static final java.lang.invoke.VarHandle CLOSING;

  static {
    try {
      CLOSING = java.lang.invoke.MethodHandles.lookup().findVarHandle(LaunchImpl.class, "closing", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Claimed by the one close() of this use (compare-and-set): a concurrent second one returns at once. */
  @SuppressWarnings("unused") // through CLOSING
  private volatile boolean closing;
  private static final int MAX_EVENTS = 8;

  final Launches owner;
  long id;
  private @Nullable Thread openedBy;
  /** Volatile: a launch closed on another thread must be seen closed by its opener ({@link Launches.OpenStack}). */
  private volatile boolean open;
  long startNanos;
  long startEpochNanos;
  long endEpochNanos;
  @Nullable String fingerprint;
  double gpuMs;
  double hostMs;
  ShareMethod method = ShareMethod.TOKENS;
  @Nullable String errorType;

  int size;
  MemberState[] states;
  BatchMember[] traces;
  String[] ids;
  int[] prefill;
  int[] decode;
  int[] rows;
  double[] weight;
  double[] share;
  /**
   * With listeners: each member's listener handles, read while the launch still held it ({@link #attribute}).
   * Once released, a member may end and (garbage-free) its trace serve another request before {@code onLaunch}.
   */
  TraceListener.@Nullable Handle @Nullable [] @Nullable [] memberHandles;
  long prefillTokens;
  int decodeRows;
  long rowCount;
  private final int[] topPrefill = new int[TOP_PREFILL];
  private int topCount;

  /** Events of the launch for its log line: kind, severity, message, at most {@value #MAX_EVENTS}. */
  final String[] events = new String[MAX_EVENTS * 3];
  int eventCount;
  int eventsDropped;
  /** Enqueues the launch took, as its engine said ({@link #passes(int)}); 0 when not said. */
  int passes;

  LaunchImpl(Launches owner) {
    this.owner = owner;
    int n = owner.newLaunchCapacity();
    states = new MemberState[n];
    traces = new BatchMember[n];
    ids = new String[n];
    prefill = new int[n];
    decode = new int[n];
    rows = new int[n];
    weight = new double[n];
    share = new double[n];
    memberHandles = owner.hasListeners() ? new TraceListener.Handle[n][] : null;
  }

  void open(long id, @Nullable String fingerprint, long startNanos, long startEpochNanos) {
    this.id = id;
    this.fingerprint = fingerprint;
    this.startNanos = startNanos;
    this.startEpochNanos = startEpochNanos;
    this.endEpochNanos = startEpochNanos;
    this.openedBy = Thread.currentThread();
    this.gpuMs = Double.NaN;
    this.hostMs = Double.NaN;
    this.method = ShareMethod.TOKENS;
    this.passes = 0;
    this.errorType = null;
    this.size = 0;
    this.prefillTokens = 0;
    this.decodeRows = 0;
    this.rowCount = 0;
    this.topCount = 0;
    this.eventCount = 0;
    this.eventsDropped = 0;
    this.closing = false;
    this.open = true;
  }

  boolean openedBy(Thread t) {
    return open && openedBy == t;
  }

  /** Clears references to members' traces, so that a pooled launch keeps no request alive. */
  void clear() {
    Arrays.fill(states, 0, size, null);
    Arrays.fill(traces, 0, size, null);
    Arrays.fill(ids, 0, size, null);
    if (memberHandles != null) {
      Arrays.fill(memberHandles, 0, size, null);
    }
    Arrays.fill(events, 0, eventCount * 3, null);
    layers = null;
    size = 0;
    eventCount = 0;
    openedBy = null;
  }

  @Override public long id() { return id; }

  /** The member row of {@code trace} in this launch, added if new; -1 when it cannot join. */
  private int member(@Nullable InferenceTrace trace, String call) {
    if (!open) {
      owner.misuse(call + "() on launch " + id + " after close");
      return -1;
    }
    if (!(trace instanceof BatchMember m)) {
      if (trace == null) {
        owner.misuse(call + "(null) on launch " + id);
      }
      return -1; // a no-op tracer's trace: nothing to attribute
    }
    MemberState st = m.batchState();
    if (!st.join(this, startNanos, m)) {
      if (st.heldBy(this)) {
        return st.row; // already a member (a prefill and a decode row in one step): the same row
      }
      owner.misuse(call + "(" + m.requestId() + ") on launch " + id
          + ": the request is in another open launch, or has ended");
      return -1;
    }
    if (size == states.length) {
      grow();
    }
    int i = size++;
    st.row = i;
    states[i] = st;
    traces[i] = m;
    ids[i] = m.requestId();
    prefill[i] = 0;
    decode[i] = 0;
    rows[i] = 0;
    weight[i] = 0;
    share[i] = Double.NaN;
    return i;
  }

  /** Room for the largest batch seen by any launch of the tracer, at least twice the current. */
  private void grow() {
    int n = owner.grew(states.length * 2);
    states = Arrays.copyOf(states, n);
    traces = Arrays.copyOf(traces, n);
    ids = Arrays.copyOf(ids, n);
    prefill = Arrays.copyOf(prefill, n);
    decode = Arrays.copyOf(decode, n);
    rows = Arrays.copyOf(rows, n);
    weight = Arrays.copyOf(weight, n);
    share = Arrays.copyOf(share, n);
    if (memberHandles != null) {
      memberHandles = Arrays.copyOf(memberHandles, n);
    }
  }

  @Override
  public SharedLaunch prefill(InferenceTrace trace, int tokens) {
    if (tokens < 0) {
      owner.misuse("prefill(" + tokens + ") on launch " + id);
      return this;
    }
    int i = member(trace, "prefill");
    if (i >= 0) {
      tokens = capped(prefill[i], tokens, "prefill");
      prefill[i] += tokens;
      prefillTokens += tokens;
      rankPrefill(i);
    }
    return this;
  }

  /**
   * {@code add} (>= 0), or less so that {@code have + add} stays an int: a member's count past {@link
   * Integer#MAX_VALUE} (a scheduler's bug) would wrap to a negative weight, so a negative share. Counted as misuse.
   */
  private int capped(int have, int add, String call) {
    if (add <= Integer.MAX_VALUE - have) {
      return add;
    }
    owner.misuse(call + "(" + add + ") on launch " + id + ": over " + Integer.MAX_VALUE + " for one member, capped");
    return Integer.MAX_VALUE - have;
  }

  /** Keeps {@link #topPrefill} the (up to) three members with most prefill tokens. */
  private void rankPrefill(int i) {
    int at = -1;
    for (int k = 0; k < topCount; k++) {
      if (topPrefill[k] == i) {
        at = k;
        break;
      }
    }
    if (at < 0) {
      if (topCount < TOP_PREFILL) {
        at = topCount++;
      } else if (prefill[i] > prefill[topPrefill[TOP_PREFILL - 1]]) {
        at = TOP_PREFILL - 1;
      } else {
        return;
      }
      topPrefill[at] = i;
    }
    while (at > 0 && prefill[topPrefill[at - 1]] < prefill[topPrefill[at]]) {
      int t = topPrefill[at - 1];
      topPrefill[at - 1] = topPrefill[at];
      topPrefill[at] = t;
      at--;
    }
  }

  @Override
  public SharedLaunch decode(InferenceTrace trace) {
    int i = member(trace, "decode");
    if (i >= 0) {
      decode[i]++;
      decodeRows++;
    }
    return this;
  }

  @Override
  public SharedLaunch rows(InferenceTrace trace, int count) {
    if (count < 0) {
      owner.misuse("rows(" + count + ") on launch " + id);
      return this;
    }
    int i = member(trace, "rows");
    if (i >= 0) {
      count = capped(rows[i], count, "rows");
      rows[i] += count;
      rowCount += count;
    }
    return this;
  }

  @Override
  public SharedLaunch weight(InferenceTrace trace, double w) {
    int i = open && trace instanceof BatchMember m && m.batchState().heldBy(this) ? m.batchState().row : -1;
    if (i < 0 || !(w >= 0) || Double.isInfinite(w)) {
      owner.misuse("weight(" + w + ") on launch " + id + (i < 0 ? " for a trace that is not its member" : ""));
    } else {
      weight[i] = w;
    }
    return this;
  }

  @Override
  public SharedLaunch gpuMs(double ms) {
    if (!open) {
      owner.misuse("gpuMs() on launch " + id + " after close");
    } else if (!(ms >= 0) || Double.isInfinite(ms)) {
      owner.misuse("gpuMs(" + ms + ") on launch " + id);
    } else {
      gpuMs = ms;
    }
    return this;
  }

  @Override
  public SharedLaunch passes(int n) {
    if (!open || n < 1) {
      owner.misuse("passes(" + n + ") on launch " + id + (open ? "" : " after close"));
    } else {
      passes = n;
    }
    return this;
  }

  @Override
  public SharedLaunch shareBy(ShareMethod method) {
    if (!open || method == null) {
      owner.misuse("shareBy(" + method + ") on launch " + id);
    } else {
      this.method = method;
    }
    return this;
  }

  @Override
  public SharedLaunch event(String kind, String severity, String message) {
    if (!open || kind == null || severity == null || message == null) {
      owner.misuse("event() on launch " + id + (open ? " with a null argument" : " after close"));
      return this;
    }
    if (eventCount < MAX_EVENTS) {
      events[eventCount * 3] = kind;
      events[eventCount * 3 + 1] = severity;
      events[eventCount * 3 + 2] = message;
      eventCount++;
    } else {
      eventsDropped++;
    }
    String attributed = "launch " + id + ": " + message;
    for (int i = 0; i < size; i++) {
      traces[i].sharedLaunchEvent(kind, severity, attributed);
    }
    return this;
  }

  /** The profiled launch's layer table for its log line; null when none. */
  java.util.@Nullable List<io.github.trtrace.core.InferenceRecord.LayerTime> layers;

  @Override
  public SharedLaunch layers(java.util.List<io.github.trtrace.core.InferenceRecord.LayerTime> table) {
    if (!open || table == null) {
      owner.misuse("layers(" + (table == null ? "null" : "...") + ") on launch " + id);
    } else {
      layers = java.util.List.copyOf(owner.withoutNulls(table, "layers() on launch " + id));
    }
    return this;
  }

  @Override
  public SharedLaunch error(String errorType) {
    if (!open) {
      owner.misuse("error() on launch " + id + " after close");
    } else {
      this.errorType = errorType == null || errorType.isBlank() ? "unknown" : errorType;
    }
    return this;
  }

  @Override
  public boolean hasMember(String requestId) {
    for (int i = 0; i < size; i++) {
      if (ids[i].equals(requestId)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public ActivityLog activityLog() {
    return owner.activityLog();
  }

  @Override
  public void close() {
    if (!open || !CLOSING.compareAndSet(this, false, true)) {
      // idempotent, a concurrent second close included (it would attribute the launch twice and give the
      // object to the pool twice); a pooled launch closed twice is not told from a reused one
      return;
    }
    long end = owner.nanos();
    hostMs = Math.max(0, end - startNanos) / 1e6;
    endEpochNanos = startEpochNanos + Math.max(0, end - startNanos);
    open = false;
    owner.closed(this);
    attribute();
    owner.finish(this);
  }

  /** Splits the GPU time and writes every member's figures, then releases the members. */
  private void attribute() {
    int n = size;
    boolean timed = !Double.isNaN(gpuMs);
    if (timed && n > 0) {
      Shares.split(gpuMs, method, n, prefill, decode, rows, weight, share);
    }
    ShareMethod by = timed ? method : null;
    String failed = errorType;
    for (int i = 0; i < n; i++) {
      MemberState st = states[i];
      st.addLaunch(id, n, timed ? share[i] : 0, by, fingerprint);
      if (prefillTokens - prefill[i] > 0) {
        st.neighbourPrefillLaunches++;
        st.neighbourPrefillMs += hostMs;
        for (int k = 0; k < topCount; k++) {
          int j = topPrefill[k];
          if (j != i && prefill[j] > 0) {
            st.addNeighbour(ids[j], prefill[j]);
          }
        }
      }
      if (failed != null) {
        st.failedLaunches++;
        st.failedLaunchId = id;
        traces[i].sharedLaunchFailed(id, failed); // before the release: the trace cannot have ended in between
      }
      if (memberHandles != null) {
        memberHandles[i] = traces[i].listenerHandles(); // before the release: still this request's
      }
      st.release(this);
    }
  }

  // --- SharedLaunch.Ended, for listeners and the launch log

  @Override public long startEpochNanos() { return startEpochNanos; }
  @Override public long endEpochNanos() { return endEpochNanos; }
  @Override public @Nullable String engineFingerprint() { return fingerprint; }

  @Override
  public Phase phase() {
    if (size == 0) {
      return Phase.EMPTY;
    }
    if (prefillTokens > 0) {
      return decodeRows > 0 || rowCount > 0 ? Phase.MIXED : Phase.PREFILL;
    }
    return decodeRows > 0 ? (rowCount > 0 ? Phase.MIXED : Phase.DECODE) : Phase.ROWS;
  }

  @Override public int batchSize() { return size; }
  @Override public long prefillTokens() { return prefillTokens; }
  @Override public int decodeRows() { return decodeRows; }
  @Override public double gpuMs() { return gpuMs; }
  @Override public double hostMs() { return hostMs; }
  @Override public ShareMethod shareMethod() { return method; }
  @Override public @Nullable String errorType() { return errorType; }

  @Override
  public String memberRequestId(int i) {
    checkIndex(i);
    return ids[i];
  }

  @Override
  public double memberShareMs(int i) {
    checkIndex(i);
    return Double.isNaN(gpuMs) ? Double.NaN : share[i];
  }

  private void checkIndex(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException("member " + i + " of a launch of " + size);
    }
  }

  /**
   * The listeners' handles of every member for listener {@code l} (null where a member has none), as read
   * before the members were released ({@link #memberHandles}).
   */
  TraceListener.@Nullable Handle[] handles(int l, TraceListener.@Nullable Handle[] into) {
    for (int i = 0; i < size; i++) {
      TraceListener.Handle[] hs = memberHandles == null ? null : memberHandles[i];
      into[i] = hs != null && l < hs.length ? hs[l] : null;
    }
    return into;
  }
}
