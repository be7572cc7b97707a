package io.github.trtrace.core;

import io.github.trtrace.core.dispatch.DispatcherStats;

/**
 * Counters of one tracer. Every request counts here, whether its record was written, sampled out
 * or dropped — nothing is lost silently.
 *
 * <pre>{@code
 * TracerStats s = tracer.stats();
 * long lost = s.dispatcher().dropped() + s.failed();
 * }</pre>
 *
 * @param started traces started
 * @param ended traces ended (first close only)
 * @param sampledOut ended traces whose record was not kept by sampling
 * @param enqueued records accepted by the dispatcher
 * @param failed records that could not be built or queued because of an internal error
 * @param misuse ignored calls: stage ended while not open, calls after the end, double end
 * @param dispatcher the dispatcher's own counters (drops, sink failures)
 */
public record TracerStats(
    long started,
    long ended,
    long sampledOut,
    long enqueued,
    long failed,
    long misuse,
    DispatcherStats dispatcher) {}
