package io.github.trtrace.core.internal.batch;

import io.github.trtrace.core.TraceListener;
import org.jspecify.annotations.Nullable;

/** What a launch needs of a member's trace; implemented by the tracer's traces (not by no-op ones). */
public interface BatchMember {
  String requestId();

  /** The member's batching state, made on first use and kept with the trace object. */
  MemberState batchState();

  /**
   * The monitor under which a reused trace (garbage-free mode) restarts a request and resets its batching
   * state: a join checks {@link #batchState()} and takes the state under it, so that the check still holds
   * at the take. Null for a member whose state never serves another request (a trace from {@code start},
   * never reused): its join takes no monitor.
   */
  default @Nullable Object joinLock() {
    return null;
  }

  /** The listeners' handles of the trace (index = listener), null without listeners. */
  TraceListener.@Nullable Handle @Nullable [] listenerHandles();

  /** A failure of a launch it shared: error type, error status and an event, unless the trace ended. */
  void sharedLaunchFailed(long launchId, String errorType);

  /** An event reported during a launch it shared, unless the trace ended. */
  void sharedLaunchEvent(String kind, String severity, String message);
}
