package io.github.trtrace.tensorrt.build;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.tensorrt.internal.shim.ShimProgressMonitor;
import io.github.trtrace.tensorrt.internal.shim.TensorRtEmulator;
import io.github.trtrace.tensorrt.model.build.BuildReport;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.jspecify.annotations.Nullable;

/**
 * A build sends more progress events than the monitor's buffer holds (the two-layer network's build on the H200
 * filled all 16,384 slots): the events are drained while the build runs, so every phase reaches the report, and
 * what a full buffer still drops is counted, not passed off as the number of events.
 */
@EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64"})
class BuildProgressTest {
  private static final List<String> PHASES = List.of("Building engine", "Tactic selection", "Finalizing");
  private static final int CAPACITY = 64;
  private static final int STEPS = 200;   // 3 phases x (200 steps + start + finish) = 606 events, over nine times the buffer

  /** TensorRT's side: each phase starts, completes its steps, finishes; waits for the drainer every 32 events. */
  private static long build(ShimProgressMonitor m, @Nullable BuildProgress progress) throws InterruptedException {
    long sent = 0;
    for (String phase : PHASES) {
      TensorRtEmulator.phaseStart(m, phase, null, STEPS);
      sent++;
      for (int s = 0; s < STEPS; s++) {
        TensorRtEmulator.stepComplete(m, phase, s);
        if (++sent % 32 == 0 && progress != null) {
          awaitReceived(progress, sent);
        }
      }
      TensorRtEmulator.phaseFinish(m, phase);
      sent++;
    }
    return sent;
  }

  private static void awaitReceived(BuildProgress progress, long sent) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (progress.received() < sent) {
      assertThat(System.nanoTime()).as("the drainer took the events while the build ran").isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  @Test
  void drainedWhileTheBuildRunsEveryPhaseReachesTheReportAndNothingIsDropped() throws Exception {
    try (ShimProgressMonitor m = ShimProgressMonitor.create(CAPACITY)) {
      BuildProgress progress = new BuildProgress(m, null, 1);
      progress.start();
      long sent = build(m, progress);
      progress.finish();
      assertThat(progress.received()).isEqualTo(sent).isGreaterThan(9L * CAPACITY);
      assertThat(progress.dropped()).isZero();
      assertThat(progress.topLevel(System.nanoTime())).extracting(BuildReport.Phase::name).containsExactlyElementsOf(PHASES);
    }
  }

  @Test
  void whatAFullBufferDropsIsCountedAndReported() throws Exception {
    try (ShimProgressMonitor m = ShimProgressMonitor.create(CAPACITY)) {
      BuildProgress progress = new BuildProgress(m, null, 1);   // never started: a drainer that falls behind
      long sent = build(m, null);
      progress.finish();
      assertThat(progress.received()).isEqualTo(CAPACITY);
      assertThat(progress.dropped()).isEqualTo(sent - CAPACITY);
      BuildReport r = BuildReport.builder("m").progressEventsDropped(progress.dropped()).build();
      assertThat(BuildReport.read(r.toJson()).progressEventsDropped()).isEqualTo(sent - CAPACITY);
      assertThat(progress.topLevel(System.nanoTime())).extracting(BuildReport.Phase::name)
          .as("only the phases that started before the buffer filled").containsExactly("Building engine");
    }
  }
}
