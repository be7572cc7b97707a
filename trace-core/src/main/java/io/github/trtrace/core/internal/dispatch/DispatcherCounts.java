package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.TracerStats;
import java.util.Map;
import java.util.Objects;

/** The dispatcher's snapshot of its counters ({@link TracerStats.DispatcherStats} says what each means). */
public record DispatcherCounts(
    long offered,
    long accepted,
    long droppedQueueFull,
    long droppedBlockTimeout,
    long droppedClosed,
    long queued,
    Map<String, TracerStats.SinkStats> sinks)
    implements TracerStats.DispatcherStats {

  public DispatcherCounts {
    Objects.requireNonNull(sinks, "sinks");
  }

  /** No record offered, no sink. */
  public static final DispatcherCounts EMPTY = new DispatcherCounts(0, 0, 0, 0, 0, 0, Map.of());
}
