package io.github.trtrace.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link RecordSink} honours: every record of every batch written once, in order,
 * through {@code flush} and {@code close} (which the dispatcher calls in that order); the batch list not
 * kept; calls from a thread other than the one that built the sink (the dispatcher's sink thread); and,
 * for a buffering sink, {@link RecordSink#delivery()} counting what reached the destination. Each
 * sink's test extends this class and says how to create the sink and how to read back what it wrote; the sinks of trtrace's own modules and
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
   * visible after {@link RecordSink#flush()}. Also called after {@link RecordSink#close()}: read the
   * destination, not through the sink's open resources.
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

  @Test
  public void eachRecordIsWrittenOnceThroughFlushAndClose() throws Exception {
    RecordSink sink = newSink();
    onASinkThread(() -> {
      sink.write(List.of(record("req-once-1"), record("req-once-2")));
      sink.flush();
      sink.write(List.of(record("req-once-3")));
      sink.flush(); // as the dispatcher ends: a final flush, then close
      sink.close();
      return null;
    });
    assertThat(writtenRequestIds(sink)).containsExactly("req-once-1", "req-once-2", "req-once-3");
  }

  @Test
  public void worksWhenCalledFromAThreadOtherThanTheOneThatBuiltIt() throws Exception {
    // the dispatcher builds nothing: the application builds the sink, the sink's own thread calls it, close
    // included
    RecordSink sink = newSink();
    onASinkThread(() -> {
      sink.write(List.of(record("req-thread-1")));
      sink.write(List.of(record("req-thread-2")));
      sink.flush();
      sink.close();
      return null;
    });
    assertThat(writtenRequestIds(sink)).containsExactly("req-thread-1", "req-thread-2");
  }

  @Test
  public void deliveryCountsWhatReachedTheDestinationAndLosesNothing() throws Exception {
    RecordSink sink = newSink();
    RecordSink.Delivery[] seen = onASinkThread(() -> {
      RecordSink.Delivery built = sink.delivery();
      sink.write(List.of(record("req-delivery-1"), record("req-delivery-2")));
      sink.write(List.of(record("req-delivery-3")));
      sink.flush();
      RecordSink.Delivery flushed = sink.delivery();
      sink.close();
      return new RecordSink.Delivery[] {built, flushed, sink.delivery()};
    });
    if (seen[0] == null && seen[1] == null && seen[2] == null) {
      return; // not buffering: a write that returned delivered its batch (checked above)
    }
    long baseWritten = seen[0] == null ? 0 : seen[0].written();
    long baseLost = seen[0] == null ? 0 : seen[0].lost();
    for (int i = 1; i < 3; i++) {
      assertThat(seen[i]).as("delivery() %s", i == 1 ? "after flush" : "after close").isNotNull();
      assertThat(seen[i].written() - baseWritten)
          .as("records delivered by %s, as delivery() counts them", i == 1 ? "flush" : "close")
          .isEqualTo(3);
      assertThat(seen[i].lost() - baseLost).as("records lost").isZero();
    }
  }

  /** Runs {@code calls} on a thread of its own, as the dispatcher calls a sink, and returns their result. */
  private static <T> T onASinkThread(Callable<T> calls) throws Exception {
    ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "contract-sink-thread"));
    try {
      return thread.submit(calls).get(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof Exception x) {
        throw x;
      }
      throw e;
    } finally {
      thread.shutdownNow();
    }
  }
}
