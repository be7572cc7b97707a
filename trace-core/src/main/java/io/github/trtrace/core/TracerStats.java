package io.github.trtrace.core;

import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Counters of one tracer, a snapshot read with {@link InferenceTracer#stats()}. Every request counts
 * here, whether its record was written, sampled out, dropped or lost — nothing is lost silently:
 *
 * <pre>
 * ended    = sampledOut + dispatcher.offered + recordErrors
 * enqueued = dispatcher.accepted
 * dispatcher.accepted = sink.written + sink.lost() + sink.inFlight   (for each sink)
 * </pre>
 *
 * <p>An interface, as are its parts, so that counters can be added without breaking callers; trtrace
 * implements them.
 *
 * <pre>{@code
 * TracerStats s = tracer.stats();
 * TracerStats.SinkStats file = s.sinks().get("jsonl:logs/inference.log");
 * long missing = s.dispatcher().dropped() + file.lost() + s.recordErrors();
 * }</pre>
 */
public interface TracerStats {
  /** Traces started. */
  long started();

  /** Traces ended (first close only). */
  long ended();

  /** Ended traces whose record was not kept by sampling. */
  long sampledOut();

  /** Records the dispatcher accepted into its queue. */
  long enqueued();

  /**
   * Ended traces whose record could not be built because of an internal error (never offered to the
   * dispatcher).
   */
  long recordErrors();

  /** Ignored calls: stage ended while not open, calls after the end, double end. */
  long misuse();

  /** The dispatcher's counters: drops by reason, and per sink what was written and lost. */
  DispatcherStats dispatcher();

  /** Each sink's written, lost and in-flight counts by sink name ({@code dispatcher().sinks()}). */
  default Map<String, SinkStats> sinks() {
    return dispatcher().sinks();
  }

  /**
   * The counters of the queue between request threads and sinks. Counters only grow (except {@code
   * queued} and {@link SinkStats#inFlight()}). Every record offered is accounted for exactly once,
   * for each sink:
   *
   * <pre>
   * offered  = accepted + droppedQueueFull + droppedBlockTimeout + droppedClosed
   * accepted = sink.written + sink.lostFailed + sink.lostStuck + sink.lostClosed + sink.inFlight
   * </pre>
   *
   * Once the tracer is closed, every {@code inFlight} is 0.
   *
   * <pre>{@code
   * tracer.stats().sinks().forEach((name, sink) -> metrics.gauge("trtrace.lost", sink.lost(), "sink", name));
   * }</pre>
   */
  interface DispatcherStats {
    /** Records offered to the queue. */
    long offered();

    /** Records taken into the queue. */
    long accepted();

    /**
     * Records refused because the queue was full under {@link QueueFullPolicy#DROP}, or under {@link
     * QueueFullPolicy#BLOCK} when offered on a dispatcher or sink thread (a sink that records), which
     * never waits.
     */
    long droppedQueueFull();

    /**
     * Records refused under {@link QueueFullPolicy#BLOCK} after waiting the block timeout, or at once
     * while every sink was stuck past its export timeout.
     */
    long droppedBlockTimeout();

    /**
     * Records offered after the close began (or after a fatal JVM error stopped the dispatcher's
     * worker).
     */
    long droppedClosed();

    /** Records waiting in the queues now. */
    long queued();

    /**
     * Per-sink counters by {@link io.github.trtrace.core.sink.RecordSink#name()}, in the order the
     * sinks were configured.
     */
    Map<String, SinkStats> sinks();

    /** All records refused by the queue, whatever the reason. */
    default long dropped() {
      return droppedQueueFull() + droppedBlockTimeout() + droppedClosed();
    }
  }

  /**
   * Counters of one sink: what became of every accepted record for this sink.
   *
   * <pre>{@code
   * TracerStats.SinkStats file = tracer.stats().sinks().get("jsonl:logs/inference.log");
   * long missing = file.lost() + file.inFlight();
   * }</pre>
   */
  interface SinkStats {
    /**
     * Records that reached the sink's destination: the {@code write} (or, for a buffering sink, the
     * file write) that carried them returned.
     */
    long written();

    /**
     * Records the sink failed to deliver: its {@code write} threw (a buffering sink says itself how
     * many, see {@link io.github.trtrace.core.sink.RecordSink#delivery()}).
     */
    long lostFailed();

    /**
     * Records not given to the sink because it was still inside an earlier call after the export
     * timeout.
     */
    long lostStuck();

    /**
     * Records given up on at close: left in the queue at the close deadline, or held by this sink
     * when it had not returned by then.
     */
    long lostClosed();

    /**
     * Records accepted and not yet written or lost: queued, in a batch, or in the sink's buffer
     * ({@code accepted - written - lost()}, taken after the other counters).
     */
    long inFlight();

    /** Calls to {@code write}, {@code flush} or {@code close} that threw. */
    long failures();

    /** {@code "ExceptionClass: message"} of the latest failure, or {@code null}. */
    @Nullable String lastError();

    /** All records this sink lost, whatever the reason. */
    default long lost() {
      return lostFailed() + lostStuck() + lostClosed();
    }
  }
}
