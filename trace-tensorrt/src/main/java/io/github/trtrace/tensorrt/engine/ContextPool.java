package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.core.context.RequestContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * A fixed set of slots, each holding one {@code C} (an execution context with its stream and events,
 * opaque here). A borrower gets exclusive use of one slot; the slot remembers the request it serves, so
 * errors TensorRT reports on that context can be attributed ({@link #requestIdFor(int)}).
 *
 * <pre>{@code
 * ContextPool<Slot> pool = ContextPool.create(List.of(slot0, slot1));
 * try (ContextPool.Lease<Slot> lease = pool.borrow(Duration.ofMillis(100))) {
 *   lease.context().enqueue(bindings);
 * }
 * }</pre>
 *
 * @param <C> what a slot holds
 */
final class ContextPool<C> implements AutoCloseable {

  /** Exclusive use of one slot until {@link #close()} (idempotent). */
  public interface Lease<C> extends AutoCloseable {
    /** The slot's index, 0-based. */
    int slotId();

    /** What the slot holds. */
    C context();

    /** The request this lease serves, or null. */
    @Nullable String requestId();

    /** Returns the slot to the pool; later calls do nothing. */
    @Override
    void close();
  }


  private final List<C> slots;
  private final ArrayBlockingQueue<Integer> free;
  private final AtomicReferenceArray<@Nullable String> requestIds;
  private final AtomicLong borrows = new AtomicLong();
  private final AtomicLong waits = new AtomicLong();
  private final AtomicLong timeouts = new AtomicLong();
  private final AtomicInteger inUse = new AtomicInteger();
  private final AtomicInteger maxInUse = new AtomicInteger();
  private final Object idle = new Object();
  private volatile boolean closed;
  private volatile Runnable beforeCount = () -> {};

  private ContextPool(List<C> slots) {
    this.slots = List.copyOf(slots);
    this.free = new ArrayBlockingQueue<>(slots.size(), true);
    for (int i = 0; i < slots.size(); i++) {
      free.add(i);
    }
    this.requestIds = new AtomicReferenceArray<>(slots.size());
  }

  /** A pool over {@code slots} (at least one; none null). */
  public static <C> ContextPool<C> create(List<C> slots) {
    Objects.requireNonNull(slots, "slots");
    if (slots.isEmpty()) {
      throw new IllegalArgumentException("a context pool needs at least one slot");
    }
    return new ContextPool<>(new ArrayList<>(slots));
  }

  /** Borrows a slot for the calling thread's request ({@link RequestContext#current()}). */
  public Lease<C> borrow(Duration timeout) {
    RequestContext ctx = RequestContext.current();
    return borrow(timeout, ctx.isEmpty() ? null : ctx.requestId());
  }

  /**
   * Borrows a slot for {@code requestId}, waiting at most {@code timeout}.
   *
   * @throws ContextPoolTimeoutException when no slot became free in time (or the wait was interrupted;
   *     the interrupt flag is then kept)
   * @throws IllegalStateException when the pool is closed
   */
  public Lease<C> borrow(Duration timeout, @Nullable String requestId) {
    return borrow(timeout, requestId, -1);
  }

  /**
   * Borrows slot {@code preferred} when it is free (a generation's launches stay on the context, stream and
   * activation memory of its first launch), otherwise any slot as {@link #borrow(Duration, String)} does;
   * {@code preferred} out of range means no preference.
   */
  Lease<C> borrow(Duration timeout, @Nullable String requestId, int preferred) {
    Objects.requireNonNull(timeout, "timeout");
    if (closed) {
      throw new IllegalStateException("context pool is closed");
    }
    Integer slot = preferred >= 0 && preferred < slots.size() && free.remove(Integer.valueOf(preferred))
        ? Integer.valueOf(preferred) : free.poll();
    if (slot == null) {
      waits.incrementAndGet();
      try {
        slot = free.poll(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        timeouts.incrementAndGet();
        throw new ContextPoolTimeoutException("interrupted while waiting for a free execution context");
      }
      if (slot == null) {
        timeouts.incrementAndGet();
        throw new ContextPoolTimeoutException("no free execution context within " + timeout.toMillis()
            + " ms: all " + slots.size() + " slots are in use (requestId=" + requestId + ")");
      }
    }
    // Count the borrower first, then look at `closed`: close() sets `closed` and then waits for inUse
    // to reach 0 (awaitIdle), so either this borrower sees `closed` and backs out, or the closer sees it
    // counted and waits for its lease. Checking first left a window in which the contexts were
    // destroyed under a borrower that was about to enqueue on one.
    beforeCount.run();
    int now = inUse.incrementAndGet();
    if (closed) {
      release(slot);
      throw new IllegalStateException("context pool is closed");
    }
    requestIds.set(slot, requestId);
    borrows.incrementAndGet();
    maxInUse.accumulateAndGet(now, Math::max);
    return new LeaseImpl(slot, requestId);
  }

  /** Uncounts a borrower and puts its slot back; wakes {@link #awaitIdle} when it was the last. */
  private void release(int slot) {
    boolean last = inUse.decrementAndGet() == 0;
    free.offer(slot);
    if (last) {
      synchronized (idle) {
        idle.notifyAll();
      }
    }
  }

  /** Test seam: runs in {@code borrow} after a slot was taken and before the borrower is counted. */
  void beforeCountHook(Runnable hook) {
    this.beforeCount = Objects.requireNonNull(hook, "hook");
  }

  /** The request the slot currently serves, or null when it is free or serves none. */
  public @Nullable String requestIdFor(int slotId) {
    if (slotId < 0 || slotId >= slots.size()) {
      return null;
    }
    return requestIds.get(slotId);
  }

  /** Number of slots. */
  public int size() {
    return slots.size();
  }

  /** A snapshot of the counters. */
  public ContextPoolStats stats() {
    return new ContextPoolStats(borrows.get(), waits.get(), timeouts.get(), inUse.get(), maxInUse.get());
  }

  /**
   * Waits until every lease is returned (for releasing the slots after {@link #close()}).
   *
   * @return false when leases were still out after {@code timeout} (or the wait was interrupted)
   */
  boolean awaitIdle(Duration timeout) {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    synchronized (idle) {
      while (inUse.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(idle, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return true;
    }
  }

  /** Refuses new borrows; leases already out stay valid until closed. Idempotent. */
  @Override
  public void close() {
    closed = true;
  }

  private final class LeaseImpl implements Lease<C> {
    private final int slot;
    private final @Nullable String requestId;
    private final AtomicBoolean returned = new AtomicBoolean();

    LeaseImpl(int slot, @Nullable String requestId) {
      this.slot = slot;
      this.requestId = requestId;
    }

    @Override
    public int slotId() {
      return slot;
    }

    @Override
    public C context() {
      if (returned.get()) {
        throw new IllegalStateException("lease of slot " + slot + " was already returned");
      }
      return slots.get(slot);
    }

    @Override
    public @Nullable String requestId() {
      return requestId;
    }

    @Override
    public void close() {
      if (returned.compareAndSet(false, true)) {
        requestIds.set(slot, null);
        release(slot);
      }
    }
  }
}
