package io.github.trtrace.core.internal.dispatch;

import org.jctools.queues.atomic.MpscAtomicArrayQueue;

/**
 * The dispatcher's two bounded MPSC array queues: the main one, and a reserve only priority records
 * use when the main one is full. Elements are {@link io.github.trtrace.core.InferenceRecord}s or
 * {@link PendingRecord}s; many producers, one consumer (the worker).
 */
final class DispatchQueues {
  final MpscAtomicArrayQueue<Object> main;
  final MpscAtomicArrayQueue<Object> reserve;
  private final int mainCapacity;
  private final int reservedCapacity;

  DispatchQueues(int mainCapacity, int reservedCapacity) {
    this.mainCapacity = mainCapacity;
    this.main = new MpscAtomicArrayQueue<>(Math.max(2, mainCapacity));
    this.reservedCapacity = reservedCapacity;
    this.reserve = new MpscAtomicArrayQueue<>(Math.max(2, reservedCapacity));
  }

  /** Queues {@code record} in the main queue, or a priority one in the reserve; false when full. */
  boolean offer(Object record, boolean priority) {
    return main.offerIfBelowThreshold(record, mainCapacity)
        || (priority
            && reservedCapacity > 0
            && reserve.offerIfBelowThreshold(record, reservedCapacity));
  }

  int mainSize() {
    return main.size();
  }

  boolean isEmpty() {
    return main.isEmpty() && reserve.isEmpty();
  }

  long queued() {
    return (long) main.size() + reserve.size();
  }

  /** Records ever taken into a queue: the queues' producer indices, exact and free to read. */
  long accepted() {
    return main.currentProducerIndex() + reserve.currentProducerIndex();
  }

  /** Empties both queues (the worker, at the close deadline); returns how many records they held. */
  long discardAll() {
    long discarded = 0;
    while (reserve.poll() != null || main.poll() != null) {
      discarded++;
    }
    return discarded;
  }
}
