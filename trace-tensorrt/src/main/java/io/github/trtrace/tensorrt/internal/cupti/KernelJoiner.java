package io.github.trtrace.tensorrt.internal.cupti;

import io.github.trtrace.core.SharedLaunch;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Joins CUPTI's activity rows to the launches whose enqueue issued them and writes one {@code kernels} line per
 * launch, free of CUPTI types (tested in CI). Used by one thread, the recorder's, in rounds: the completions
 * and rows that arrived, then {@link #round} after each flush of CUPTI's buffers.
 *
 * <p>The join: an {@link ActivityRow#EXTERNAL} row binds CUPTI's correlation id of an API call to our launch
 * id (pushed around the enqueue); a kernel, memcpy or memset carries the correlation id of the call that
 * issued it, and a runtime or driver API row its own. CUPTI delivers them in buffers in no promised order, so a
 * row whose correlation is not known yet waits one round; a GPU row still unknown then came from work no recorded
 * launch issued ({@code uncorrelated}).
 *
 * <p>When a launch is complete: CUPTI returns a buffer only once every record in it is complete, and a launch's
 * records are not all complete when its stream has synchronised, so no fixed delay is right. A launch is written
 * at the first round where (1) its completion is known, (2) its closing marker (the runtime call the recorder makes
 * at the end of the enqueue, {@link ApiCalls#marker}) has come and is its latest API call, so its API rows are all
 * there, and (3) every work group of those rows (a work-issuing call with the calls nested in it, {@link
 * LaunchCalls}) has at least one GPU row: then its line says {@code "complete": true}. A launch still not complete
 * {@code maxWaitNanos} after its completion is written with what it has, {@code "complete": false} and the number of
 * work groups without a record ({@code unmatched_calls}), and counted ({@code launchesIncomplete}). GPU rows of a
 * launch after its line count as {@code late}. Everything is bounded: rows per launch ({@code truncated}), API rows
 * per launch (more: the launch cannot be judged and waits out its maximum), launches awaiting their rows,
 * correlation ids remembered, rows waiting for their correlation.
 *
 * <pre>{@code
 * KernelJoiner j = new KernelJoiner(512, 4096, 2_000_000_000L, apiCalls, names::at, Demangler::demangle);
 * j.completed(42, launch.activityLog(), System.nanoTime());
 * j.rows(rowsFromCupti, System.nanoTime());
 * j.round(System.nanoTime(), false);       // writes launch 42's kernels line once all its records came
 * }</pre>
 */
public final class KernelJoiner {
  /** Kernel names are cut to this many characters (after demangling), the cut marked with an ellipsis. */
  public static final int MAX_NAME = 512;
  /** A launch whose rows came but whose completion never did is forgotten after this long. */
  static final long ABANDON_NANOS = 10_000_000_000L;
  /** The recorder's wait for a launch's records after its completion: 2 s. */
  public static final long MAX_WAIT_NANOS = 2_000_000_000L;

  private final int maxPerLaunch;
  private final int maxLaunches;
  private final long maxWaitNanos;
  private final ApiCalls calls;
  private final LongFunction<@Nullable String> nameAt;
  private final UnaryOperator<String> demangle;
  private final Map<Integer, Long> externals;
  private final Map<Long, Acc> launches = new HashMap<>();
  private final Map<Long, Boolean> written;
  private List<ActivityRow> orphans = new ArrayList<>();
  private List<ActivityRow> retried = new ArrayList<>();
  private final int maxOrphans;
  private final Map<Long, String> names = new HashMap<>();

  private long launchesWritten;
  private long activities;
  private long truncated;
  private long late;
  private long launchesDropped;
  private long uncorrelated;
  private long incomplete;
  private long launchesIncomplete;

  /** One launch's rows so far, its API calls, and where they go once it completed. */
  private static final class Acc {
    final List<ActivityRow> rows = new ArrayList<>();
    final LaunchCalls calls;
    int notListed;
    SharedLaunch.@Nullable ActivityLog log;
    long completedAt;
    final long createdAt;

    Acc(long createdAt, LaunchCalls calls) {
      this.createdAt = createdAt;
      this.calls = calls;
    }
  }

  /**
   * @param maxPerLaunch activities listed per launch at most (the rest counted); a launch's API rows are bounded at
   *     twice this
   * @param maxLaunches launches awaiting their rows at most (more are not tracked, counted)
   * @param maxWaitNanos how long after its completion a launch waits for its records before it is written
   *     incomplete ({@link #MAX_WAIT_NANOS} in the recorder)
   * @param calls which API calls issue GPU work, and the recorder's marker
   * @param nameAt a kernel's raw (mangled) name at the address CUPTI gave; null when unreadable
   * @param demangle a mangled C++ name to its readable form (identity when it cannot)
   */
  public KernelJoiner(int maxPerLaunch, int maxLaunches, long maxWaitNanos, ApiCalls calls,
      LongFunction<@Nullable String> nameAt, UnaryOperator<String> demangle) {
    if (maxPerLaunch < 1 || maxLaunches < 1 || maxWaitNanos < 0) {
      throw new IllegalArgumentException("maxPerLaunch, maxLaunches >= 1 and maxWaitNanos >= 0: "
          + maxPerLaunch + ", " + maxLaunches + ", " + maxWaitNanos);
    }
    this.maxPerLaunch = maxPerLaunch;
    this.maxLaunches = maxLaunches;
    this.maxWaitNanos = maxWaitNanos;
    this.calls = calls;
    this.nameAt = nameAt;
    this.demangle = demangle;
    this.maxOrphans = 64 * 1024;
    int maxCorrelations = 256 * 1024;
    this.externals = new LinkedHashMap<>(1024, 0.75f, false) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Integer, Long> eldest) {
        return size() > maxCorrelations;
      }
    };
    this.written = new LinkedHashMap<>(1024, 0.75f, false) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
        return size() > 4 * maxLaunches;
      }
    };
  }

  /** Launch {@code launchId} finished on the device (at {@code nowNanos}); its line goes to {@code log}. */
  public void completed(long launchId, SharedLaunch.ActivityLog log, long nowNanos) {
    Acc a = acc(launchId, nowNanos);
    if (a == null) {
      return;
    }
    a.log = log;
    a.completedAt = nowNanos;
  }

  /** Rows delivered by CUPTI (any order; external correlations are applied first). */
  public void rows(List<ActivityRow> batch, long nowNanos) {
    for (ActivityRow r : batch) {
      if (r.kind() == ActivityRow.EXTERNAL) {
        externals.put(r.correlationId(), r.externalId());
      }
    }
    for (ActivityRow r : batch) {
      if (r.kind() != ActivityRow.EXTERNAL) {
        attach(r, nowNanos, true);
      }
    }
  }

  private void attach(ActivityRow r, long nowNanos, boolean mayWait) {
    Long id = externals.get(r.correlationId());
    if (id == null) {
      if (mayWait && orphans.size() < maxOrphans) {
        orphans.add(r);
      } else if (r.isWork()) {
        uncorrelated++;
      } // an API call of no recorded launch: nothing to write, nothing owed
      return;
    }
    if (written.containsKey(id)) {
      if (r.isWork()) {
        late++;
      }
      return;
    }
    Acc a = acc(id, nowNanos);
    if (a == null) {
      return;
    }
    if (r.isApi()) {
      a.calls.call(r);
      return;
    }
    a.calls.work(r.correlationId());
    if (r.startNs() <= 0 || r.endNs() < r.startNs()) {
      incomplete++;
    } else if (a.rows.size() < maxPerLaunch) {
      a.rows.add(r);
    } else {
      a.notListed++;
    }
  }

  private @Nullable Acc acc(long launchId, long nowNanos) {
    Acc a = launches.get(launchId);
    if (a == null) {
      if (launches.size() >= maxLaunches) {
        launchesDropped++;
        written.put(launchId, Boolean.TRUE); // its other rows count as late, not as new launches
        return null;
      }
      a = new Acc(nowNanos, new LaunchCalls(calls, 2 * maxPerLaunch));
      launches.put(launchId, a);
    }
    return a;
  }

  /**
   * After a flush of CUPTI's buffers and the rows it delivered: rows waiting for their correlation since the
   * last round get their last chance; completed launches that are complete by the rule above, or whose wait ran
   * out, are written (all completed ones when {@code forced}, after a forced flush: each says whether it is
   * complete). Returns the lines written.
   */
  public int round(long nowNanos, boolean forced) {
    List<ActivityRow> lastChance = retried;
    retried = new ArrayList<>();
    for (ActivityRow r : lastChance) {
      attach(r, nowNanos, false);
    }
    List<ActivityRow> fresh = orphans;
    orphans = new ArrayList<>();
    for (ActivityRow r : fresh) {
      if (forced || externals.containsKey(r.correlationId())) {
        attach(r, nowNanos, false);
      } else {
        retried.add(r); // one more round
      }
    }
    int lines = 0;
    Iterator<Map.Entry<Long, Acc>> it = launches.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Long, Acc> e = it.next();
      Acc a = e.getValue();
      if (a.log == null) {
        if (nowNanos - a.createdAt > ABANDON_NANOS) {
          launchesDropped++;
          it.remove();
        }
        continue;
      }
      boolean complete = a.calls.complete();
      if (complete || forced || nowNanos - a.completedAt >= maxWaitNanos) {
        it.remove();
        written.put(e.getKey(), Boolean.TRUE);
        if (write(e.getKey(), a, complete)) {
          lines++;
        }
      }
    }
    return lines;
  }

  private boolean write(long launchId, Acc a, boolean complete) {
    a.rows.sort(Comparator.comparingLong(ActivityRow::startNs));
    List<SharedLaunch.GpuActivity> list = new ArrayList<>(a.rows.size());
    for (ActivityRow r : a.rows) {
      list.add(activity(r));
    }
    SharedLaunch.HostTiming host = null;
    long first = a.calls.firstCallEnd();
    if (complete && a.notListed == 0 && first >= 0 && !a.rows.isEmpty()) {
      host = hostTiming(a.rows, a.calls, first);
    }
    SharedLaunch.ActivityLog log = a.log;
    if (log == null
        || !log.write(launchId, list, a.notListed, complete, complete ? 0 : a.calls.unmatched(), host)) {
      launchesDropped++;
      return false;
    }
    if (!complete) {
      launchesIncomplete++;
    }
    launchesWritten++;
    activities += list.size();
    truncated += a.notListed;
    return true;
  }

  /**
   * The host's part of the launch's window (see {@link SharedLaunch.HostTiming}): the lead-in from the first call's
   * end, that call's length, the lead-out from the last activity's end to the last call's start, the part of the last
   * call after both, and the host wait. {@code rowsByStart}: the launch's activities, at least one, in start order.
   *
   * <p>The host wait is the time the device had nothing to run because the host had not yet issued the next
   * activity: for each activity, the part of the gap since the previous one ended (the first: since {@code
   * firstCallEnd}, the launch's first API call) that lies before the call that issued it returned. The rest of a gap
   * is the device's own (launch latency, dependencies). Activities whose call is unknown add nothing.
   */
  static SharedLaunch.HostTiming hostTiming(List<ActivityRow> rowsByStart, LaunchCalls calls, long firstCallEnd) {
    long wait = 0;
    long prevEnd = firstCallEnd;
    long lastActivityEnd = 0;
    for (ActivityRow r : rowsByStart) {
      long issued = calls.issuedAt(r.correlationId());
      if (issued >= 0) {
        wait += Math.max(0, Math.min(r.startNs(), issued) - prevEnd);
      }
      prevEnd = Math.max(prevEnd, r.endNs());
      lastActivityEnd = Math.max(lastActivityEnd, r.endNs());
    }
    long lastStart = calls.lastCallStart();
    long lastEnd = calls.lastCallEnd();
    long leadOut = lastStart < 0 ? 0 : Math.max(0, lastStart - lastActivityEnd);
    long endCall = lastEnd < 0 ? 0 : Math.max(0, lastEnd - Math.max(lastStart, lastActivityEnd));
    return new SharedLaunch.HostTiming(Math.max(0, rowsByStart.get(0).startNs() - firstCallEnd),
        Math.max(0, calls.firstCallDuration()), leadOut, endCall, wait);
  }

  private SharedLaunch.GpuActivity activity(ActivityRow r) {
    return switch (r.kind()) {
      case ActivityRow.KERNEL -> new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.KERNEL,
          kernelName(r.nameAddress()), r.startNs(), r.endNs(), r.gridX(), r.gridY(), r.gridZ(), r.blockX(),
          r.blockY(), r.blockZ(), 0);
      case ActivityRow.MEMCPY -> new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.MEMCPY,
          ActivityRow.copyKindName(r.copyKind()), r.startNs(), r.endNs(), 0, 0, 0, 0, 0, 0, r.bytes());
      default -> new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.MEMSET, "memset", r.startNs(), r.endNs(),
          0, 0, 0, 0, 0, 0, r.bytes());
    };
  }

  /** Demangled and bounded once per kernel (CUPTI shares one name per kernel), cached. */
  private String kernelName(long address) {
    String known = names.get(address);
    if (known != null) {
      return known;
    }
    String raw = address == 0 ? null : nameAt.apply(address);
    String name = bound(raw == null ? "unknown" : readable(raw, demangle));
    if (names.size() < 16 * 1024) {
      names.put(address, name);
    }
    return name;
  }

  /** {@code raw} demangled when it is a mangled C++ name ({@code _Z...}) and the demangler can. */
  static String readable(String raw, UnaryOperator<String> demangle) {
    if (!raw.startsWith("_Z")) {
      return raw;
    }
    String d = demangle.apply(raw);
    return d == null || d.isEmpty() ? raw : d;
  }

  /** At most {@link #MAX_NAME} characters, the cut marked with an ellipsis. */
  static String bound(String name) {
    return name.length() <= MAX_NAME ? name : name.substring(0, MAX_NAME - 1) + "\u2026";
  }

  /** Launches awaiting their rows or their completion. */
  public int pending() {
    return launches.size();
  }

  /** The counters (the recorder adds its own: queue drops, CUPTI drops, failed calls; toggles are zero here). */
  public RecorderStats stats(long queueDropped, long cuptiDropped, long failedCalls) {
    return new RecorderStats(launchesWritten, activities, truncated, queueDropped, cuptiDropped, late,
        launchesDropped, uncorrelated, incomplete, failedCalls, launchesIncomplete, 0, 0, 0);
  }
}
