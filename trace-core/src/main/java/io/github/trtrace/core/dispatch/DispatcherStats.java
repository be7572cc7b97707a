package io.github.trtrace.core.dispatch;

import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a dispatcher's counters, read with {@link Dispatcher#stats()}. Counters only grow
 * (except {@code queued}). Every offered record is accounted for exactly once:
 * {@code offered == written + failed + dropped() + queued + (records in the batch being written) +
 * (records discarded at a close that timed out)}.
 *
 * <pre>{@code
 * DispatcherStats s = dispatcher.stats();
 * if (s.dropped() > 0) { metrics.gauge("trtrace.dropped", s.dropped()); }
 * }</pre>
 *
 * @param offered calls to {@link Dispatcher#offer}
 * @param written records whose batch every sink's {@code write} accepted (returned normally)
 * @param failed records whose batch at least one sink's {@code write} failed on; each sink's own
 *     success and failure counts are in {@code sinks}
 * @param droppedQueueFull records dropped because the queue was full under {@link
 *     QueueFullPolicy#DROP}, or under {@link QueueFullPolicy#BLOCK} when offered on the dispatcher
 *     thread itself
 * @param droppedBlockTimeout records dropped under {@link QueueFullPolicy#BLOCK} after waiting the
 *     block timeout
 * @param droppedClosed records offered after {@link Dispatcher#close()} began
 * @param queued records waiting in the queues now
 * @param sinks per-sink counters by {@link io.github.trtrace.core.sink.RecordSink#name()}, in the
 *     order the sinks were configured
 */
public record DispatcherStats(
    long offered,
    long written,
    long failed,
    long droppedQueueFull,
    long droppedBlockTimeout,
    long droppedClosed,
    long queued,
    Map<String, SinkStats> sinks) {

  public DispatcherStats {
    Objects.requireNonNull(sinks, "sinks");
  }

  /** All records dropped before reaching the queue, whatever the reason. */
  public long dropped() {
    return droppedQueueFull + droppedBlockTimeout + droppedClosed;
  }

  /**
   * Counters of one sink.
   *
   * <pre>{@code
   * SinkStats file = dispatcher.stats().sinks().get("jsonl:logs/inference.log");
   * }</pre>
   *
   * @param recordsWritten records in batches this sink's {@code write} returned normally for
   * @param batchesFailed calls to {@code write} that threw
   * @param recordsFailed records in those batches
   * @param flushesFailed calls to {@code flush} or {@code close} that threw
   * @param lastError {@code "ExceptionClass: message"} of the latest failure, or {@code null}
   */
  public record SinkStats(
      long recordsWritten,
      long batchesFailed,
      long recordsFailed,
      long flushesFailed,
      @Nullable String lastError) {}
}
