package io.github.trtrace.core.sink;

import io.github.trtrace.core.InferenceRecord;
import java.io.IOException;
import java.util.List;

/**
 * Where records go. Called only from the dispatcher's single worker thread, one batch at a time,
 * so implementations need no locking of their own. A sink that throws is counted as failed for
 * that batch; other sinks still receive it (per-sink isolation).
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
