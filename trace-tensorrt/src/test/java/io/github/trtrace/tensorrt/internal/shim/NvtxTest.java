package io.github.trtrace.tensorrt.internal.shim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** NVTX is off unless a tool is attached (or forced), and demangling goes through the shim. */
class NvtxTest {
  @Test
  void rangesAreWantedOnlyWhenAToolAnnouncedItselfOrTheyAreForced() {
    assertThat(Nvtx.wanted("auto", null)).isFalse();
    assertThat(Nvtx.wanted("auto", "")).isFalse();
    assertThat(Nvtx.wanted("auto", "/opt/nvidia/nsight-compute/libInjection.so")).isTrue();
    assertThat(Nvtx.wanted("off", "/opt/nvidia/nsight-compute/libInjection.so")).isFalse();
    assertThat(Nvtx.wanted("on", null)).isTrue();
  }

  @Test
  void withoutAToolNvtxIsOff() {
    // the build's JVM runs without Nsight: NVTX_INJECTION64_PATH is unset
    if (System.getenv("NVTX_INJECTION64_PATH") == null && System.getProperty(Nvtx.PROPERTY) == null) {
      assertThat(Nvtx.enabled()).isFalse();
    }
  }

  @Test
  void mangledKernelNamesAreDemangledByTheShim() {
    if (!NativeShim.isSupportedPlatform()) {
      return;
    }
    assertThat(Demangler.demangle("_Z6kernelPf")).isEqualTo("kernel(float*)");
    assertThat(Demangler.demangle("_ZN7cutlass6KernelINS_4gemmEEEvNT_6ParamsE"))
        .isEqualTo("void cutlass::Kernel<cutlass::gemm>(cutlass::gemm::Params)");
    assertThat(Demangler.demangle("sm90_xmma_gemm_f16f16")).isEqualTo("sm90_xmma_gemm_f16f16");
  }

  @Test
  void withNoNvtxLibraryLoadingEachOneTriedSaysWhy() {
    if (!NativeShim.isSupportedPlatform()) {
      return;
    }
    NativeShim.load();
    String[] why = new String[1];
    assertThat(NvtxNative.load(new String[] {"libtrtrace-no-such-nvtx.so"}, why)).isEqualTo(-1);
    assertThat(why[0]).contains("libtrtrace-no-such-nvtx.so");
  }
}
