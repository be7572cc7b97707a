package io.github.trtrace.core.internal.dispatch;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts producers inside {@link Dispatcher#offer}, so that close can wait for every offer that
 * started before it to finish: each such offer has then either queued its record (and the drain that
 * follows writes it) or refused it and counted the drop.
 *
 * <p>Striped to keep producers on different cores off one cache line. A thread always uses the same
 * cell (chosen by its identity hash), so its increment and decrement hit one counter and a cell never
 * reads below the number of its producers still inside: {@link #isEmpty()} can be wrong only towards
 * "not empty" (a producer that entered after close began, and will refuse its record), never towards
 * "empty" while a producer that saw the dispatcher open is inside. A {@link java.util.concurrent.atomic.LongAdder}
 * would not do: it may move a thread to another cell between its increment and decrement.
 */
final class ProducerGate {
  private static final int PAD = 16; // longs: 128 bytes between cells
  private final AtomicLongArray cells;
  private final int mask;

  ProducerGate() {
    int wanted = Math.min(64, Math.max(2, 2 * Runtime.getRuntime().availableProcessors()));
    int n = Integer.highestOneBit(wanted - 1) << 1;
    this.cells = new AtomicLongArray(n * PAD);
    this.mask = n - 1;
  }

  /** Enters; returns the cell to pass to {@link #exit}. */
  int enter() {
    int cell = (mix(System.identityHashCode(Thread.currentThread())) & mask) * PAD;
    cells.getAndIncrement(cell);
    return cell;
  }

  void exit(int cell) {
    cells.getAndDecrement(cell);
  }

  /** Whether no producer is inside (see the class comment for the one-sided error). */
  boolean isEmpty() {
    for (int i = 0; i < cells.length(); i += PAD) {
      if (cells.get(i) != 0) {
        return false;
      }
    }
    return true;
  }

  private static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x45d9f3b;
    return h ^ (h >>> 16);
  }
}
