package io.github.trtrace.examples.demo;

import java.util.BitSet;

/**
 * Which of a fixed number of key/value slots are taken: the lowest free one is handed out, and a slot given back
 * twice is a defect, refused. Plain bookkeeping for {@link TensorRtSteps}' device slots. One thread at a time.
 *
 * <pre>{@code
 * SlotPool pool = new SlotPool(16);
 * int slot = pool.acquire();
 * pool.release(slot);
 * }</pre>
 */
final class SlotPool {
  private final int size;
  private final BitSet taken;

  SlotPool(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("a slot pool needs at least one slot: " + size);
    }
    this.size = size;
    this.taken = new BitSet(size);
  }

  /**
   * The lowest free slot, now taken.
   *
   * @throws IllegalStateException when every slot is taken
   */
  int acquire() {
    int s = taken.nextClearBit(0);
    if (s >= size) {
      throw new IllegalStateException("all " + size + " key/value slots are taken");
    }
    taken.set(s);
    return s;
  }

  /**
   * Gives {@code slot} back.
   *
   * @throws IllegalArgumentException when it is not a slot of this pool
   * @throws IllegalStateException when it is not taken
   */
  void release(int slot) {
    if (slot < 0 || slot >= size) {
      throw new IllegalArgumentException("no slot " + slot + " in a pool of " + size);
    }
    if (!taken.get(slot)) {
      throw new IllegalStateException("slot " + slot + " is not taken");
    }
    taken.clear(slot);
  }

  /** Slots free now. */
  int free() {
    return size - taken.cardinality();
  }
}
