package io.github.trtrace.core.internal.dispatch;

import java.util.Map;
import java.util.Objects;

/**
 * What {@link Dispatcher#close(java.time.Duration)} achieved.
 *
 * <pre>{@code
 * CloseReport r = dispatcher.close(Duration.ofSeconds(5));
 * if (!r.clean()) { System.err.println("trtrace: " + r); }
 * }</pre>
 *
 * @param drained records handed to the sinks between the start of close and its end
 * @param discarded records left in the queue at the close deadline, never given to any sink
 * @param timedOut whether close returned before the worker had finished (flushed and closed every
 *     sink): the deadline passed, a sink had not returned, or close was called from a dispatcher or
 *     sink thread, which cannot wait for itself
 * @param unwritten sink name to the accepted records that did not reach that sink when close
 *     returned ({@code accepted - written}): lost at any time (failed writes, missed while stuck,
 *     discarded at the deadline) or still held by a sink that had not returned
 * @param sinkFailures sink name to the first error that sink raised during close (write, flush or
 *     close), {@code "ExceptionClass: message"}
 */
public record CloseReport(
    long drained,
    long discarded,
    boolean timedOut,
    Map<String, Long> unwritten,
    Map<String, String> sinkFailures) {

  public CloseReport {
    Objects.requireNonNull(unwritten, "unwritten");
    Objects.requireNonNull(sinkFailures, "sinkFailures");
  }

  /** The most records any one sink is missing (0 when every sink has every accepted record). */
  public long maxUnwritten() {
    long max = 0;
    for (long n : unwritten.values()) {
      max = Math.max(max, n);
    }
    return max;
  }

  /** True when every accepted record reached every sink, and each flushed and closed in time. */
  public boolean clean() {
    return maxUnwritten() == 0 && !timedOut && sinkFailures.isEmpty();
  }
}
