package io.github.trtrace.tensorrt.shim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

@EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64"})
class ShimProfilerTest {

  @Test
  void drainDeliversEveryLayerTimeInCallOrderWithInternedNames() {
    try (ShimProfiler p = ShimProfiler.create()) {
      TensorRtEmulator.reportLayerTimes(p, new String[] {"conv1", "relu1", "conv1"}, new float[] {1f, 2f, 3f}, 2);
      List<String> seen = new ArrayList<>();
      List<Float> ms = new ArrayList<>();
      int n = p.drain((layer, t) -> {
        seen.add(layer);
        ms.add(t);
      });
      assertThat(n).isEqualTo(6);
      assertThat(seen).containsExactly("conv1", "relu1", "conv1", "conv1", "relu1", "conv1");
      assertThat(ms).containsExactly(1f, 2f, 3f, 1f, 2f, 3f);
      assertThat(p.layerNameCount()).isEqualTo(2);
    }
  }

  @Test
  void timesSumPerLayerAcrossDrainsAndNamesStayKnown() {
    try (ShimProfiler p = ShimProfiler.create()) {
      Map<String, Double> totals = new LinkedHashMap<>();
      TensorRtEmulator.reportLayerTimes(p, new String[] {"a", "b"}, new float[] {0.5f, 0.25f}, 4);
      p.drain((layer, t) -> totals.merge(layer, (double) t, Double::sum));
      TensorRtEmulator.reportLayerTimes(p, new String[] {"b", "c"}, new float[] {1f, 2f}, 1);
      p.drain((layer, t) -> totals.merge(layer, (double) t, Double::sum));
      assertThat(totals).containsExactly(Map.entry("a", 2.0), Map.entry("b", 2.0), Map.entry("c", 2.0));
      assertThat(p.layerNameCount()).isEqualTo(3);
    }
  }

  @Test
  void samplesBeyondCapacityAreCountedAsDroppedNotKept() {
    try (ShimProfiler p = ShimProfiler.create(10)) {
      TensorRtEmulator.reportLayerTimes(p, new String[] {"x"}, new float[] {1f}, 25);
      assertThat(p.drain((l, t) -> {})).isEqualTo(10);
      assertThat(p.droppedSamples()).isEqualTo(15);
      TensorRtEmulator.reportLayerTimes(p, new String[] {"x"}, new float[] {1f}, 3);
      assertThat(p.drain((l, t) -> {})).isEqualTo(3);
      assertThat(p.droppedSamples()).isEqualTo(15);
    }
  }

  @Test
  void drainEmptiesTheBufferEvenWhenItHoldsMoreThanOneBatch() {
    try (ShimProfiler p = ShimProfiler.create()) {
      String[] names = new String[200];
      float[] ms = new float[200];
      for (int i = 0; i < names.length; i++) {
        names[i] = "layer_" + i;
        ms[i] = i;
      }
      TensorRtEmulator.reportLayerTimes(p, names, ms, 100);
      assertThat(p.drain((l, t) -> {})).isEqualTo(20_000);
      assertThat(p.drain((l, t) -> {})).isZero();
      assertThat(p.layerNameCount()).isEqualTo(200);
    }
  }

  @Test
  void useAfterCloseIsAClearError() {
    ShimProfiler p = ShimProfiler.create();
    p.close();
    p.close();
    assertThatThrownBy(() -> p.drain((l, t) -> {})).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
  }

  @Test
  void rejectsANonPositiveCapacity() {
    assertThatThrownBy(() -> ShimProfiler.create(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
