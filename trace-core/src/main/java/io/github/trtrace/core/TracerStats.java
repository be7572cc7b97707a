package io.github.trtrace.core;

import io.github.trtrace.core.dispatch.DispatcherStats;
import io.github.trtrace.core.dispatch.DispatcherStats.SinkStats;
import java.util.Map;

/**
 * Counters of one tracer. Every request counts here, whether its record was written, sampled out,
 * dropped or lost — nothing is lost silently:
 *
 * <pre>
 * ended    = sampledOut + dispatcher.offered + recordErrors
 * enqueued = dispatcher.accepted                     (the tracer's own dispatcher)
 * dispatcher.accepted = sink.written + sink.lost() + sink.inFlight   (for each sink)
 * </pre>
 *
 * <pre>{@code
 * TracerStats s = tracer.stats();
 * SinkStats file = s.sinks().get("jsonl:logs/inference.log");
 * long missing = s.dispatcher().dropped() + file.lost() + s.recordErrors();
 * }</pre>
 *
 * @param started traces started
 * @param ended traces ended (first close only)
 * @param sampledOut ended traces whose record was not kept by sampling
 * @param enqueued records the dispatcher accepted into its queue
 * @param recordErrors ended traces whose record could not be built because of an internal error
 *     (never offered to the dispatcher)
 * @param misuse ignored calls: stage ended while not open, calls after the end, double end
 * @param dispatcher the dispatcher's counters: drops by reason, and per sink what was written and
 *     lost
 */
public record TracerStats(
    long started,
    long ended,
    long sampledOut,
    long enqueued,
    long recordErrors,
    long misuse,
    DispatcherStats dispatcher) {

  /** Each sink's written, lost and in-flight counts by sink name ({@code dispatcher().sinks()}). */
  public Map<String, SinkStats> sinks() {
    return dispatcher.sinks();
  }
}
