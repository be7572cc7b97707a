package io.github.trtrace.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class InMemorySinkTest extends RecordSinkContractTest {

  @Override
  protected RecordSink newSink() {
    return InMemorySink.create();
  }

  @Override
  protected List<String> writtenRequestIds(RecordSink sink) {
    return ((InMemorySink) sink)
        .records().stream().map(InferenceRecord::requestId).collect(Collectors.toList());
  }

  @Test
  void aCapacityKeepsTheLatestRecordsButCountsThemAll() {
    InMemorySink sink = InMemorySink.create(2);
    sink.write(List.of(record("a"), record("b"), record("c")));
    assertThat(writtenRequestIds(sink)).containsExactly("b", "c");
    assertThat(sink.count()).isEqualTo(3);
  }

  @Test
  void findByRequestIdReturnsTheLatestRecordWithThatId() {
    InMemorySink sink = InMemorySink.create();
    InferenceRecord retried = record("r").toBuilder().status(Status.ERROR).build();
    sink.write(List.of(record("r"), record("other"), retried));
    assertThat(sink.findByRequestId("r")).contains(retried);
    assertThat(sink.findByRequestId("missing")).isEmpty();
  }

  @Test
  void clearForgetsRecordsAndTheCount() {
    InMemorySink sink = InMemorySink.create();
    sink.write(List.of(record("a")));
    sink.clear();
    assertThat(sink.records()).isEmpty();
    assertThat(sink.count()).isZero();
  }

  @Test
  void recordsIsASnapshotTheSinkDoesNotChangeLater() {
    InMemorySink sink = InMemorySink.create();
    sink.write(List.of(record("a")));
    List<InferenceRecord> snapshot = sink.records();
    sink.write(List.of(record("b")));
    assertThat(snapshot).hasSize(1);
    assertThatThrownBy(() -> snapshot.add(record("c"))).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void awaitCountReturnsOnceAnotherThreadHasWrittenEnough() throws Exception {
    InMemorySink sink = InMemorySink.create();
    CompletableFuture<Boolean> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return sink.awaitCount(2, Duration.ofSeconds(30));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              }
            });
    sink.write(List.of(record("a")));
    sink.write(List.of(record("b")));
    assertThat(waiting.get()).isTrue();
  }

  @Test
  void awaitCountReportsFalseWhenTheCountIsNotReached() throws Exception {
    InMemorySink sink = InMemorySink.create();
    sink.write(List.of(record("a")));
    assertThat(sink.awaitCount(2, Duration.ofMillis(10))).isFalse();
    assertThat(sink.awaitCount(1, Duration.ZERO)).isTrue();
  }

  @Test
  void aCapacityBelowOneIsRefused() {
    assertThatThrownBy(() -> InMemorySink.create(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacity must be at least 1");
  }

  @Test
  void awaitCountWithATimeoutTooLongForNanosecondsWaitsInsteadOfFailing() throws Exception {
    // "wait as long as it takes": a Duration past Long.MAX_VALUE nanoseconds (about 292 years)
    InMemorySink sink = InMemorySink.create();
    sink.write(List.of(record("req-forever-1")));
    assertThat(sink.awaitCount(1, Duration.ofSeconds(Long.MAX_VALUE))).isTrue();
    assertThat(sink.awaitCount(1, Duration.ofDays(365L * 1000))).isTrue();
  }

  @Test
  void aBatchWithANullRecordIsRefusedWhole() {
    InMemorySink sink = InMemorySink.create();
    List<InferenceRecord> batch = new java.util.ArrayList<>();
    batch.add(record("req-before-null"));
    batch.add(null);
    assertThatThrownBy(() -> sink.write(batch)).isInstanceOf(NullPointerException.class);
    // records() and count() agree: nothing of the refused batch is kept
    assertThat(sink.records()).isEmpty();
    assertThat(sink.count()).isZero();
  }
}
