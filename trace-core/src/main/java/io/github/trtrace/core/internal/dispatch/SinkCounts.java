package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.TracerStats;
import org.jspecify.annotations.Nullable;

/** A snapshot of one sink's counters ({@link TracerStats.SinkStats} says what each means). */
public record SinkCounts(
    long written,
    long lostFailed,
    long lostStuck,
    long lostClosed,
    long inFlight,
    long failures,
    @Nullable String lastError)
    implements TracerStats.SinkStats {}
