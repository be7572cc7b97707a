package io.github.trtrace.tensorrt.internal.cupti;

import java.util.Map;
import org.bytedeco.cuda.global.cupti;

/**
 * API rows as CUPTI reports a recorded enqueue's calls, for the joiner's tests. The callback ids are the preset's
 * compile-time constants (inlined: the cupti class is not initialised, so no native library is needed).
 */
public final class Calls {
  public static final int LAUNCH_KERNEL = cupti.CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  public static final int CU_LAUNCH_KERNEL = cupti.CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  public static final int GRAPH_LAUNCH = cupti.CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000;
  public static final int MEMCPY_ASYNC = cupti.CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020;
  public static final int HOST_FUNC = cupti.CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000;
  public static final int EVENT_RECORD = cupti.CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020;
  public static final int MARKER = cupti.CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020;
  public static final long THREAD = 4242;

  /** What {@link ApiCalls#of} makes of these constants of the preset. */
  public static final ApiCalls CALLS = ApiCalls.of(Map.of(
      ApiCalls.MARKER, MARKER,
      ApiCalls.RUNTIME_PREFIX + "cudaLaunchKernel_v7000", LAUNCH_KERNEL,
      ApiCalls.DRIVER_PREFIX + "cuLaunchKernel", CU_LAUNCH_KERNEL,
      ApiCalls.RUNTIME_PREFIX + "cudaGraphLaunch_v10000", GRAPH_LAUNCH,
      ApiCalls.RUNTIME_PREFIX + "cudaMemcpyAsync_v3020", MEMCPY_ASYNC,
      ApiCalls.RUNTIME_PREFIX + "cudaLaunchHostFunc_v10000", HOST_FUNC,
      ApiCalls.RUNTIME_PREFIX + "cudaEventRecord_v3020", EVENT_RECORD));

  private Calls() {}

  /** A runtime call on the launching thread. */
  public static ActivityRow runtime(int correlationId, int cbid, long startNs, long endNs) {
    return ActivityRow.api(false, correlationId, cbid, startNs, endNs, THREAD);
  }

  /** A driver call on the launching thread. */
  public static ActivityRow driver(int correlationId, int cbid, long startNs, long endNs) {
    return ActivityRow.api(true, correlationId, cbid, startNs, endNs, THREAD);
  }

  /** The recorder's closing marker, at {@code t}. */
  public static ActivityRow marker(int correlationId, long t) {
    return runtime(correlationId, MARKER, t, t + 100);
  }
}
