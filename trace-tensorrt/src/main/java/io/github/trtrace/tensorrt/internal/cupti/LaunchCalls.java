package io.github.trtrace.tensorrt.internal.cupti;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one launch's enqueue called, and whether every GPU record those calls owe has come: the API-call
 * bookkeeping of {@link KernelJoiner}, one per launch awaiting its records.
 *
 * <p>A work group is a top-level API call of the launch with the calls nested in its time span on the same thread
 * (a runtime call runs its driver calls inside it, and CUPTI may report both: the GPU record carries the
 * correlation id of one of them). A group that contains a work-issuing call ({@link ApiCalls#work}) is satisfied
 * by at least one kernel, memcpy or memset row with the correlation id of any call of the group; a graph launch
 * may issue many, and its first one satisfies it. The recorder's marker ({@link ApiCalls#marker}), the launch's
 * last call, says the launch's API rows are all there once it is the latest-ending one that came.
 *
 * <p>Bounded: at most {@code maxCalls} API rows and as many work correlations; past that the launch cannot be
 * judged ({@link #overflowed}) and is written when its wait runs out, marked incomplete.
 */
final class LaunchCalls {
  private static final Comparator<ActivityRow> ORDER = Comparator.comparingLong(ActivityRow::threadId)
      .thenComparingLong(ActivityRow::startNs).thenComparing(Comparator.comparingLong(ActivityRow::endNs).reversed());

  private final ApiCalls calls;
  private final int maxCalls;
  private final List<ActivityRow> api = new ArrayList<>();
  private final Set<Integer> workCorrelations = new HashSet<>();
  /** Each API call's end by its correlation id: when the host had issued the work that carries that id. */
  private final Map<Integer, Long> ends = new HashMap<>();
  private long firstStart = Long.MAX_VALUE;
  private long firstEnd = -1;
  /** The latest start and the latest end among the calls that are not the marker: the launch's last call. */
  private long lastStart = -1;
  private long lastEnd = -1;
  private boolean overflowed;
  private boolean changed;
  private int unmatched;
  private boolean closed;

  LaunchCalls(ApiCalls calls, int maxCalls) {
    this.calls = calls;
    this.maxCalls = maxCalls;
  }

  /** An API call made in the launch's scope. */
  void call(ActivityRow r) {
    if (api.size() >= maxCalls) {
      overflowed = true;
      return;
    }
    api.add(r);
    ends.merge(r.correlationId(), r.endNs(), Math::max);
    if (r.startNs() < firstStart) {
      firstStart = r.startNs();
      firstEnd = r.endNs();
    }
    if (!calls.marker(r.kind(), r.cbid())) {
      lastStart = Math.max(lastStart, r.startNs());
      lastEnd = Math.max(lastEnd, r.endNs());
    }
    changed = true;
  }

  /**
   * The end of the launch's earliest API call (an engine that times its launches: recording its start event), on
   * CUPTI's clock; -1 when none came.
   */
  long firstCallEnd() {
    return firstEnd;
  }

  /** How long the launch's earliest API call took (the start event's record call); -1 when none came. */
  long firstCallDuration() {
    return firstEnd < 0 ? -1 : firstEnd - firstStart;
  }

  /**
   * When the launch's last call before the marker began (an engine that times its launches: recording its end event;
   * a call nested in it, such as the driver call a runtime call makes, counts: the work is submitted inside it); -1
   * when none came.
   */
  long lastCallStart() {
    return lastStart;
  }

  /** When the launch's last call before the marker returned; -1 when none came. */
  long lastCallEnd() {
    return lastEnd;
  }

  /** When the API call with this correlation id (the one that issued a GPU record) returned; -1 when unknown. */
  long issuedAt(int correlationId) {
    Long end = ends.get(correlationId);
    return end == null ? -1 : end;
  }

  /** A kernel, memcpy or memset of the launch arrived (listed or not, with valid timestamps or not). */
  void work(int correlationId) {
    if (workCorrelations.size() >= maxCalls && !workCorrelations.contains(correlationId)) {
      overflowed = true;
      return;
    }
    if (workCorrelations.add(correlationId)) {
      changed = true;
    }
  }

  /** More API rows or work correlations came than the bound: the launch cannot be judged complete. */
  boolean overflowed() {
    return overflowed;
  }

  /** Whether the marker came and is the latest-ending call of the launch so far. */
  boolean closed() {
    judge();
    return closed;
  }

  /** Work groups without a GPU record so far. */
  int unmatched() {
    judge();
    return unmatched;
  }

  /** All there: the marker closed the calls, every work group has its record, nothing overflowed. */
  boolean complete() {
    return !overflowed && closed() && unmatched() == 0;
  }

  private void judge() {
    if (!changed) {
      return;
    }
    changed = false;
    api.sort(ORDER);
    unmatched = 0;
    long lastEnd = Long.MIN_VALUE;
    long markerEnd = Long.MIN_VALUE;
    int i = 0;
    while (i < api.size()) {
      ActivityRow top = api.get(i);
      boolean needsWork = false;
      boolean satisfied = false;
      int j = i;
      for (; j < api.size(); j++) {
        ActivityRow r = api.get(j);
        if (j > i && (r.threadId() != top.threadId() || r.startNs() < top.startNs() || r.endNs() > top.endNs())) {
          break; // not nested in top: the next group
        }
        needsWork |= calls.work(r.kind(), r.cbid());
        satisfied |= workCorrelations.contains(r.correlationId());
        lastEnd = Math.max(lastEnd, r.endNs());
        if (calls.marker(r.kind(), r.cbid())) {
          markerEnd = Math.max(markerEnd, r.endNs());
        }
      }
      if (needsWork && !satisfied) {
        unmatched++;
      }
      i = j;
    }
    closed = markerEnd != Long.MIN_VALUE && markerEnd >= lastEnd;
  }
}
