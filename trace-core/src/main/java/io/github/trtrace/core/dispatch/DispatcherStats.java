package io.github.trtrace.core.dispatch;

import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of a dispatcher's counters, read with {@link Dispatcher#stats()}. Counters only grow
 * (except {@code queued} and {@link SinkStats#inFlight()}). Every record offered is accounted for
 * exactly once, for each sink:
 *
 * <pre>
 * offered  = accepted + droppedQueueFull + droppedBlockTimeout + droppedClosed
 * accepted = sink.written + sink.lostFailed + sink.lostStuck + sink.lostClosed + sink.inFlight
 * </pre>
 *
 * Once the dispatcher is closed and its sinks returned, every {@code inFlight} is 0.
 *
 * <pre>{@code
 * DispatcherStats s = dispatcher.stats();
 * s.sinks().forEach((name, sink) -> metrics.gauge("trtrace.lost", sink.lost(), "sink", name));
 * }</pre>
 *
 * @param offered records passed to {@link Dispatcher#offer}
 * @param accepted records taken into the queue (offer returned {@code true})
 * @param droppedQueueFull records refused because the queue was full under {@link
 *     QueueFullPolicy#DROP}, or under {@link QueueFullPolicy#BLOCK} when offered on a dispatcher or
 *     sink thread (a sink that records), which never waits
 * @param droppedBlockTimeout records refused under {@link QueueFullPolicy#BLOCK} after waiting the
 *     block timeout
 * @param droppedClosed records offered after {@link Dispatcher#close()} began (or after a fatal
 *     JVM error stopped the dispatcher)
 * @param queued records waiting in the queues now
 * @param sinks per-sink counters by {@link io.github.trtrace.core.sink.RecordSink#name()}, in the
 *     order the sinks were configured
 */
public record DispatcherStats(
    long offered,
    long accepted,
    long droppedQueueFull,
    long droppedBlockTimeout,
    long droppedClosed,
    long queued,
    Map<String, SinkStats> sinks) {

  public DispatcherStats {
    Objects.requireNonNull(sinks, "sinks");
  }

  /** All records refused by {@link Dispatcher#offer}, whatever the reason. */
  public long dropped() {
    return droppedQueueFull + droppedBlockTimeout + droppedClosed;
  }

  /**
   * Counters of one sink: what became of every accepted record for this sink.
   *
   * <pre>{@code
   * SinkStats file = dispatcher.stats().sinks().get("jsonl:logs/inference.log");
   * long missing = file.lost() + file.inFlight();
   * }</pre>
   *
   * @param written records that reached the sink's destination: the {@code write} (or, for a
   *     buffering sink, the file write) that carried them returned
   * @param lostFailed records the sink failed to deliver: its {@code write} threw (a buffering sink
   *     says itself how many, see {@link io.github.trtrace.core.sink.RecordSink#delivery()})
   * @param lostStuck records not given to the sink because it was still inside an earlier call after
   *     the export timeout
   * @param lostClosed records the dispatcher gave up on at close: left in the queue at the close
   *     deadline, or held by this sink when it had not returned by then
   * @param inFlight records accepted and not yet written or lost: queued, in a batch, or in the
   *     sink's buffer ({@code accepted - written - lost()}, taken after the other counters)
   * @param failures calls to {@code write}, {@code flush} or {@code close} that threw
   * @param lastError {@code "ExceptionClass: message"} of the latest failure, or {@code null}
   */
  public record SinkStats(
      long written,
      long lostFailed,
      long lostStuck,
      long lostClosed,
      long inFlight,
      long failures,
      @Nullable String lastError) {

    /** All records this sink lost, whatever the reason. */
    public long lost() {
      return lostFailed + lostStuck + lostClosed;
    }
  }
}
