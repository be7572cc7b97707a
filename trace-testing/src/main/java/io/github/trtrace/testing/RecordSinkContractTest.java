package io.github.trtrace.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link RecordSink} honours. Each sink's test extends this class and says how
 * to create the sink and how to read back what it wrote; the sinks of trtrace's own modules and
 * users' own sinks run the same contract.
 *
 * <pre>{@code
 * class MySinkTest extends RecordSinkContractTest {
 *   protected RecordSink newSink() { return new MySink(store); }
 *   protected List<String> writtenRequestIds(RecordSink sink) { return store.requestIds(); }
 * }
 * }</pre>
 */
public abstract class RecordSinkContractTest {

  /** A fresh sink for one test. */
  protected abstract RecordSink newSink() throws Exception;

  /**
   * The request IDs of the records {@code sink} has written, in write order, as far as they are
   * visible after {@link RecordSink#flush()}.
   */
  protected abstract List<String> writtenRequestIds(RecordSink sink) throws Exception;

  /** A valid record with the given ID and a model name full of characters that need escaping. */
  protected static InferenceRecord record(String requestId) {
    return InferenceRecord.builder(requestId, "model \"x\"\n\u2028\u202e\\")
        .timestamp(Instant.parse("2026-11-30T08:00:00.123456Z"))
        .status(Status.SUCCESS)
        .latencyMs(12.5)
        .inputTokens(3)
        .outputTokens(7)
        .attribute("tenant", "a\tb")
        .build();
  }

  @Test
  public void writesEveryRecordOfEveryBatchInOrder() throws Exception {
    try (RecordSink sink = newSink()) {
      List<String> expected = new ArrayList<>();
      for (int b = 0; b < 3; b++) {
        List<InferenceRecord> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          String id = "req-contract-" + b + "-" + i;
          expected.add(id);
          batch.add(record(id));
        }
        sink.write(batch);
      }
      sink.flush();
      assertThat(writtenRequestIds(sink)).containsExactlyElementsOf(expected);
    }
  }

  @Test
  public void doesNotKeepTheBatchListAfterWriteReturns() throws Exception {
    // the dispatcher hands every write the same list, cleared and refilled for the next batch
    try (RecordSink sink = newSink()) {
      List<InferenceRecord> reused = new ArrayList<>();
      reused.add(record("req-reuse-1"));
      reused.add(record("req-reuse-2"));
      sink.write(reused);
      reused.clear();
      reused.add(record("req-reuse-3"));
      sink.write(reused);
      reused.clear();
      sink.flush();
      assertThat(writtenRequestIds(sink)).containsExactly("req-reuse-1", "req-reuse-2", "req-reuse-3");
    }
  }

  @Test
  public void emptyBatchWritesNothingAndDoesNotFail() throws Exception {
    try (RecordSink sink = newSink()) {
      sink.write(List.of());
      sink.flush();
      assertThat(writtenRequestIds(sink)).isEmpty();
    }
  }

  @Test
  public void hasANonBlankName() throws Exception {
    try (RecordSink sink = newSink()) {
      assertThat(sink.name()).isNotBlank();
    }
  }

  @Test
  public void closeTwiceIsHarmless() throws Exception {
    RecordSink sink = newSink();
    sink.write(List.of(record("req-close-1")));
    sink.close();
    assertThatCode(sink::close).doesNotThrowAnyException();
  }
}
