package io.github.trtrace.tensorrt.internal.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.bytedeco.cuda.global.cupti;
import org.junit.jupiter.api.Test;

/**
 * Which API calls issue GPU work, against the callback ids of the cupti preset on the class path (13.1 by
 * default, 12.6 with the trt-10.6 profile): names from its fields (listing them does not initialise the class),
 * values from its compile-time constants.
 */
class ApiCallsTest {
  /** The functions the preset names, as CUPTI spells them after the prefix. */
  static List<String> presetFunctions() {
    return Arrays.stream(cupti.class.getFields()).map(Field::getName)
        .filter(n -> n.startsWith(ApiCalls.RUNTIME_PREFIX) || n.startsWith(ApiCalls.DRIVER_PREFIX))
        .map(n -> n.substring(n.startsWith(ApiCalls.RUNTIME_PREFIX) ? ApiCalls.RUNTIME_PREFIX.length()
            : ApiCalls.DRIVER_PREFIX.length()))
        .toList();
  }

  @Test
  void kernelAndGraphLaunchesCopiesAndMemsetsOfThePresetIssueWorkAndHostFunctionsDoNot() {
    List<String> functions = presetFunctions();
    List<String> work = functions.stream().filter(ApiCalls::issuesWork).toList();
    assertThat(work).contains("cudaLaunchKernel_v7000", "cudaLaunchKernel_ptsz_v7000", "cudaLaunchKernelExC_v11060",
        "cudaLaunchCooperativeKernel_v9000", "cudaLaunch_v3020", "cuLaunchKernel", "cuLaunchKernel_ptsz",
        "cuLaunchKernelEx", "cuLaunchCooperativeKernel", "cuLaunch", "cuLaunchGrid", "cuLaunchGridAsync",
        "cudaGraphLaunch_v10000", "cudaGraphLaunch_ptsz_v10000", "cuGraphLaunch", "cuGraphLaunch_ptsz",
        "cudaMemcpy_v3020", "cudaMemcpyAsync_v3020", "cudaMemcpyAsync_ptsz_v7000", "cudaMemcpyToSymbolAsync_v3020",
        "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoDAsync_v2_ptsz", "cudaMemsetAsync_v3020", "cuMemsetD8Async",
        "cuMemsetD32_v2");
    assertThat(work).doesNotContain("cudaLaunchHostFunc_v10000", "cudaLaunchHostFunc_ptsz_v10000",
        "cuLaunchHostFunc", "cuLaunchHostFunc_ptsz", "cudaPeekAtLastError_v3020", "cudaGetLastError_v3020",
        "cudaStreamSynchronize_v3020", "cudaEventRecord_v3020", "cuCtxGetCurrent", "cudaGraphAddMemcpyNode_v10000",
        "cudaMalloc_v3020", "cudaStreamWaitEvent_v3020");
    assertThat(work).allMatch(f -> f.matches("(cudaLaunch|cuLaunch|cudaGraphLaunch|cuGraphLaunch|cudaMemcpy|cuMemcpy"
        + "|cudaMemset|cuMemset).*") && !f.contains("HostFunc"));
    assertThat(functions).as("the marker the recorder calls").contains("cudaPeekAtLastError_v3020");
  }

  @Test
  void callbackIdsAreTakenByDomainFromThePresetsConstants() {
    ApiCalls c = Calls.CALLS;
    assertThat(c.work(ActivityRow.RUNTIME, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)).isTrue();
    assertThat(c.work(ActivityRow.DRIVER, cupti.CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel)).isTrue();
    assertThat(c.work(ActivityRow.RUNTIME, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000)).isTrue();
    assertThat(c.work(ActivityRow.RUNTIME, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020)).isTrue();
    assertThat(c.work(ActivityRow.RUNTIME, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000)).isFalse();
    assertThat(c.work(ActivityRow.RUNTIME, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020)).isFalse();
    assertThat(c.work(ActivityRow.DRIVER, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000))
        .as("the same number in the driver's domain is another call").isFalse();
    assertThat(c.work(ActivityRow.KERNEL, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)).isFalse();
    assertThat(c.marker(ActivityRow.RUNTIME, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020)).isTrue();
    assertThat(c.marker(ActivityRow.DRIVER, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020)).isFalse();
    assertThat(c.counts()).as("launch, graph launch, memcpy; cuLaunchKernel").containsExactly(3, 1);
  }

  @Test
  void withoutCopiesRecordedMemcpyCallsOweNoRecordAndTheOtherWorkCallsStill() {
    Map<String, Integer> constants = Map.of(
        ApiCalls.MARKER, Calls.MARKER,
        ApiCalls.RUNTIME_PREFIX + "cudaLaunchKernel_v7000", Calls.LAUNCH_KERNEL,
        ApiCalls.RUNTIME_PREFIX + "cudaMemcpyAsync_v3020", Calls.MEMCPY_ASYNC,
        ApiCalls.RUNTIME_PREFIX + "cudaMemcpy2DAsync_v3020", cupti.CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020,
        ApiCalls.RUNTIME_PREFIX + "cudaMemsetAsync_v3020", cupti.CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
        ApiCalls.DRIVER_PREFIX + "cuMemcpyHtoDAsync_v2", cupti.CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
        ApiCalls.DRIVER_PREFIX + "cuLaunchKernel", Calls.CU_LAUNCH_KERNEL);
    ApiCalls without = ApiCalls.of(constants, false);
    assertThat(without.work(ActivityRow.RUNTIME, Calls.MEMCPY_ASYNC)).isFalse();
    assertThat(without.work(ActivityRow.RUNTIME, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020)).isFalse();
    assertThat(without.work(ActivityRow.DRIVER, cupti.CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2)).isFalse();
    assertThat(without.work(ActivityRow.RUNTIME, Calls.LAUNCH_KERNEL)).isTrue();
    assertThat(without.work(ActivityRow.DRIVER, Calls.CU_LAUNCH_KERNEL)).isTrue();
    assertThat(without.work(ActivityRow.RUNTIME, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020)).isTrue();
    assertThat(without.marker(ActivityRow.RUNTIME, Calls.MARKER)).isTrue();
    assertThat(without.counts()).containsExactly(2, 1);
    ApiCalls with = ApiCalls.of(constants, true);
    assertThat(with.work(ActivityRow.RUNTIME, cupti.CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020)).isTrue();
    assertThat(with.work(ActivityRow.DRIVER, cupti.CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2)).isTrue();
    assertThat(with.counts()).containsExactly(4, 2);
    assertThat(ApiCalls.of(constants).counts()).as("the one-argument form records copies").containsExactly(4, 2);
  }

  @Test
  void copiesAreTheMemcpyCallsOfThePresetAndNothingElse() {
    List<String> copies = presetFunctions().stream().filter(ApiCalls::isCopy).toList();
    assertThat(copies).contains("cudaMemcpy_v3020", "cudaMemcpyAsync_v3020", "cudaMemcpy2DAsync_v3020",
        "cudaMemcpyAsync_ptsz_v7000", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoDAsync_v2_ptsz");
    assertThat(copies).allMatch(f -> f.startsWith("cudaMemcpy") || f.startsWith("cuMemcpy"));
    assertThat(copies).doesNotContain("cudaMemsetAsync_v3020", "cudaGraphAddMemcpyNode_v10000", "cudaLaunchKernel_v7000");
  }

  /** Stands in for the preset's class: its constants are read the way the recorder reads cupti's. */
  public static final class Constants {
    public static final int CUPTI_RUNTIME_TRACE_CBID_INVALID = 0;
    public static final int CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020 = 11;
    public static final int CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 = 211;
    public static final int CUPTI_RUNTIME_TRACE_CBID_FORCE_INT = Integer.MAX_VALUE;
    public static final int CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel = 307;
    public static final int CUPTI_ACTIVITY_KIND_RUNTIME = 5;
    public static final long CUPTI_RUNTIME_TRACE_CBID_notAnInt = 7;
    public static int CUPTI_DRIVER_TRACE_CBID_notFinal = 8;

    private Constants() {}
  }

  @Test
  void theRecorderReadsTheIntConstantsWithEitherPrefixAndNeedsItsMarker() throws Exception {
    Map<String, Integer> m = ApiCalls.constantsOf(Constants.class);
    assertThat(m).containsOnlyKeys("CUPTI_RUNTIME_TRACE_CBID_INVALID", "CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020",
        "CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000", "CUPTI_RUNTIME_TRACE_CBID_FORCE_INT",
        "CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel");
    ApiCalls c = ApiCalls.of(m);
    assertThat(c.work(ActivityRow.RUNTIME, 211)).isTrue();
    assertThat(c.work(ActivityRow.DRIVER, 307)).isTrue();
    assertThat(c.marker(ActivityRow.RUNTIME, 11)).isTrue();
    assertThat(c.counts()).containsExactly(1, 1);
    assertThatThrownBy(() -> ApiCalls.of(Map.of("CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel", 307)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cudaPeekAtLastError");
  }
}
