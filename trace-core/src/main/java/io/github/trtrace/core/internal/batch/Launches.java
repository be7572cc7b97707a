package io.github.trtrace.core.internal.batch;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * A tracer's launches: IDs, the pool of launch objects, the listeners' {@code onLaunch} and the
 * launch log. Thread-safe; one per tracer.
 */
public final class Launches {
  private static final RateLimitedLogger LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger("io.github.trtrace.tracer"), 10_000);
  /** Per thread, the launches it opened and has not closed, innermost last; see {@link OpenStack}. */
  private static final ThreadLocal<OpenStack> CURRENT = ThreadLocal.withInitial(OpenStack::new);

  /**
   * A thread's open launches, each with the ID of that use of the (pooled) launch object. A launch closed on
   * another thread cannot be taken off its opener's stack there: the opener drops it when it next looks, as
   * soon as the object is closed or serves another use (another ID, or another thread). Allocated once per
   * thread; grows only with deeper nesting.
   */
  static final class OpenStack {
    private LaunchImpl[] launches = new LaunchImpl[4];
    private long[] ids = new long[4];
    private int depth;

    private boolean live(int i) {
      LaunchImpl l = launches[i];
      return l.id == ids[i] && l.openedBy(Thread.currentThread());
    }

    /** The innermost launch still open by this thread, dropping those closed elsewhere above it. */
    @Nullable LaunchImpl top() {
      while (depth > 0 && !live(depth - 1)) {
        launches[--depth] = null;
      }
      return depth == 0 ? null : launches[depth - 1];
    }

    void push(LaunchImpl l) {
      top();
      if (depth == launches.length) {
        compact(); // launches closed elsewhere below an open one (a pipelined scheduler): never on top
      }
      if (depth == launches.length) {
        launches = java.util.Arrays.copyOf(launches, depth * 2);
        ids = java.util.Arrays.copyOf(ids, depth * 2);
      }
      launches[depth] = l;
      ids[depth++] = l.id;
    }

    /** Drops every entry whose launch was closed or serves another use, wherever it is; order kept. */
    private void compact() {
      int kept = 0;
      for (int i = 0; i < depth; i++) {
        if (live(i)) {
          launches[kept] = launches[i];
          ids[kept++] = ids[i];
        }
      }
      java.util.Arrays.fill(launches, kept, depth, null);
      depth = kept;
    }

    /** Takes {@code l} (this use, being closed on this thread) off the stack, wherever it is. */
    void remove(LaunchImpl l) {
      for (int i = depth - 1; i >= 0; i--) {
        if (launches[i] == l && ids[i] == l.id) {
          System.arraycopy(launches, i + 1, launches, i, depth - i - 1);
          System.arraycopy(ids, i + 1, ids, i, depth - i - 1);
          launches[--depth] = null;
          break;
        }
      }
      top();
    }
  }

  /** Launches in flight at most: open ones plus those waiting in the launch log's queue ({@link LaunchLog#CAPACITY}). */
  private static final int POOL = LaunchLog.CAPACITY + 64;

  private final LongSupplier nanoClock;
  private final LongUnaryOperator epochNanosAt;
  private final TraceListener[] listeners;
  private final @Nullable LaunchLog log;
  private final Consumer<String> misuse;
  private final SharedLaunch.ActivityLog activityLog;
  private final AtomicLong ids;
  /**
   * Free launch objects (with their member arrays grown to the largest batch they served). A launch
   * is made only when none is free, so only as many exist as were ever in flight at once; the pool
   * never allocates nor blocks (a lock-free array queue: a lock would allocate a wait node under contention).
   */
  private final org.jctools.queues.atomic.MpmcAtomicArrayQueue<LaunchImpl> pool =
      new org.jctools.queues.atomic.MpmcAtomicArrayQueue<>(POOL);
  private final LongAdder opened = new LongAdder();
  /** Member arrays of the largest launch object so far: what a new or growing one takes at once. */
  private volatile int memberCapacity = 8;
  /** Launch objects made, and member-array growths: the pool's allocations (bounded: {@value #POOL} objects). */
  private final LongAdder made = new LongAdder();

  /**
   * @param epochNanosAt the wall clock (epoch nanos) at a monotonic reading
   * @param misuse counts and logs a misuse (the tracer's counter)
   */
  public Launches(LongSupplier nanoClock, LongUnaryOperator epochNanosAt, TraceListener[] listeners,
      @Nullable LaunchLog log, Consumer<String> misuse) {
    this.nanoClock = nanoClock;
    this.epochNanosAt = epochNanosAt;
    this.listeners = listeners.clone();
    this.log = log;
    this.misuse = misuse;
    this.activityLog = log == null ? SharedLaunch.ActivityLog.NONE
        : (id, list, notListed, complete, unmatched, host) -> list == null
            ? misused("activityLog().write(" + id + ", null)")
            : log.offerActivities(id, epochNanosAt.applyAsLong(nanoClock.getAsLong()),
                withoutNulls(list, "activityLog().write(" + id + ")"), notListed, complete, unmatched, host);
    // seeded with the epoch microseconds: increasing across restarts of a service writing one log
    this.ids = new AtomicLong(epochNanosAt.applyAsLong(nanoClock.getAsLong()) / 1000);
  }

  /** The launch log's writer of GPU-activity lines, or {@link SharedLaunch.ActivityLog#NONE}. */
  SharedLaunch.ActivityLog activityLog() {
    return activityLog;
  }

  /** The launch open on the calling thread, innermost; null when none. */
  public static @Nullable SharedLaunch current() {
    return CURRENT.get().top();
  }

  /** The launch of a tracer that records nothing. */
  public static SharedLaunch noop() {
    return NoopLaunch.INSTANCE;
  }

  long nanos() {
    return nanoClock.getAsLong();
  }

  /** Whether the tracer has listeners (whose {@code onLaunch} needs the members' handles). */
  boolean hasListeners() {
    return listeners.length > 0;
  }

  void misuse(String what) {
    misuse.accept(what);
  }

  private boolean misused(String what) {
    misuse.accept(what);
    return false;
  }

  /**
   * {@code list} itself when it holds no null, else a copy without its nulls, counted as one misuse of {@code
   * call}: a caller's list is never a reason to throw into the scheduler.
   */
  <T> java.util.List<T> withoutNulls(java.util.List<T> list, String call) {
    int nulls = 0;
    for (T t : list) { // not contains(null): an immutable list throws for it
      if (t == null) {
        nulls++;
      }
    }
    if (nulls == 0) {
      return list;
    }
    misuse.accept(call + " with " + nulls + " null element(s), left out");
    java.util.List<T> kept = new java.util.ArrayList<>(list.size() - nulls);
    for (T t : list) {
      if (t != null) {
        kept.add(t);
      }
    }
    return kept;
  }

  /** Counts a new launch object; returns the member capacity it starts with (the largest so far). */
  int newLaunchCapacity() {
    made.increment();
    return memberCapacity;
  }

  /** A launch object grows to at least {@code needed} members; returns its new capacity (the largest so far or more). */
  int grew(int needed) {
    made.increment();
    int n = Math.max(needed, memberCapacity);
    if (n > memberCapacity) {
      memberCapacity = n; // a race between two schedulers only loses a hint
    }
    return n;
  }

  /**
   * Launch objects made plus member-array growths since the tracer was built: the only allocations on the
   * scheduler's launch path. It rises while the pool fills (more launches in flight than ever before, e.g. a
   * launch log writer starved of CPU) and its objects meet a batch larger than they held; bounded by the pool.
   */
  public long poolAllocations() {
    return made.sum();
  }

  /** Opens a launch now on the calling thread. */
  public SharedLaunch open(@Nullable String engineFingerprint) {
    LaunchImpl l = take();
    long now = nanoClock.getAsLong();
    l.open(ids.incrementAndGet(), engineFingerprint, now, epochNanosAt.applyAsLong(now));
    CURRENT.get().push(l);
    opened.increment();
    return l;
  }

  /** Launches opened since the tracer was built. */
  public long opened() {
    return opened.sum();
  }

  /** The counters. */
  public SharedLaunch.Stats stats() {
    long[] c = log == null ? new long[4] : log.counters();
    return new Counts(opened.sum(), c[1], c[2], c[3]);
  }

  /** The counters of a tracer that records nothing. */
  public static SharedLaunch.Stats noStats() {
    return NO_STATS;
  }

  private static final Counts NO_STATS = new Counts(0, 0, 0, 0);

  private record Counts(long launches, long logged, long dropped, long lost) implements SharedLaunch.Stats {}

  /**
   * Takes {@code l} off the closing thread's stack (normally its top). A launch closed on another thread than
   * its opener is not on this one: its opener drops it when it next looks ({@link OpenStack#top()}).
   */
  void closed(LaunchImpl l) {
    CURRENT.get().remove(l);
  }

  /** After the members' figures were written: listeners, then the log (which gives it back), or the pool. */
  void finish(LaunchImpl l) {
    if (listeners.length > 0) {
      TraceListener.Handle[] handles = new TraceListener.Handle[l.size];
      for (int i = 0; i < listeners.length; i++) {
        try {
          listeners[i].onLaunch(l, Arrays.asList(l.handles(i, handles)));
        } catch (RuntimeException | LinkageError e) {
          misuse.accept("listener " + listeners[i].getClass().getName() + " failed in onLaunch: " + e);
        }
      }
    }
    if (log == null || !log.offer(l)) {
      release(l);
    }
  }

  /** The last launch given back: one scheduler's steps take and give back this one without the queue's lock. */
  private final AtomicReference<@Nullable LaunchImpl> spare = new AtomicReference<>();

  private LaunchImpl take() {
    LaunchImpl l = spare.getAndSet(null);
    if (l == null) {
      l = pool.poll();
    }
    return l != null ? l : new LaunchImpl(this); // warm-up, or more launches in flight than ever before
  }

  void release(LaunchImpl l) {
    l.clear();
    if (!spare.compareAndSet(null, l)) {
      pool.offer(l); // full: left to the GC
    }
  }

  /** Drains and closes the launch log. */
  public void close() {
    if (log != null) {
      log.close();
    }
  }

  /** Flushes the launch log: completes when every launch closed before the call is written. */
  public java.util.concurrent.CompletableFuture<Void> flush() {
    return log == null ? java.util.concurrent.CompletableFuture.completedFuture(null) : log.flush();
  }

  static void warn(String format, Object... args) {
    LOG.warn(format, args);
  }

  /** The launch of a no-op tracer: accepts every call, records nothing. */
  private static final class NoopLaunch implements SharedLaunch {
    static final NoopLaunch INSTANCE = new NoopLaunch();

    @Override public long id() { return 0; }
    @Override public SharedLaunch prefill(InferenceTrace trace, int tokens) { return this; }
    @Override public SharedLaunch decode(InferenceTrace trace) { return this; }
    @Override public SharedLaunch rows(InferenceTrace trace, int rows) { return this; }
    @Override public SharedLaunch weight(InferenceTrace trace, double weight) { return this; }
    @Override public SharedLaunch gpuMs(double ms) { return this; }
    @Override public SharedLaunch shareBy(ShareMethod method) { return this; }
    @Override public SharedLaunch event(String kind, String severity, String message) { return this; }
    @Override public SharedLaunch error(String errorType) { return this; }
    @Override public SharedLaunch layers(java.util.List<io.github.trtrace.core.InferenceRecord.LayerTime> layers) { return this; }
    @Override public void close() {}
  }
}
