package io.github.trtrace.tensorrt.internal.shim;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.tensorrt.internal.shim.ProgressEvent.Type;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

@EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64"})
class ShimProgressMonitorTest {

  @Test
  void phaseTreeEventsArriveInOrderWithParentsAndSteps() {
    try (ShimProgressMonitor m = ShimProgressMonitor.create()) {
      long before = System.nanoTime();
      TensorRtEmulator.phaseStart(m, "Building engine", null, 2);
      TensorRtEmulator.phaseStart(m, "Tactic selection", "Building engine", 3);
      assertThat(TensorRtEmulator.stepComplete(m, "Tactic selection", 0)).isTrue();
      TensorRtEmulator.phaseFinish(m, "Tactic selection");
      TensorRtEmulator.stepComplete(m, "Building engine", 0);
      List<ProgressEvent> events = m.drain();
      assertThat(events).extracting(ProgressEvent::type)
          .containsExactly(Type.PHASE_START, Type.PHASE_START, Type.STEP_COMPLETE, Type.PHASE_FINISH, Type.STEP_COMPLETE);
      assertThat(events.get(0).parentPhase()).isNull();
      assertThat(events.get(0).steps()).isEqualTo(2);
      assertThat(events.get(1).parentPhase()).isEqualTo("Building engine");
      assertThat(events.get(2).phaseName()).isEqualTo("Tactic selection");
      assertThat(events).allSatisfy(e -> assertThat(e.nanos()).isGreaterThanOrEqualTo(before));
      assertThat(m.drain()).isEmpty();
    }
  }

  @Test
  void cancelMakesStepCompleteReturnFalse() {
    try (ShimProgressMonitor m = ShimProgressMonitor.create()) {
      TensorRtEmulator.phaseStart(m, "p", null, 10);
      assertThat(TensorRtEmulator.stepComplete(m, "p", 0)).isTrue();
      m.cancel();
      assertThat(m.isCancelled()).isTrue();
      assertThat(TensorRtEmulator.stepComplete(m, "p", 1)).isFalse();
    }
  }

  @Test
  void eventsBeyondCapacityAreCountedAndDrainingMoreThanABatchWorks() {
    try (ShimProgressMonitor m = ShimProgressMonitor.create(3000)) {
      TensorRtEmulator.phaseStart(m, "p", null, 5000);
      for (int i = 0; i < 3500; i++) {
        TensorRtEmulator.stepComplete(m, "p", i);
      }
      assertThat(m.drain()).hasSize(3000);
      assertThat(m.droppedEvents()).isEqualTo(501);
    }
  }

  @Test
  void interfaceInfoIsTensorRtsProgressMonitorVersion() {
    try (ShimProgressMonitor m = ShimProgressMonitor.create()) {
      assertThat(TensorRtEmulator.interfaceInfo(m)).isEqualTo("IProgressMonitor 1.0");
    }
  }
}
