package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.TracerStats.SinkStats;
import io.github.trtrace.core.internal.dispatch.PendingOffer;
import io.github.trtrace.core.internal.dispatch.PendingRecord;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher: two bounded MPSC array queues (main, and a reserve only priority records use
 * when the main one is full) drained, reserve first, by one daemon worker thread, which hands each
 * batch to every sink's own thread ({@link SinkSlot}).
 *
 * <p>Hand-off from callers: the idle worker parks for at most the max write delay and then drains
 * what arrived. Producers unpark it early only when half a batch is waiting and it has announced that
 * it is about to park ({@code workerParked}); the worker re-checks for work after announcing, so a
 * wake-up is never lost and a busy worker is never unparked. The other way round, a producer waiting
 * for space under {@link QueueFullPolicy#BLOCK} registers itself and parks; the worker unparks it as
 * soon as it has taken records out of a queue (the producer registers before its last look, the
 * worker fences before reading the registrations, so neither wake-up can be lost).
 *
 * <p>Offer versus close: every offer runs inside the {@link ProducerGate} and checks {@code closing}
 * inside it; the worker's close sequence sets {@code closing}, keeps draining until the gate is
 * empty, and only then takes its final look at the queues. So every offer either queued its record
 * before that final look (and it is written or counted) or refused it and counted the drop.
 *
 * <p>Sinks: each sink runs on its own daemon thread and holds at most one batch besides the one it
 * is writing, which it starts as soon as that call returns ({@link SinkSlot}). The worker waits at
 * most the export timeout (measured from the start of the sink's current call) for a sink with no
 * room; a sink still busy after that misses the batch, counted as
 * {@code lostStuck} for it, and the worker moves on, so a slow or blocked sink never holds up the
 * others for longer than the export timeout, and a stuck one only once. Written and lost counts are
 * kept per sink; a buffering sink reports its own ({@link RecordSink#delivery()}).
 *
 * <p>Sink failures: every {@link Exception} and {@link Error} a sink throws is counted and logged,
 * and the sink gets the next batch, including {@link StackOverflowError} and {@link
 * OutOfMemoryError}, which in a sink are almost always local to the batch; on the worker itself they
 * cost the records it held, counted lost per sink, and the worker goes on ({@code survive}). Any other {@link
 * VirtualMachineError} means the JVM itself is broken: the dispatcher then stops (later offers are
 * counted as dropped after close), closes every sink that still answers, and the error is rethrown
 * to the thread's uncaught-exception handler.
 *
 * <p>Queue elements (issue 10, garbage-free callers): either a built {@link InferenceRecord} (from
 * {@link #offer}) or a {@link PendingRecord}, the tracer's pooled mutable entry ({@link
 * #offerPending}). The worker turns a pending record into the immutable record as it takes it from
 * the queue ({@link #take}) and gives the entry back to its pool there, so sinks only ever see
 * immutable records and the caller allocates nothing: the snapshot's allocation moves to the worker.
 */
final class DefaultDispatcher implements Dispatcher, PendingOffer {
  private static final Logger LOG = LoggerFactory.getLogger("io.github.trtrace.dispatch");
  private static final long LOG_INTERVAL_MILLIS = 10_000;
  private static final long DROP_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final int BLOCK_SPINS = 64;
  private static final long BLOCK_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
  /** Producers that can wait for space at once without polling (a power of two). */
  private static final int WAITER_SLOTS = 64;
  private static final long STUCK_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** How often a wait for a busy sink looks whether close has begun. */
  private static final long WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final SinkSlot[] sinks;
  private final MpscAtomicArrayQueue<Object> mainQueue;
  private final int mainCapacity;
  private final MpscAtomicArrayQueue<Object> reserveQueue;
  private final int reservedCapacity;
  private final QueueFullPolicy policy;
  private final long blockTimeoutNanos;
  private final long flushIntervalNanos;
  private final long maxWriteDelayNanos;
  private final long exportTimeoutNanos;
  private final int wakeThreshold;
  private final int batchSize;
  private final Duration closeTimeout;
  private final DispatcherThread worker;
  private final @Nullable Thread shutdownHook;

  private final LongAdder offered = new LongAdder();
  private final LongAdder droppedQueueFull = new LongAdder();
  private final LongAdder droppedBlockTimeout = new LongAdder();
  private final LongAdder droppedClosed = new LongAdder();
  private final ProducerGate gate = new ProducerGate();
  private final RateLimitedLogger dropLog = RateLimitedLogger.of(LOG, LOG_INTERVAL_MILLIS);
  private final RateLimitedLogger misuseLog = RateLimitedLogger.of(LOG, LOG_INTERVAL_MILLIS);

  private final AtomicBoolean workerParked = new AtomicBoolean();
  /** Producers parked in a BLOCK wait, unparked when the worker takes records out. */
  private final AtomicReferenceArray<Thread> waiters = new AtomicReferenceArray<>(WAITER_SLOTS);
  private final AtomicInteger waiting = new AtomicInteger();
  private final ConcurrentLinkedQueue<CompletableFuture<Void>> flushRequests =
      new ConcurrentLinkedQueue<>();

  // Written only by the worker thread; volatile so that stats() and close() read them.
  private volatile boolean closePhase;
  private volatile long drainedOnClose;
  private volatile long discardedOnClose;
  private final Map<String, String> closeFailures = Collections.synchronizedMap(new LinkedHashMap<>());
  private long lastReportedDrops;
  /** The worker's: what {@link #take} has polled and not yet built. */
  private Object[] taken = new Object[64];
  /** Worker only: records taken out of a queue that not every sink has been handed yet. */
  private int held;
  /** Worker only: the sinks {@link #dispatch} has handed the current batch so far. */
  private int handedTo;
  /** OutOfMemoryErrors and StackOverflowErrors the worker survived. */
  private final LongAdder workerErrors = new LongAdder();

  private final AtomicBoolean closeCalled = new AtomicBoolean();
  private volatile long closeDeadlineNanos;
  private volatile boolean closing;
  private volatile @Nullable Throwable fatal;
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final CompletableFuture<Void> terminatedFuture = new CompletableFuture<>();
  private final CompletableFuture<CloseReport> closeReport = new CompletableFuture<>();

  private DefaultDispatcher(Dispatcher.Builder b) {
    this.sinks = new SinkSlot[b.sinks.size()];
    for (int i = 0; i < sinks.length; i++) {
      sinks[i] = new SinkSlot(this, b.sinks.get(i), i);
    }
    this.mainCapacity = b.queueCapacity;
    this.mainQueue = new MpscAtomicArrayQueue<>(Math.max(2, b.queueCapacity));
    this.reservedCapacity = b.reservedCapacity;
    this.reserveQueue = new MpscAtomicArrayQueue<>(Math.max(2, b.reservedCapacity));
    this.policy = b.policy;
    this.blockTimeoutNanos = b.blockTimeout.toNanos();
    this.flushIntervalNanos = b.flushInterval.toNanos();
    this.batchSize = b.batchSize;
    this.maxWriteDelayNanos = b.maxWriteDelay.toNanos();
    this.exportTimeoutNanos = b.exportTimeout.toNanos();
    this.wakeThreshold = Math.max(1, Math.min(b.batchSize, b.queueCapacity) / 2);
    this.closeTimeout = b.closeTimeout;
    this.worker = new DispatcherThread(this::runWorker, THREAD_NAME);
    this.shutdownHook =
        b.shutdownHook ? new Thread(() -> close(closeTimeout), THREAD_NAME + "-shutdown") : null;
  }

  static DefaultDispatcher start(Dispatcher.Builder b) {
    DefaultDispatcher d = new DefaultDispatcher(b);
    for (SinkSlot s : d.sinks) {
      s.thread.start();
    }
    d.worker.start();
    if (d.shutdownHook != null) {
      try {
        Runtime.getRuntime().addShutdownHook(d.shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        LOG.warn("JVM is shutting down: trtrace dispatcher shutdown hook not registered");
      }
    }
    return d;
  }

  // ---------------------------------------------------------------- caller side

  @Override
  public boolean offer(@Nullable InferenceRecord record, boolean priority) {
    if (record == null) {
      misuseLog.warn("Dispatcher.offer(null) ignored: a record is required");
      return false;
    }
    return offerElement(record, priority);
  }

  @Override
  public boolean offerPending(PendingRecord record, boolean priority) {
    return offerElement(record, priority);
  }

  /** {@code record}: an {@link InferenceRecord} or a {@link PendingRecord}. */
  private boolean offerElement(Object record, boolean priority) {
    offered.increment();
    int cell = gate.enter();
    try {
      if (closing) {
        droppedClosed.increment();
        return false;
      }
      if (tryEnqueue(record, priority)) {
        if (mainQueue.size() >= wakeThreshold) {
          wakeWorker();
        }
        return true;
      }
      if (policy == QueueFullPolicy.DROP || Thread.currentThread() instanceof DispatcherThread) {
        droppedQueueFull.increment();
        return false;
      }
      return blockingOffer(record, priority);
    } finally {
      gate.exit(cell);
    }
  }

  private boolean tryEnqueue(Object record, boolean priority) {
    return mainQueue.offerIfBelowThreshold(record, mainCapacity)
        || (priority
            && reservedCapacity > 0
            && reserveQueue.offerIfBelowThreshold(record, reservedCapacity));
  }

  /**
   * BLOCK: spins briefly, then registers in {@link #waiters} and parks until the worker, having taken
   * records out of the queues, unparks it ({@link #releaseWaiters}), or until the block timeout. So a
   * waiting producer wakes once per batch the worker takes instead of polling, which on a loaded
   * machine costs the worker CPU and delays the caller by up to a poll period. Should every waiter
   * slot be taken, the producer polls ({@code BLOCK_PARK_NANOS}).
   */
  private boolean blockingOffer(Object record, boolean priority) {
    long deadline = System.nanoTime() + blockTimeoutNanos;
    LockSupport.unpark(worker);
    for (int spins = 0; spins < BLOCK_SPINS && System.nanoTime() - deadline < 0; spins++) {
      if (closing) {
        droppedClosed.increment();
        return false;
      }
      if (tryEnqueue(record, priority)) {
        wakeWorker();
        return true;
      }
      Thread.onSpinWait();
    }
    int slot = registerWaiter(Thread.currentThread());
    try {
      for (; ; ) {
        // registered before this look: space freed after it comes with an unpark
        if (closing) {
          droppedClosed.increment();
          return false;
        }
        if (tryEnqueue(record, priority)) {
          wakeWorker();
          return true;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || Thread.currentThread().isInterrupted()) {
          droppedBlockTimeout.increment();
          return false;
        }
        LockSupport.parkNanos(this, slot < 0 ? Math.min(left, BLOCK_PARK_NANOS) : left);
      }
    } finally {
      if (slot >= 0) {
        waiters.set(slot, null);
        waiting.decrementAndGet();
      }
    }
  }

  /** A free slot of {@link #waiters} now holding {@code t}, or -1 when all are taken. */
  private int registerWaiter(Thread t) {
    waiting.incrementAndGet();
    int start = (int) (t.getId() & (WAITER_SLOTS - 1));
    for (int k = 0; k < WAITER_SLOTS; k++) {
      int i = (start + k) & (WAITER_SLOTS - 1);
      if (waiters.get(i) == null && waiters.compareAndSet(i, null, t)) {
        return i;
      }
    }
    waiting.decrementAndGet();
    return -1;
  }

  /** Unparks every producer waiting for space; the worker calls it after taking records out. */
  private void releaseWaiters() {
    // the queues publish the freed space with an ordered store; the fence keeps the read of
    // `waiting` after it, so a producer that registered too late for this read sees the space
    VarHandle.fullFence();
    if (waiting.get() == 0) {
      return;
    }
    for (int i = 0; i < WAITER_SLOTS; i++) {
      Thread t = waiters.get(i);
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  private void wakeWorker() {
    if (workerParked.get() && workerParked.compareAndSet(true, false)) {
      LockSupport.unpark(worker);
    }
  }

  @Override
  public CompletableFuture<Void> flush() {
    if (closing) {
      return terminatedFuture.handle((ignored, error) -> null);
    }
    CompletableFuture<Void> request = new CompletableFuture<>();
    flushRequests.add(request);
    if (closing) {
      // The worker may already be past its last look at the requests.
      terminatedFuture.whenComplete((ignored, error) -> request.complete(null));
    }
    wakeWorker();
    return request;
  }

  @Override
  public void close() {
    close(closeTimeout);
  }

  @Override
  public CloseReport close(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    long timeoutNanos = timeout.isNegative() ? 0 : saturatedNanos(timeout);
    if (!closeCalled.compareAndSet(false, true)) {
      return awaitFirstReport(timeoutNanos);
    }
    closeDeadlineNanos = System.nanoTime() + timeoutNanos;
    closing = true;
    removeShutdownHook();
    LockSupport.unpark(worker);
    releaseWaiters(); // producers waiting for space count their record as dropped after close
    boolean finished = false;
    if (!(Thread.currentThread() instanceof DispatcherThread)) {
      try {
        finished = terminated.await(timeoutNanos, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (!finished) {
      // The worker gives up on them at the same deadline; do it here too, so that the counters read
      // after close() returns already say what a stuck sink held (abandon is idempotent).
      for (SinkSlot s : sinks) {
        s.abandonIfBusy();
      }
    }
    CloseReport report = report(!finished);
    if (!report.clean()) {
      LOG.warn("trtrace dispatcher closed with problems: {}", report);
    }
    closeReport.complete(report);
    return report;
  }

  private CloseReport awaitFirstReport(long timeoutNanos) {
    try {
      return closeReport.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // first close still running: say where it stands
    }
    return report(true);
  }

  /** What close achieved so far: per sink, accepted records that did not reach it. */
  private CloseReport report(boolean timedOut) {
    Map<String, Long> unwritten = new LinkedHashMap<>();
    long[] written = new long[sinks.length];
    for (int i = 0; i < sinks.length; i++) {
      written[i] = sinks[i].written;
    }
    long accepted = accepted(); // after the sink counters, so never below them
    for (int i = 0; i < sinks.length; i++) {
      unwritten.put(sinks[i].name, accepted - written[i]);
    }
    return new CloseReport(
        drainedOnClose,
        discardedOnClose,
        timedOut || sinksStillBusy(),
        Collections.unmodifiableMap(unwritten),
        copyCloseFailures());
  }

  private boolean sinksStillBusy() {
    for (SinkSlot s : sinks) {
      if (!s.isClosed()) {
        return true;
      }
    }
    return false;
  }

  /** Records ever taken into a queue: the queues' producer indices, exact and free to read. */
  private long accepted() {
    return mainQueue.currentProducerIndex() + reserveQueue.currentProducerIndex();
  }

  private Map<String, String> copyCloseFailures() {
    synchronized (closeFailures) {
      return Collections.unmodifiableMap(new LinkedHashMap<>(closeFailures));
    }
  }

  private void removeShutdownHook() {
    if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running or about to: nothing to remove
      }
    }
  }

  @Override
  public DispatcherStats stats() {
    Map<String, SinkStats> perSink = new LinkedHashMap<>();
    SinkStats[] partial = new SinkStats[sinks.length];
    long discarded = discardedOnClose;
    for (int i = 0; i < sinks.length; i++) {
      partial[i] = sinks[i].snapshot(discarded);
    }
    long queued = queued();
    long accepted = accepted(); // read last: never below what the sinks account for
    for (int i = 0; i < sinks.length; i++) {
      SinkStats p = partial[i];
      long inFlight = accepted - p.written() - p.lost();
      perSink.put(
          sinks[i].name,
          new SinkCounts(
              p.written(), p.lostFailed(), p.lostStuck(), p.lostClosed(), inFlight, p.failures(), p.lastError()));
    }
    return new DispatcherCounts(
        offered.sum(),
        accepted,
        droppedQueueFull.sum(),
        droppedBlockTimeout.sum(),
        droppedClosed.sum(),
        queued,
        Collections.unmodifiableMap(perSink));
  }

  /** Whether sink {@code index} holds a batch behind the call it is in (for tests). */
  boolean holdsNextBatch(int index) {
    return sinks[index].holdsNext();
  }

  private long queued() {
    return (long) mainQueue.size() + reserveQueue.size();
  }

  // ---------------------------------------------------------------- worker side

  private void runWorker() {
    List<InferenceRecord> batch = new ArrayList<>(Math.min(batchSize, 4096));
    long lastFlush = System.nanoTime();
    long lastDropCheck = lastFlush;
    boolean dirty = false;
    try {
      while (!closing) {
        try {
          if (!flushRequests.isEmpty()) {
            serveFlushRequests(batch);
            dirty = false;
            lastFlush = System.nanoTime();
            continue;
          }
          // Take records out of the queue only when a sink can take them: while every sink is stuck
          // they stay queued, so the queue-full policy (not a silent loss) applies to new offers.
          boolean ready = readyForBatch(Long.MAX_VALUE, exportTimeoutNanos);
          if (closing) {
            break; // close began while waiting for the sinks: what is queued is its business now
          }
          int n = ready ? fill(batch, Long.MAX_VALUE, Long.MAX_VALUE) : 0;
          if (n > 0) {
            dispatch(batch);
            dirty = true;
          }
          long now = System.nanoTime();
          if (dirty && now - lastFlush >= flushIntervalNanos) {
            flushSinks(Long.MAX_VALUE);
            dirty = false;
            lastFlush = now;
          }
          if (now - lastDropCheck >= DROP_CHECK_NANOS) {
            reportDrops();
            lastDropCheck = now;
          }
          if (!ready) {
            LockSupport.parkNanos(this, STUCK_POLL_NANOS);
          } else if (n == 0) {
            park(dirty ? Math.min(maxWriteDelayNanos, flushIntervalNanos - (now - lastFlush)) : maxWriteDelayNanos);
          }
        } catch (OutOfMemoryError | StackOverflowError e) {
          survive(e, batch);
        }
      }
      Throwable sinkFatal = fatal;
      finishOnClose(batch, sinkFatal == null ? closeDeadlineNanos : System.nanoTime() + closeTimeout.toNanos());
      if (sinkFatal != null) {
        terminatedFuture.completeExceptionally(sinkFatal);
      } else {
        terminatedFuture.complete(null);
      }
    } catch (Throwable error) {
      // Our own code failed (a fatal JVM error on this thread): stop taking records, but still give
      // every sink its close, so files are flushed and released.
      closing = true;
      LOG.error("trtrace dispatcher stopped by a fatal JVM error; records are no longer written", error);
      try {
        closeSinks(System.nanoTime() + closeTimeout.toNanos());
      } catch (Throwable t) {
        error.addSuppressed(t);
      }
      terminatedFuture.completeExceptionally(error);
      throw error;
    } finally {
      for (CompletableFuture<Void> f; (f = flushRequests.poll()) != null; ) {
        f.complete(null);
      }
      terminated.countDown();
    }
  }

  /**
   * An OutOfMemoryError or StackOverflowError on the worker costs the records it held, not tracing for
   * the rest of the process (as Log4j2's async logger, whose handler logs and takes the next event): the
   * records out of the queue that a sink was not handed are counted lost for that sink ({@code
   * lostFailed}, with a failure and the error as {@code lastError}), the worker lets go of them, pauses
   * (a heap still full gets time to be collected, and a repeating error does not spin) and goes on. An
   * OutOfMemoryError is most often one huge allocation or a passing peak; other JVM errors still stop
   * the dispatcher (see the class comment).
   */
  private void survive(VirtualMachineError e, List<InferenceRecord> batch) {
    int lost = held;
    batch.clear();
    for (int i = 0; i < taken.length; i++) {
      Object r = taken[i];
      if (r instanceof PendingRecord) {
        ((PendingRecord) r).discard();
      }
      taken[i] = null;
    }
    for (int i = handedTo; i < sinks.length; i++) {
      sinks[i].lostByWorker(lost, e);
    }
    held = 0;
    handedTo = 0;
    workerErrors.increment();
    try {
      LOG.error("trtrace dispatcher worker survived {}; {} records lost, tracing goes on", e, lost);
    } catch (Throwable ignored) {
      // logging needs memory too: the counters above hold the facts
    }
    LockSupport.parkNanos(this, WORKER_ERROR_PAUSE_NANOS);
  }

  /** How long the worker pauses after surviving an OutOfMemoryError or StackOverflowError. */
  private static final long WORKER_ERROR_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** OutOfMemoryErrors and StackOverflowErrors the worker survived (for tests). */
  long workerErrors() {
    return workerErrors.sum();
  }

  private void park(long nanos) {
    workerParked.set(true);
    if (!mainQueue.isEmpty() || !reserveQueue.isEmpty() || !flushRequests.isEmpty() || closing) {
      workerParked.set(false);
      return;
    }
    Thread.interrupted(); // a stray interrupt must not turn parking into spinning
    LockSupport.parkNanos(this, Math.max(1, nanos));
    workerParked.set(false);
  }

  /** Moves up to a batch of records into {@code batch}, reserve first; at most the given counts. */
  private int fill(List<InferenceRecord> batch, long maxReserved, long maxMain) {
    int n = take(reserveQueue, batch, batchSize, maxReserved);
    return n + take(mainQueue, batch, batchSize - n, maxMain);
  }

  private int take(
      MpscAtomicArrayQueue<Object> queue, List<InferenceRecord> batch, int room, long max) {
    // First out of the queue, then built: a pending record's build runs the redactor and the input
    // scans, so waking the producers waiting for space only after building the batch kept them
    // parked (up to their block timeout) while the queue already had room, and offers arriving
    // meanwhile took that room first (the waiters then drop at their timeout).
    Object[] out = taken;
    int n = 0;
    while (n < room && n < max) {
      Object r = queue.poll();
      if (r == null) {
        break;
      }
      if (n == out.length) {
        out = taken = java.util.Arrays.copyOf(out, n * 2);
      }
      out[n++] = r;
    }
    held += n;
    if (n > 0) {
      releaseWaiters();
    }
    for (int i = 0; i < n; i++) {
      Object r = out[i];
      out[i] = null;
      // a pending record becomes the immutable record here and its entry goes back to the pool
      batch.add(r instanceof PendingRecord ? ((PendingRecord) r).toRecord() : (InferenceRecord) r);
    }
    return n;
  }

  /**
   * Waits until every sink has room for a batch or has been inside its current call for {@code
   * exportTimeout} (or until {@code deadline}, or until close begins); true when at least one sink
   * can take a batch.
   */
  private boolean readyForBatch(long deadline, long exportTimeout) {
    boolean any = false;
    for (SinkSlot s : sinks) {
      boolean idle;
      for (; ; ) {
        long slice = System.nanoTime() + WAIT_SLICE_NANOS;
        idle = s.awaitRoom(deadline - slice < 0 ? deadline : slice, exportTimeout);
        if (idle
            || s.stuck(exportTimeout)
            || System.nanoTime() - deadline >= 0
            || (closing && !closePhase)) {
          break;
        }
      }
      any |= idle && s.accepting();
    }
    return any;
  }

  /**
   * Gives the batch to every idle sink; a sink still busy (past the export timeout, see {@link
   * #readyForBatch}) misses it, counted. Does not wait for the sinks to write it.
   */
  private void dispatch(List<InferenceRecord> batch) {
    List<InferenceRecord> shared = Collections.unmodifiableList(new ArrayList<>(batch));
    batch.clear();
    int n = shared.size();
    for (SinkSlot s : sinks) {
      if (!s.offerWrite(shared, exportTimeoutNanos)) {
        s.missed(n, exportTimeoutNanos);
      }
      handedTo++;
    }
    held -= n;
    handedTo = 0;
    if (closePhase) {
      drainedOnClose += n;
    }
  }

  /** Waits until every sink has finished its current call (export timeout each, or deadline). */
  private void awaitSinks(long deadline) {
    for (SinkSlot s : sinks) {
      s.awaitIdle(deadline, exportTimeoutNanos);
    }
  }

  private void flushSinks(long deadline) {
    awaitSinks(deadline);
    for (SinkSlot s : sinks) {
      s.offer(SinkSlot.FLUSH);
    }
    awaitSinks(deadline);
  }

  /**
   * Writes exactly the records queued when the requests were seen (everything offered before each
   * flush() call), then flushes the sinks and completes the requests.
   */
  private void serveFlushRequests(List<InferenceRecord> batch) {
    List<CompletableFuture<Void>> requests = new ArrayList<>();
    for (CompletableFuture<Void> f; (f = flushRequests.poll()) != null; ) {
      requests.add(f);
    }
    try {
      long reserved = reserveQueue.size();
      long main = mainQueue.size();
      while ((reserved > 0 || main > 0) && readyForBatch(Long.MAX_VALUE, exportTimeoutNanos)) {
        int fromReserve = take(reserveQueue, batch, batchSize, reserved);
        int fromMain = take(mainQueue, batch, batchSize - fromReserve, main);
        if (fromReserve + fromMain == 0) {
          break;
        }
        reserved -= fromReserve;
        main -= fromMain;
        dispatch(batch);
      }
      flushSinks(Long.MAX_VALUE);
    } finally {
      // also when a fatal error stops the worker here: these requests are no longer in the queue
      for (CompletableFuture<Void> f : requests) {
        f.complete(null);
      }
    }
  }

  private void finishOnClose(List<InferenceRecord> batch, long deadline) {
    closePhase = true;
    // While closing, a sink counts as stuck after a quarter of the close time at most, so that one
    // blocked sink cannot keep the others from what is still queued.
    long exportTimeout = Math.max(1, Math.min(exportTimeoutNanos, (deadline - System.nanoTime()) / 4));
    // Offers that saw the dispatcher open are still inside the gate: keep draining until they are
    // out, so that the final look at the queues below sees every record they queued.
    while (!gate.isEmpty() && System.nanoTime() - deadline < 0) {
      if (readyForBatch(deadline, exportTimeout) && fill(batch, Long.MAX_VALUE, Long.MAX_VALUE) > 0) {
        dispatch(batch);
      } else {
        LockSupport.parkNanos(BLOCK_PARK_NANOS);
      }
    }
    while (System.nanoTime() - deadline < 0) {
      if (!readyForBatch(deadline, exportTimeout)) {
        LockSupport.parkNanos(STUCK_POLL_NANOS); // every sink stuck: wait for one until the deadline
      } else if (fill(batch, Long.MAX_VALUE, Long.MAX_VALUE) > 0) {
        dispatch(batch);
      } else {
        break;
      }
    }
    batch.clear();
    long discarded = 0;
    while (reserveQueue.poll() != null || mainQueue.poll() != null) {
      discarded++;
    }
    discardedOnClose = discarded;
    if (discarded > 0) {
      LOG.warn("trtrace dispatcher close timed out: {} queued records discarded unwritten", discarded);
    }
    closeSinks(deadline);
    reportDrops();
  }

  /**
   * Flushes and closes every sink on its own thread, waiting until {@code deadline}; a sink that has
   * not returned by then is abandoned: what it holds is counted lost, and its thread closes it if its
   * call ever returns.
   */
  private void closeSinks(long deadline) {
    for (SinkSlot s : sinks) {
      s.requestClose();
    }
    for (SinkSlot s : sinks) {
      if (!s.awaitClosed(deadline)) {
        s.abandon();
      }
    }
  }

  void sinkFailed(SinkSlot s, String action, Throwable t) {
    String description = describe(t);
    if (closePhase) {
      closeFailures.putIfAbsent(s.name, action + ": " + description);
    }
    s.log.warn("trtrace sink '{}' failed to {}: {}", s.name, action, description, t);
  }

  /** A sink thread met a fatal JVM error: stop the dispatcher (the worker closes the other sinks). */
  void fatalInSink(SinkSlot s, VirtualMachineError e) {
    LOG.error("trtrace sink '{}' raised a fatal JVM error; the dispatcher stops", s.name, e);
    fatal = e;
    closing = true; // before any flush future completes: later offers are refused and counted
    closeDeadlineNanos = System.nanoTime() + closeTimeout.toNanos();
    LockSupport.unpark(worker);
    releaseWaiters();
  }

  static boolean isFatal(Throwable t) {
    return t instanceof VirtualMachineError
        && !(t instanceof StackOverflowError)
        && !(t instanceof OutOfMemoryError);
  }

  private void reportDrops() {
    long queueFull = droppedQueueFull.sum();
    long blockTimeout = droppedBlockTimeout.sum();
    long afterClose = droppedClosed.sum();
    long total = queueFull + blockTimeout + afterClose;
    if (total != lastReportedDrops) {
      lastReportedDrops = total;
      dropLog.warn(
          "trtrace dispatcher has dropped {} inference records so far (queue full: {}, block timeout: {},"
              + " offered after close: {}); raise queueCapacity or make the sinks faster",
          total,
          queueFull,
          blockTimeout,
          afterClose);
    }
  }

  static String describe(Throwable t) {
    String message = t.getMessage();
    return message == null ? t.getClass().getName() : t.getClass().getName() + ": " + message;
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE / 2;
    }
  }

  /** The worker and sink threads: offers made on them (a sink that records) never wait. */
  static final class DispatcherThread extends Thread {
    DispatcherThread(Runnable task, String name) {
      super(task, name);
      setDaemon(true);
    }
  }

  static RateLimitedLogger newSinkLog() {
    return RateLimitedLogger.of(LOG, LOG_INTERVAL_MILLIS);
  }
}
