// Over 400 lines: the worker loop, its flush and close drains and its survival of an OutOfMemoryError share the worker-only state (taken, held, handedTo).
package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.internal.dispatch.DefaultDispatcher.DispatcherThread;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;
import org.slf4j.Logger;

/**
 * The dispatcher's one daemon worker: drains the queues, reserve first, in batches, hands each batch
 * to every sink's own thread ({@link SinkSlot}), flushes the sinks by time and on request, and on
 * close drains what it can before the deadline and closes the sinks.
 *
 * <p>Hand-off from callers: the idle worker parks for at most the max write delay and then drains
 * what arrived; under steady traffic it parks for less, paced to the arrival rate ({@link #pacedDelay}),
 * so that it finds about a quarter of a batch. Producers unpark it early ({@link #wake()}) only when half
 * a batch is waiting and it has announced that it is about to park ({@code parked}); the worker re-checks
 * for work after announcing, so a wake-up is never lost and a busy worker is never unparked.
 *
 * <p>The worker waits at most the export timeout (measured from the start of the sink's current call)
 * for a sink with no room; a sink still busy after that misses the batch, counted as {@code lostStuck}
 * for it, and the worker moves on, so a slow or blocked sink never holds up the others for longer
 * than the export timeout, and a stuck one only once.
 *
 * <p>A pending record becomes the immutable record as the worker takes it from the queue ({@link
 * #take}), and its entry goes back to the pool there, so sinks only ever see immutable records.
 */
final class DispatchWorker {
  private static final Logger LOG = DefaultDispatcher.LOG;
  private static final long DROP_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long STUCK_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** The shortest paced park: below this the timer's slack decides anyway. */
  private static final long MIN_PACED_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
  /** How often a wait for a busy sink looks whether close has begun. */
  private static final long WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final DefaultDispatcher d;
  private final SinkSlot[] sinks;
  private final DispatchQueues queues;
  private final DropCounts drops;
  private final int batchSize;
  private final long flushIntervalNanos;
  private final long maxWriteDelayNanos;
  private final long exportTimeoutNanos;
  private final Duration closeTimeout;
  final DispatcherThread thread;

  /** Queued records at which a caller wakes the parked worker: half a batch (or of the queue, if smaller). */
  final int wakeThreshold;
  /** Records the worker aims to find when it wakes by itself under steady traffic: half the callers' threshold. */
  private final int pacedTarget;
  /** Worker only: when the current paced interval began (the previous park), and the records taken since. */
  private long pacedSince = System.nanoTime();
  private long takenSince;
  private final LongAdder callerWakes = new LongAdder();

  private final AtomicBoolean parked = new AtomicBoolean();
  private final ConcurrentLinkedQueue<CompletableFuture<Void>> flushRequests =
      new ConcurrentLinkedQueue<>();
  /** The worker's: what {@link #take} has polled and not yet built. */
  private Object[] taken = new Object[64];
  /** Worker only: records taken out of a queue that not every sink has been handed yet. */
  private int held;
  /** Worker only: the sinks {@link #dispatch} has handed the current batch so far. */
  private int handedTo;
  /** OutOfMemoryErrors and StackOverflowErrors the worker survived. */
  private final LongAdder workerErrors = new LongAdder();

  // Written only by the worker thread; volatile so that stats() and close() read them.
  volatile boolean closePhase;
  volatile long drainedOnClose;
  volatile long discardedOnClose;
  final CountDownLatch terminated = new CountDownLatch(1);
  final CompletableFuture<Void> terminatedFuture = new CompletableFuture<>();

  DispatchWorker(
      DefaultDispatcher d,
      SinkSlot[] sinks,
      DispatchQueues queues,
      DropCounts drops,
      Dispatcher.Builder b) {
    this.d = d;
    this.sinks = sinks;
    this.queues = queues;
    this.drops = drops;
    this.batchSize = b.batchSize;
    this.flushIntervalNanos = b.flushInterval.toNanos();
    this.maxWriteDelayNanos = b.maxWriteDelay.toNanos();
    this.wakeThreshold = Math.max(1, Math.min(b.batchSize, b.queueCapacity) / 2);
    this.pacedTarget = Math.max(1, wakeThreshold / 2);
    this.exportTimeoutNanos = b.exportTimeout.toNanos();
    this.closeTimeout = b.closeTimeout;
    this.thread = new DispatcherThread(this::runWorker, Dispatcher.THREAD_NAME);
  }

  /** Unparks the worker if it has announced that it parks (producers, when half a batch waits). */
  void wake() {
    if (parked.get() && parked.compareAndSet(true, false)) {
      callerWakes.increment();
      LockSupport.unpark(thread);
    }
  }

  long callerWakes() {
    return callerWakes.sum();
  }

  void unpark() {
    LockSupport.unpark(thread);
  }

  /** A completion handle for the write and flush of everything offered before this call. */
  CompletableFuture<Void> flush() {
    if (d.offers.closing()) {
      return terminatedFuture.handle((ignored, error) -> null);
    }
    CompletableFuture<Void> request = new CompletableFuture<>();
    flushRequests.add(request);
    if (d.offers.closing()) {
      // The worker may already be past its last look at the requests.
      terminatedFuture.whenComplete((ignored, error) -> request.complete(null));
    }
    wake();
    return request;
  }

  private void runWorker() {
    List<InferenceRecord> batch = new ArrayList<>(Math.min(batchSize, 4096));
    long lastFlush = System.nanoTime();
    long lastDropCheck = lastFlush;
    boolean dirty = false;
    try {
      while (!d.offers.closing()) {
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
          d.offers.sinksStuck(!ready);
          if (d.offers.closing()) {
            break; // close began while waiting for the sinks: what is queued is its business now
          }
          int n = ready ? fill(batch, Long.MAX_VALUE, Long.MAX_VALUE) : 0;
          if (n > 0) {
            dispatch(batch);
            dirty = true;
            takenSince += n;
          }
          long now = System.nanoTime();
          if (dirty && now - lastFlush >= flushIntervalNanos) {
            flushSinks(Long.MAX_VALUE);
            dirty = false;
            lastFlush = now;
          }
          if (now - lastDropCheck >= DROP_CHECK_NANOS) {
            drops.report();
            lastDropCheck = now;
          }
          if (!ready) {
            LockSupport.parkNanos(this, STUCK_POLL_NANOS);
          } else if (n == 0) {
            long delay = dirty ? Math.min(maxWriteDelayNanos, flushIntervalNanos - (now - lastFlush)) : maxWriteDelayNanos;
            park(Math.min(delay, pacedDelay(now)));
          }
        } catch (OutOfMemoryError | StackOverflowError e) {
          survive(e, batch);
        }
      }
      Throwable sinkFatal = d.fatal;
      finishOnClose(batch, sinkFatal == null ? d.closeDeadlineNanos : System.nanoTime() + closeTimeout.toNanos());
      if (sinkFatal != null) {
        terminatedFuture.completeExceptionally(sinkFatal);
      } else {
        terminatedFuture.complete(null);
      }
    } catch (Throwable error) {
      // Our own code failed (a fatal JVM error on this thread): stop taking records, but still give
      // every sink its close, so files are flushed and released.
      d.offers.close();
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
   * the dispatcher (see {@link DefaultDispatcher}).
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

  /**
   * How long to park so that, at the rate records came since the previous park, the worker wakes by itself
   * with about a quarter of a batch waiting ({@link #pacedTarget}), before callers reach their wake threshold;
   * {@code Long.MAX_VALUE} when none came (an idle worker keeps the max write delay). Callers still wake it
   * when a burst outruns the estimate.
   *
   * <p>Why: a caller's wake-up is a system call inside the traced call, and on a machine with few cores the
   * woken worker (then the sink thread, with a quarter to half a batch to write) can take that caller's core
   * before the call returns. At 20,000 requests/s on two producer threads with the default 20 ms delay, callers
   * woke the worker every 12.8 ms and the call's p99.9 was 140-189 µs; with the worker waking on its own timer
   * (a 10 ms or shorter delay) it was 22-33 µs (BENCHMARKS.md, "The far tail at 20,000/s: the callers'
   * wake-ups").
   */
  private long pacedDelay(long now) {
    long elapsed = now - pacedSince;
    long taken = takenSince;
    pacedSince = now;
    takenSince = 0;
    if (taken == 0 || elapsed <= 0) {
      return Long.MAX_VALUE;
    }
    return Math.max(MIN_PACED_NANOS, (long) ((double) elapsed * pacedTarget / taken));
  }

  private void park(long nanos) {
    parked.set(true);
    if (!queues.isEmpty() || !flushRequests.isEmpty() || d.offers.closing()) {
      parked.set(false);
      return;
    }
    Thread.interrupted(); // a stray interrupt must not turn parking into spinning
    LockSupport.parkNanos(this, Math.max(1, nanos));
    parked.set(false);
  }

  /** Moves up to a batch of records into {@code batch}, reserve first; at most the given counts. */
  private int fill(List<InferenceRecord> batch, long maxReserved, long maxMain) {
    int n = take(queues.reserve, batch, batchSize, maxReserved);
    return n + take(queues.main, batch, batchSize - n, maxMain);
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
      d.offers.releaseWaiters();
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
            || (d.offers.closing() && !closePhase)) {
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
      long reserved = queues.reserve.size();
      long main = queues.main.size();
      while ((reserved > 0 || main > 0) && readyForBatch(Long.MAX_VALUE, exportTimeoutNanos)) {
        int fromReserve = take(queues.reserve, batch, batchSize, reserved);
        int fromMain = take(queues.main, batch, batchSize - fromReserve, main);
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
    while (!d.offers.gateEmpty() && System.nanoTime() - deadline < 0) {
      if (readyForBatch(deadline, exportTimeout) && fill(batch, Long.MAX_VALUE, Long.MAX_VALUE) > 0) {
        dispatch(batch);
      } else {
        LockSupport.parkNanos(OfferPath.BLOCK_PARK_NANOS);
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
    long discarded = queues.discardAll();
    discardedOnClose = discarded;
    if (discarded > 0) {
      LOG.warn("trtrace dispatcher close timed out: {} queued records discarded unwritten", discarded);
    }
    closeSinks(deadline);
    drops.report();
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

}
