package io.github.trtrace.tensorrt.internal.cupti;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * CUPTI's activity buffers, reused. CUPTI asks for a buffer on whatever thread needs one, often the launching
 * thread in the middle of a recorded launch's enqueue; making a fresh 1 MiB buffer there (malloc, then the page
 * faults as CUPTI fills it) and freeing it on the recorder's thread (munmap) is host work inside the launch. So
 * buffers handed back are kept for the next request, and {@link #warm} makes the first few ahead of the first
 * recorded launch, touched. At most {@code max} exist at once (beyond that a request gets none and CUPTI drops and
 * counts its records); every request is counted and timed ({@link #stats()}).
 *
 * <pre>{@code
 * BufferPool<BytePointer> pool = new BufferPool<>(32, true, () -> new BytePointer(1 << 20), BytePointer::close);
 * pool.warm(4);
 * BytePointer b = pool.take();   // in CUPTI's request callback; null: none to give
 * pool.give(b);                  // in its completion callback, once the records are copied out
 * }</pre>
 */
final class BufferPool<T> {
  /** A request slower than this is counted as slow (the kernel check's tolerance is 100 us a launch). */
  static final long SLOW_NANOS = 50_000L;

  private final int max;
  private final boolean reuse;
  private final Supplier<T> make;
  private final Consumer<T> free;
  private final ArrayBlockingQueue<T> idle;
  private final AtomicInteger existing = new AtomicInteger();
  private final LongAdder requests = new LongAdder();
  private final LongAdder refused = new LongAdder();
  private final LongAdder made = new LongAdder();
  private final LongAdder requestNanos = new LongAdder();
  private final LongAdder slow = new LongAdder();
  private final AtomicLong maxRequestNanos = new AtomicLong();

  /**
   * @param max buffers that may exist at once (handed out or idle)
   * @param reuse false: every request makes a buffer and every one given back is released (how the recorder worked
   *     before the pool; kept as a diagnosis switch, {@code -Dtrtrace.cupti.reuseBuffers=false}, for the GPU check's
   *     before/after)
   * @param make makes one buffer, ready to use (CUPTI writes it at once)
   * @param free releases a buffer for good ({@link #close})
   */
  BufferPool(int max, boolean reuse, Supplier<T> make, Consumer<T> free) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1, got " + max);
    }
    this.max = max;
    this.reuse = reuse;
    this.make = make;
    this.free = free;
    this.idle = new ArrayBlockingQueue<>(max);
  }

  /** Makes buffers until {@code n} are idle (bounded by max); off the launch path, before recording starts. */
  void warm(int n) {
    while (reuse && idle.size() < Math.min(n, max) && reserve()) {
      idle.add(made());
    }
  }

  /** A buffer for CUPTI: an idle one, else a new one while fewer than max exist, else null (counted refused). */
  T take() {
    long t0 = System.nanoTime();
    requests.increment();
    try {
      T b = idle.poll();
      if (b != null) {
        return b;
      }
      if (!reserve()) {
        refused.increment();
        return null;
      }
      return made();
    } finally {
      long d = System.nanoTime() - t0;
      requestNanos.add(d);
      maxRequestNanos.accumulateAndGet(d, Math::max);
      if (d > SLOW_NANOS) {
        slow.increment();
      }
    }
  }

  /** A buffer CUPTI gave back, its records read: kept for the next request. */
  void give(T b) {
    if (!reuse || !idle.offer(b)) { // offer fails only if existing > max: released rather than lost
      existing.decrementAndGet();
      free.accept(b);
    }
  }

  /** Releases the idle buffers (those still handed out are CUPTI's until it gives them back). */
  void close() {
    for (T b; (b = idle.poll()) != null; ) {
      existing.decrementAndGet();
      free.accept(b);
    }
  }

  /** A new buffer in a slot already reserved; the slot is given back if making it fails (no buffer, no slot). */
  private T made() {
    try {
      T b = make.get();
      made.increment();
      return b;
    } catch (RuntimeException | Error e) {
      existing.decrementAndGet();
      throw e;
    }
  }

  private boolean reserve() {
    for (int n; (n = existing.get()) < max; ) {
      if (existing.compareAndSet(n, n + 1)) {
        return true;
      }
    }
    return false;
  }

  /** The counters so far. */
  BufferStats stats() {
    return new BufferStats(requests.sum(), refused.sum(), made.sum(), requestNanos.sum(), maxRequestNanos.get(),
        slow.sum());
  }
}
