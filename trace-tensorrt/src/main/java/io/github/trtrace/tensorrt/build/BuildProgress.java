package io.github.trtrace.tensorrt.build;

import io.github.trtrace.tensorrt.model.build.BuildReport;
import io.github.trtrace.tensorrt.internal.shim.ProgressEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Turns the progress monitor's events into the report's top-level phases with their durations. */
final class BuildPhases {
  private BuildPhases() {}

  /**
   * Top-level phases (no parent) in the order they started, each with the time from its start to
   * its finish; a phase that never finished (failed or cancelled build) runs to {@code endNanos}.
   */
  static List<BuildReport.Phase> topLevel(List<ProgressEvent> events, long endNanos) {
    Map<String, Long> started = new HashMap<>();
    List<String> order = new ArrayList<>();
    Map<String, Long> finished = new HashMap<>();
    for (ProgressEvent e : events) {
      if (e.parentPhase() != null) {
        continue;
      }
      if (e.type() == ProgressEvent.Type.PHASE_START && !started.containsKey(e.phaseName())) {
        started.put(e.phaseName(), e.nanos());
        order.add(e.phaseName());
      } else if (e.type() == ProgressEvent.Type.PHASE_FINISH && started.containsKey(e.phaseName())) {
        finished.putIfAbsent(e.phaseName(), e.nanos());
      }
    }
    List<BuildReport.Phase> out = new ArrayList<>(order.size());
    for (String name : order) {
      long end = finished.getOrDefault(name, endNanos);
      out.add(new BuildReport.Phase(name, Math.max(0, end - started.get(name)) / 1e6));
    }
    return out;
  }
}
