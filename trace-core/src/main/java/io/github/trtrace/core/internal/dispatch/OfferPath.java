package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.internal.dispatch.DefaultDispatcher.DispatcherThread;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The producer side of the dispatcher, as Log4j2's {@code AsyncQueueFullPolicy}: queues a record, or
 * applies the queue-full policy ({@link QueueFullPolicy#DROP} counts the drop, {@link
 * QueueFullPolicy#BLOCK} waits for space up to the block timeout), and refuses every record once
 * {@link #close() closed}. Every refusal is counted ({@link DropCounts}).
 *
 * <p>Offer versus close: every offer runs inside the {@link ProducerGate} and checks {@code closing}
 * inside it; the worker's close sequence sets {@code closing}, keeps draining until the gate is
 * empty ({@link #gateEmpty()}), and only then takes its final look at the queues. So every offer
 * either queued its record before that final look (and it is written or counted) or refused it and
 * counted the drop.
 *
 * <p>A producer waiting for space under BLOCK registers itself and parks; the worker unparks it as
 * soon as it has taken records out of a queue ({@link #releaseWaiters()}: the producer registers
 * before its last look, the worker fences before reading the registrations, so neither wake-up can be
 * lost).
 *
 * <p>While every sink has been inside one call for longer than the export timeout (a hung
 * destination: {@link #sinksStuck}), the worker takes nothing out of the queues, so BLOCK would hold
 * every caller for the whole block timeout; a full queue then refuses at once instead (counted as a
 * block timeout), and waiting producers are woken to do so.
 */
final class OfferPath {
  private static final int BLOCK_SPINS = 64;
  static final long BLOCK_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
  /** Producers that can wait for space at once without polling (a power of two). */
  private static final int WAITER_SLOTS = 64;

  private final DispatchQueues queues;
  private final DropCounts drops;
  private final DispatchWorker worker;
  private final QueueFullPolicy policy;
  private final long blockTimeoutNanos;
  private final int wakeThreshold;
  private final ProducerGate gate = new ProducerGate();
  private volatile boolean closing;
  /** Set by the worker while no sink can take a batch (every one stuck past the export timeout). */
  private volatile boolean sinksStuck;
  /** Producers parked in a BLOCK wait, unparked when the worker takes records out. */
  private final AtomicReferenceArray<Thread> waiters = new AtomicReferenceArray<>(WAITER_SLOTS);
  private final AtomicInteger waiting = new AtomicInteger();

  OfferPath(
      DispatchQueues queues,
      DropCounts drops,
      DispatchWorker worker,
      QueueFullPolicy policy,
      long blockTimeoutNanos,
      int wakeThreshold) {
    this.queues = queues;
    this.drops = drops;
    this.worker = worker;
    this.policy = policy;
    this.blockTimeoutNanos = blockTimeoutNanos;
    this.wakeThreshold = wakeThreshold;
  }

  /** From now on every offer is refused and counted as dropped after close. */
  void close() {
    closing = true;
  }

  boolean closing() {
    return closing;
  }

  /** The worker, after each look at its sinks: whether none can take a batch (all stuck). */
  void sinksStuck(boolean stuck) {
    if (sinksStuck != stuck) {
      sinksStuck = stuck;
      if (stuck) {
        releaseWaiters(); // they refuse now instead of at their deadline
      }
    }
  }

  /** Whether no offer is under way (one that began after {@link #close()} may count: it refuses). */
  boolean gateEmpty() {
    return gate.isEmpty();
  }

  /** {@code record}: an {@link io.github.trtrace.core.InferenceRecord} or a {@link PendingRecord}. */
  boolean offer(Object record, boolean priority) {
    drops.offered.increment();
    int cell = gate.enter();
    try {
      if (closing) {
        drops.droppedClosed.increment();
        return false;
      }
      if (queues.offer(record, priority)) {
        if (queues.mainSize() >= wakeThreshold) {
          worker.wake();
        }
        return true;
      }
      if (policy == QueueFullPolicy.DROP || Thread.currentThread() instanceof DispatcherThread) {
        drops.droppedQueueFull.increment();
        return false;
      }
      if (sinksStuck) {
        drops.droppedBlockTimeout.increment();
        return false;
      }
      return blockingOffer(record, priority);
    } finally {
      gate.exit(cell);
    }
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
    worker.unpark();
    for (int spins = 0; spins < BLOCK_SPINS && System.nanoTime() - deadline < 0; spins++) {
      if (closing) {
        drops.droppedClosed.increment();
        return false;
      }
      if (queues.offer(record, priority)) {
        worker.wake();
        return true;
      }
      Thread.onSpinWait();
    }
    int slot = registerWaiter(Thread.currentThread());
    try {
      for (; ; ) {
        // registered before this look: space freed after it comes with an unpark
        if (closing) {
          drops.droppedClosed.increment();
          return false;
        }
        if (queues.offer(record, priority)) {
          worker.wake();
          return true;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || sinksStuck || Thread.currentThread().isInterrupted()) {
          drops.droppedBlockTimeout.increment();
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
  void releaseWaiters() {
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
}
