package io.github.trtrace.examples.gpucheck;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.tensorrt.engine.TracedEngine;

/**
 * One decode step of B members sharing a launch, as the GPU check's overhead blocks ({@code BatchedChecks}) and the
 * launch profile ({@code LaunchProfile}) run it: every 32 steps the members are closed and new ones started, inside the
 * timed part of the step or before it ({@link #timed()}).
 */
final class SharedStep {
  private final InferenceTracer tracer;
  private final TracedEngine traced;
  private final BatchRows rows;
  private final InferenceTrace[] members;
  private final boolean closeTimed;
  private final String idPrefix;
  private int steps;
  private int generation;
  boolean closedNow;

  SharedStep(InferenceTracer tracer, TracedEngine traced, BatchRows rows, int b, boolean closeTimed, String idPrefix) {
    this.tracer = tracer;
    this.traced = traced;
    this.rows = rows;
    this.members = new InferenceTrace[b];
    this.closeTimed = closeTimed;
    this.idPrefix = idPrefix;
  }

  /** Closes the members still open (at the end of a mode). */
  void closeMembers() {
    for (InferenceTrace t : members) {
      if (t != null) {
        t.close();
      }
    }
  }

  private void maintain() {
    closedNow = steps % 32 == 0;
    if (closedNow) {
      closeMembers();
      for (int i = 0; i < members.length; i++) {
        members[i] = tracer.start(BatchedChecks.MODEL, idPrefix + generation + "-" + i);
      }
      generation++;
    }
    steps++;
  }

  /** One step, the members' close and start (every 32nd step) included; timed, if at all, by the caller. */
  void run() throws Exception {
    maintain();
    launch();
  }

  /** One step; its time in ns, the members' close and start inside or before the timed part. */
  long timed() throws Exception {
    if (!closeTimed) {
      maintain();
    }
    long t0 = System.nanoTime();
    if (closeTimed) {
      maintain();
    }
    launch();
    return System.nanoTime() - t0;
  }

  private void launch() throws Exception {
    try (SharedLaunch step = tracer.launch(traced.fingerprint())) {
      for (InferenceTrace t : members) {
        step.decode(t);
      }
      traced.launch(step, (ctx, s) -> rows.bind(ctx));
    }
    for (InferenceTrace t : members) {
      t.token();
    }
  }
}
