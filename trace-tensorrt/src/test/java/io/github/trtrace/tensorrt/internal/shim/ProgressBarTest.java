package io.github.trtrace.tensorrt.internal.shim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.tensorrt.internal.shim.ProgressEvent.Type;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class ProgressBarTest {

  private static ProgressEvent start(String phase, @Nullable String parent, int n) {
    return new ProgressEvent(Type.PHASE_START, phase, parent, n, 0);
  }

  private static ProgressEvent step(String phase, int step) {
    return new ProgressEvent(Type.STEP_COMPLETE, phase, null, step, 0);
  }

  private static ProgressEvent finish(String phase) {
    return new ProgressEvent(Type.PHASE_FINISH, phase, null, 0, 0);
  }

  @Test
  void beforeAnyPhaseItSaysItIsWaiting() {
    assertThat(ProgressBar.create(10).render()).isEqualTo("[..........]   0% waiting for TensorRT");
  }

  @Test
  void nestedPhasesContributeTheirFractionToTheParent() {
    ProgressBar bar = ProgressBar.create(20);
    bar.accept(start("Building engine", null, 2));
    bar.accept(step("Building engine", 0));
    bar.accept(start("Tactic selection", "Building engine", 4));
    bar.accept(step("Tactic selection", 0));
    bar.accept(step("Tactic selection", 1));
    // (1 + 2/4) / 2 = 75%
    assertThat(bar.fraction()).isEqualTo(0.75);
    assertThat(bar.render()).isEqualTo("[###############.....]  75% Building engine 1/2 > Tactic selection 2/4");
  }

  @Test
  void finishingTheChildDropsItFromTheLineAndFinishingTheRootShowsDone() {
    ProgressBar bar = ProgressBar.create(4);
    bar.accept(start("Building engine", null, 1));
    bar.accept(start("Tactic selection", "Building engine", 2));
    bar.accept(finish("Tactic selection"));
    assertThat(bar.render()).isEqualTo("[....]   0% Building engine 0/1");
    bar.accept(step("Building engine", 0));
    bar.accept(finish("Building engine"));
    assertThat(bar.render()).isEqualTo("[####] 100% Building engine done");
  }

  @Test
  void eventsForUnknownPhasesAreIgnored() {
    ProgressBar bar = ProgressBar.create(4);
    bar.accept(step("nothing", 3));
    bar.accept(finish("nothing"));
    assertThat(bar.fraction()).isZero();
  }

  @Test
  void rejectsAnUnreasonableWidth() {
    assertThatThrownBy(() -> ProgressBar.create(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Property
  void fractionStaysBetweenZeroAndOneAndTheBarKeepsItsWidth(
      @ForAll @IntRange(min = 0, max = 50) int nbSteps, @ForAll @IntRange(min = -5, max = 80) int step,
      @ForAll @IntRange(min = 1, max = 60) int width) {
    ProgressBar bar = ProgressBar.create(width);
    bar.accept(start("p", null, nbSteps));
    bar.accept(start("c", "p", nbSteps));
    bar.accept(step("c", step));
    bar.accept(step("p", step));
    assertThat(bar.fraction()).isBetween(0.0, 1.0);
    assertThat(bar.render().indexOf(']')).isEqualTo(width + 1);
  }
}
