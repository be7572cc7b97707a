package io.github.trtrace.core.dispatch;

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
 * @param notWritten records accepted into the queue that had not gone through every sink's
 *     {@code write} when close returned: left in the queues at the deadline (discarded), in a batch
 *     a sink had not yet returned from, or stranded by a worker stopped by a fatal JVM error
 * @param timedOut whether close returned before the worker had finished (flushed and closed the
 *     sinks): the deadline passed, or close was called by a sink on the dispatcher thread, which
 *     cannot wait for itself
 * @param sinkFailures sink name to the first error that sink raised during close (write, flush or
 *     close), {@code "ExceptionClass: message"}
 */
public record CloseReport(
    long drained, long notWritten, boolean timedOut, Map<String, String> sinkFailures) {

  public CloseReport {
    Objects.requireNonNull(sinkFailures, "sinkFailures");
  }

  /** True when everything was written, every sink flushed and closed, within the deadline. */
  public boolean clean() {
    return notWritten == 0 && !timedOut && sinkFailures.isEmpty();
  }
}
