package io.github.trtrace.testing;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Keeps records in memory, for tests of code that records requests. Thread-safe: the dispatcher
 * writes on its thread while the test reads on its own. With a capacity, the oldest records are
 * evicted first.
 *
 * <pre>{@code
 * InMemorySink sink = InMemorySink.create();
 * InferenceTracer tracer = InferenceTracer.builder().sink(sink).build();
 * // ... run the code under test with this tracer ...
 * assertThat(sink.awaitCount(1, Duration.ofSeconds(5))).isTrue();
 * assertThat(sink.findByRequestId("req-1")).isPresent();
 * }</pre>
 */
public final class InMemorySink implements RecordSink {
  private final int capacity;
  private final ArrayDeque<InferenceRecord> records = new ArrayDeque<>();
  private final Object lock = new Object();
  private long received;

  private InMemorySink(int capacity) {
    this.capacity = capacity;
  }

  /** A sink that keeps every record until {@link #clear()}. */
  public static InMemorySink create() {
    return new InMemorySink(Integer.MAX_VALUE);
  }

  /**
   * A sink that keeps the latest {@code capacity} records.
   *
   * @throws IllegalArgumentException if {@code capacity < 1}
   */
  public static InMemorySink create(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
    return new InMemorySink(capacity);
  }

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public void write(List<InferenceRecord> batch) {
    if (batch.isEmpty()) {
      return;
    }
    // checked before keeping any: a refused batch leaves records() and count() as they were
    for (InferenceRecord r : batch) {
      Objects.requireNonNull(r, "record");
    }
    synchronized (lock) {
      for (InferenceRecord r : batch) {
        if (records.size() == capacity) {
          records.removeFirst();
        }
        records.addLast(r);
      }
      received += batch.size();
      lock.notifyAll();
    }
  }

  /** The records held now, oldest first; an immutable copy. */
  public List<InferenceRecord> records() {
    synchronized (lock) {
      return List.copyOf(records);
    }
  }

  /** The latest record with this request ID, if held. */
  public Optional<InferenceRecord> findByRequestId(String requestId) {
    Objects.requireNonNull(requestId, "requestId");
    synchronized (lock) {
      for (Iterator<InferenceRecord> it = records.descendingIterator(); it.hasNext(); ) {
        InferenceRecord r = it.next();
        if (r.requestId().equals(requestId)) {
          return Optional.of(r);
        }
      }
      return Optional.empty();
    }
  }

  /** Records written since creation or the last {@link #clear()}, evicted ones included. */
  public long count() {
    synchronized (lock) {
      return received;
    }
  }

  /** Forgets every record and resets {@link #count()}. */
  public void clear() {
    synchronized (lock) {
      records.clear();
      received = 0;
    }
  }

  /**
   * Waits until {@link #count()} reaches {@code count} or {@code timeout} passes.
   *
   * @return whether the count was reached
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitCount(int count, Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    long timeoutNanos;
    try {
      timeoutNanos = Math.max(0, timeout.toNanos());
    } catch (ArithmeticException pastLongNanos) { // over about 292 years: as good as forever
      timeoutNanos = timeout.isNegative() ? 0 : Long.MAX_VALUE;
    }
    long start = System.nanoTime();
    synchronized (lock) {
      while (received < count) {
        long left = timeoutNanos - (System.nanoTime() - start); // overflow-safe, unlike a deadline
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return true;
    }
  }

  @Override
  public String toString() {
    return "InMemorySink{count=" + count() + '}';
  }
}
