package io.github.trtrace.core.internal.dispatch;

/**
 * Implemented by trtrace's own dispatcher: takes a {@link PendingRecord} instead of a built record,
 * so that the tracer's caller thread allocates nothing. A tracer with a user-supplied dispatcher
 * builds the record on the caller and uses {@code Dispatcher.offer} instead.
 */
public interface PendingOffer {

  /**
   * Queues {@code record} like {@code Dispatcher.offer}. On {@code true} the worker owns it (and
   * returns it to its pool); on {@code false} (dropped, counted) it stays the caller's.
   */
  boolean offerPending(PendingRecord record, boolean priority);
}
