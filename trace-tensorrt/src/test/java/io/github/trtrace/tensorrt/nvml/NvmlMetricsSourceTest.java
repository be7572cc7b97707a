package io.github.trtrace.tensorrt.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class NvmlMetricsSourceTest {

  private static boolean nvmlPresent() {
    return Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"))
        || Files.exists(Path.of("/usr/local/nvidia/lib64/libnvidia-ml.so.1"));
  }

  @Test
  void openOrNoopDegradesToTheNoopSourceWhenNvmlIsAbsent() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeFalse(nvmlPresent(), "NVML is installed here");
    GpuMetricsSource source = NvmlMetricsSource.openOrNoop(0);
    assertThat(source).isNotInstanceOf(NvmlMetricsSource.class);
    assertThat(source.read()).isEqualTo(GpuMetricsSource.Reading.UNKNOWN);
    // a second attempt (class initialisation already failed once) degrades the same way
    assertThat(NvmlMetricsSource.openOrNoop(0).read()).isEqualTo(GpuMetricsSource.Reading.UNKNOWN);
  }

  @Test
  void openReportsTheFailureAsAnExceptionNotACrash() {
    org.junit.jupiter.api.Assumptions.assumeFalse(nvmlPresent(), "NVML is installed here");
    assertThatThrownBy(() -> NvmlMetricsSource.open(0)).isInstanceOfAny(LinkageError.class, IllegalStateException.class);
  }

  @Test
  void negativeDeviceIndexIsRejected() {
    assertThatThrownBy(() -> NvmlMetricsSource.openOrNoop(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }

  @Test
  void throttleReasonBitsMapToNamesAndUnknownBitsStayVisible() {
    assertThat(NvmlMetricsSource.reasonNames(0)).isEmpty();
    assertThat(NvmlMetricsSource.reasonNames(0x1)).containsExactly("gpu_idle");
    assertThat(NvmlMetricsSource.reasonNames(0x4 | 0x40)).containsExactly("sw_power_cap", "hw_thermal_slowdown");
    assertThat(NvmlMetricsSource.reasonNames(0x100 | 0x1000)).containsExactly("display_clock_setting", "0x1000");
  }
}
