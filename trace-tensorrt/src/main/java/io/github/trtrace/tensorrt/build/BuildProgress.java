package io.github.trtrace.tensorrt.build;

import io.github.trtrace.tensorrt.internal.shim.ProgressBar;
import io.github.trtrace.tensorrt.internal.shim.ProgressEvent;
import io.github.trtrace.tensorrt.internal.shim.ShimProgressMonitor;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The progress monitor's events during one build: drained on a daemon thread every {@code intervalMillis} while the
 * build runs, so the monitor's buffer ({@link ShimProgressMonitor#DEFAULT_CAPACITY} events) never has to hold a
 * whole build (a build of a two-layer network sent more than 16,384 on the H200); turned into the report's
 * top-level phases as they arrive (the step events are not kept); optionally drawn as a progress bar. What the
 * buffer still had to drop is counted ({@link #dropped()}) and goes into the report.
 */
final class BuildProgress {
  private final ShimProgressMonitor monitor;
  private final @Nullable PrintStream out;
  private final @Nullable ProgressBar bar;
  private final long intervalMillis;
  private final Map<String, Long> started = new HashMap<>();
  private final List<String> order = new ArrayList<>();
  private final Map<String, Long> finished = new HashMap<>();
  private long received;
  private @Nullable Thread drainer;
  private volatile boolean done;

  BuildProgress(ShimProgressMonitor monitor, @Nullable PrintStream out, long intervalMillis) {
    this.monitor = monitor;
    this.out = out;
    this.bar = out == null ? null : ProgressBar.create(40);
    this.intervalMillis = intervalMillis;
  }

  /** Starts draining; call before the build starts. */
  void start() {
    Thread t = new Thread(this::run, "trtrace-build-progress");
    t.setDaemon(true);
    drainer = t;
    t.start();
  }

  private void run() {
    while (!done) {
      drainOnce();
      try {
        Thread.sleep(intervalMillis);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Stops the thread and takes what is left; call after the build returned. */
  void finish() {
    done = true;
    Thread t = drainer;
    if (t != null) {
      t.interrupt();
      try {
        t.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    drainOnce();
    if (out != null) {
      out.println();
    }
  }

  /** Moves the monitor's buffered events into the phases (and the bar). */
  synchronized void drainOnce() {
    List<ProgressEvent> events = monitor.drain();
    received += events.size();
    for (ProgressEvent e : events) {
      accept(e);
    }
    if (bar != null && out != null && !events.isEmpty()) {
      bar.acceptAll(events);
      out.print("\r" + bar.render());
      out.flush();
    }
  }

  private void accept(ProgressEvent e) {
    if (e.parentPhase() != null) {
      return;
    }
    if (e.type() == ProgressEvent.Type.PHASE_START && !started.containsKey(e.phaseName())) {
      started.put(e.phaseName(), e.nanos());
      order.add(e.phaseName());
    } else if (e.type() == ProgressEvent.Type.PHASE_FINISH && started.containsKey(e.phaseName())) {
      finished.putIfAbsent(e.phaseName(), e.nanos());
    }
  }

  /** Events taken from the monitor so far. */
  synchronized long received() {
    return received;
  }

  /** Events the monitor's full buffer dropped, up to the last drain. */
  long dropped() {
    return monitor.droppedEvents();
  }

  /**
   * Top-level phases (no parent) in the order they started, each with the time from its start to its finish; a
   * phase that never finished (failed or cancelled build) runs to {@code endNanos}.
   */
  synchronized List<BuildReport.Phase> topLevel(long endNanos) {
    List<BuildReport.Phase> phases = new ArrayList<>(order.size());
    for (String name : order) {
      long end = finished.getOrDefault(name, endNanos);
      phases.add(new BuildReport.Phase(name, Math.max(0, end - started.get(name)) / 1e6));
    }
    return phases;
  }
}
