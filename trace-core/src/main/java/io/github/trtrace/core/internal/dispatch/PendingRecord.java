package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.InferenceRecord;

/**
 * A record still in its mutable, pooled form, handed from the caller to the dispatcher's worker
 * ({@link PendingOffer}) so that the caller allocates nothing: the worker turns it into the
 * immutable {@link InferenceRecord} the sinks receive and gives it back to its pool.
 */
public interface PendingRecord {

  /**
   * Builds the immutable record and returns this entry to its pool. Called once, on the worker;
   * never throws (an entry that cannot be built yields a minimal record and is logged).
   */
  InferenceRecord toRecord();

  /** Returns this entry to its pool unbuilt (not accepted, or discarded on close). */
  void discard();
}
