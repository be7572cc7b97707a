package io.github.trtrace.core.sink;

import io.github.trtrace.core.InferenceRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * trace-core's own test sink: keeps every record written, for the tests of this module. (Users and
 * the other modules use trace-testing's {@code InMemorySink}; trace-core's tests cannot depend on
 * trace-testing, which depends on trace-core.)
 */
public final class CapturingSink implements RecordSink {
  private final List<InferenceRecord> records = new ArrayList<>();

  private CapturingSink() {}

  public static CapturingSink create() {
    return new CapturingSink();
  }

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public synchronized void write(List<InferenceRecord> batch) {
    records.addAll(batch);
    notifyAll();
  }

  /**
   * A sink named {@code name} that sleeps {@code millisPerBatch} before each batch and then keeps it here: a
   * destination slower than the producers. Interrupted in its sleep, it fails the batch as a sink would.
   */
  public RecordSink slowed(String name, long millisPerBatch) {
    return RecordSink.named(name, batch -> {
      try {
        Thread.sleep(millisPerBatch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException();
      }
      write(batch);
    });
  }

  /** The records written so far, oldest first; an immutable copy. */
  public synchronized List<InferenceRecord> records() {
    return List.copyOf(records);
  }

  /** How many records were written. */
  public synchronized long count() {
    return records.size();
  }

  /** The latest record with this request ID. */
  public synchronized Optional<InferenceRecord> findByRequestId(String requestId) {
    for (int i = records.size() - 1; i >= 0; i--) {
      if (records.get(i).requestId().equals(requestId)) {
        return Optional.of(records.get(i));
      }
    }
    return Optional.empty();
  }

  /** Waits until {@code count} records were written or {@code timeout} passed; whether they were. */
  public synchronized boolean awaitCount(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (records.size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }
}
