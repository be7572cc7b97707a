package io.github.trtrace.tensorrt.internal.shim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every behaviour for both vtable layouts: the emulator calls reportLayerTime through each generation's IProfiler. */
@EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64"})
class ShimProfilerTest {

  @ParameterizedTest
  @EnumSource(TensorRtAbi.class)
  void drainDeliversEveryLayerTimeInCallOrderWithInternedNames(TensorRtAbi abi) {
    try (ShimProfiler p = ShimProfiler.create(ShimProfiler.DEFAULT_CAPACITY, abi)) {
      assertThat(p.abi()).isEqualTo(abi);
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

  @ParameterizedTest
  @EnumSource(TensorRtAbi.class)
  void timesSumPerLayerAcrossDrainsAndNamesStayKnown(TensorRtAbi abi) {
    try (ShimProfiler p = ShimProfiler.create(ShimProfiler.DEFAULT_CAPACITY, abi)) {
      Map<String, Double> totals = new LinkedHashMap<>();
      TensorRtEmulator.reportLayerTimes(p, new String[] {"a", "b"}, new float[] {0.5f, 0.25f}, 4);
      p.drain((layer, t) -> totals.merge(layer, (double) t, Double::sum));
      TensorRtEmulator.reportLayerTimes(p, new String[] {"b", "c"}, new float[] {1f, 2f}, 1);
      p.drain((layer, t) -> totals.merge(layer, (double) t, Double::sum));
      assertThat(totals).containsExactly(Map.entry("a", 2.0), Map.entry("b", 2.0), Map.entry("c", 2.0));
      assertThat(p.layerNameCount()).isEqualTo(3);
    }
  }

  @ParameterizedTest
  @EnumSource(TensorRtAbi.class)
  void samplesBeyondCapacityAreCountedAsDroppedNotKept(TensorRtAbi abi) {
    try (ShimProfiler p = ShimProfiler.create(10, abi)) {
      TensorRtEmulator.reportLayerTimes(p, new String[] {"x"}, new float[] {1f}, 25);
      assertThat(p.drain((l, t) -> {})).isEqualTo(10);
      assertThat(p.droppedSamples()).isEqualTo(15);
      TensorRtEmulator.reportLayerTimes(p, new String[] {"x"}, new float[] {1f}, 3);
      assertThat(p.drain((l, t) -> {})).isEqualTo(3);
      assertThat(p.droppedSamples()).isEqualTo(15);
    }
  }

  @ParameterizedTest
  @EnumSource(TensorRtAbi.class)
  void drainEmptiesTheBufferEvenWhenItHoldsMoreThanOneBatch(TensorRtAbi abi) {
    try (ShimProfiler p = ShimProfiler.create(ShimProfiler.DEFAULT_CAPACITY, abi)) {
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
  void theTensorRt11ProfilerAnswersItsVersionedInterfaceSlots() {
    try (ShimProfiler p = ShimProfiler.create(16, TensorRtAbi.V11)) {
      assertThat(TensorRtEmulator.interfaceInfo(p)).isEqualTo("IProfiler 1.0");
      TensorRtEmulator.reportLayerTimes(p, new String[] {"qkv_proj_myl0_0"}, new float[] {0.041856f}, 1);
      List<String> seen = new ArrayList<>();
      p.drain((layer, t) -> seen.add(layer + "=" + t));
      assertThat(seen).containsExactly("qkv_proj_myl0_0=0.041856");
    }
    try (ShimProfiler p = ShimProfiler.create(16, TensorRtAbi.V10)) {
      assertThatThrownBy(() -> TensorRtEmulator.interfaceInfo(p)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void theLayoutFollowsTheLoadedVersionAndUnknownMajorsAreRefused() {
    assertThat(TensorRtAbi.ofVersion(100600)).isEqualTo(TensorRtAbi.V10);
    assertThat(TensorRtAbi.ofVersion(101501)).isEqualTo(TensorRtAbi.V10);
    assertThat(TensorRtAbi.ofVersion(110201)).isEqualTo(TensorRtAbi.V11);
    assertThatThrownBy(() -> TensorRtAbi.ofVersion(120000)).isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("TensorRT 12.0.0").hasMessageContaining("refusing to guess");
    assertThatThrownBy(() -> TensorRtAbi.ofVersion(80601)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void useAfterCloseIsAClearError() {
    ShimProfiler p = ShimProfiler.create(16, TensorRtAbi.V10);
    p.close();
    p.close();
    assertThatThrownBy(() -> p.drain((l, t) -> {})).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
  }

  @Test
  void rejectsANonPositiveCapacity() {
    assertThatThrownBy(() -> ShimProfiler.create(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ShimProfiler.create(0, TensorRtAbi.V11)).isInstanceOf(IllegalArgumentException.class);
  }
}
