package io.github.trtrace.core;

/**
 * What {@link Dispatcher#offer} does when the queue (and, for priority records, the reserved
 * capacity) is full. Either way the caller is never held longer than the configured block timeout
 * and every record that is not queued is counted in {@link DispatcherStats}.
 *
 * <pre>{@code
 * Dispatcher d = Dispatcher.builder().sink(sink).policy(QueueFullPolicy.DROP).build();
 * }</pre>
 */
public enum QueueFullPolicy {
  /**
   * Wait briefly for space, at most {@link Dispatcher.Builder#blockTimeout}; then drop the record
   * and count it as {@link DispatcherStats#droppedBlockTimeout()}. Never waits when called on the
   * dispatcher's own thread (a sink that records): there it behaves like {@link #DROP}.
   */
  BLOCK,
  /** Drop the record at once and count it as {@link DispatcherStats#droppedQueueFull()}. */
  DROP
}
