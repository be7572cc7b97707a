package io.github.trtrace.core.sink;

import io.github.trtrace.core.InferenceRecord;
import java.io.IOException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where records go. Each sink is called from one thread of its own, one batch at a time, so
 * implementations need no locking of their own. A sink that throws is counted as failed for that
 * batch; a sink that does not return within the dispatcher's export timeout misses the batches that
 * come meanwhile (counted as lost for it); either way the other sinks still receive every batch
 * (per-sink isolation).
 *
 * <pre>{@code
 * RecordSink stdout = RecordSink.named("stdout", batch -> batch.forEach(System.out::println));
 * }</pre>
 */
public interface RecordSink extends AutoCloseable {

  /** Short name used in statistics and error messages, e.g. {@code "jsonl:logs/inference.log"}. */
  String name();

  /**
   * Writes a batch of records. Records are immutable; the list must not be kept after return.
   *
   * @throws IOException or any runtime exception: the dispatcher counts the batch as failed for
   *     this sink and moves on
   */
  void write(List<InferenceRecord> batch) throws IOException;

  /** Pushes buffered data towards durable storage. Default: nothing buffered. */
  default void flush() throws IOException {}

  /**
   * For a sink that keeps records after {@code write} returns (a buffer): how many records have
   * reached the destination (the write that carried their bytes returned) and how many it lost,
   * since the sink was built. The dispatcher reads it on the sink's thread after every call and
   * reports these figures as the sink's written and lost counts. {@code null}, the default, means
   * the sink does not buffer: a {@code write} that returns delivered the whole batch, one that throws
   * lost it.
   */
  default @Nullable Delivery delivery() {
    return null;
  }

  /**
   * Delivery counts of a buffering sink, see {@link #delivery()}.
   *
   * @param written records whose bytes reached the destination
   * @param lost records the sink failed to deliver and dropped (and said so in an exception)
   */
  record Delivery(long written, long lost) {}

  /** Releases resources; called once by the dispatcher after the final flush. */
  @Override
  default void close() throws IOException {}

  /** A sink from a lambda, for tests and small adapters. */
  static RecordSink named(String name, BatchWriter writer) {
    return new RecordSink() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void write(List<InferenceRecord> batch) throws IOException {
        writer.write(batch);
      }
    };
  }

  /** Functional form of {@link #write(List)}. */
  @FunctionalInterface
  interface BatchWriter {
    void write(List<InferenceRecord> batch) throws IOException;
  }
}
