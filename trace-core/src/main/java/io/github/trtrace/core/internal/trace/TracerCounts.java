package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.TracerStats;

/** A snapshot of a tracer's counters ({@link TracerStats} says what each means). */
public record TracerCounts(
    long started,
    long ended,
    long sampledOut,
    long enqueued,
    long recordErrors,
    long misuse,
    TracerStats.DispatcherStats dispatcher)
    implements TracerStats {}
