package io.github.trtrace.tensorrt.internal.cupti;

/**
 * One CUPTI activity record as plain values, copied out of CUPTI's buffer on CUPTI's thread (the buffer is
 * freed after): a kernel, a memory copy, a memset, an external correlation (CUPTI's correlation id of an
 * API call made while an external id, our launch id, was pushed), or a runtime or driver API call (what a
 * launch's enqueue called: {@link KernelJoiner} learns from them which GPU records a launch must deliver). A
 * kernel's name stays in CUPTI's memory
 * (shared by every record of that kernel, valid while CUPTI runs): {@code nameAddress} is read only for the
 * kernels of recorded launches.
 *
 * @param kind {@link #KERNEL}, {@link #MEMCPY}, {@link #MEMSET}, {@link #EXTERNAL}, {@link #RUNTIME} or {@link
 *     #DRIVER}
 * @param correlationId CUPTI's id of the API call that issued the work (or that an external id was bound to, or
 *     of the API call itself)
 * @param externalId our launch id ({@link #EXTERNAL} only)
 * @param copyKind memcpy: CUPTI's {@code CUpti_ActivityMemcpyKind}; memset: its memory kind
 * @param cbid an API call's CUPTI callback id ({@code CUPTI_RUNTIME_TRACE_CBID_*} or {@code CUPTI_DRIVER_TRACE_CBID_*})
 * @param threadId the thread that made an API call (CUPTI's id of it)
 */
public record ActivityRow(int kind, int correlationId, long externalId, long startNs, long endNs, long nameAddress,
    int copyKind, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ, long bytes, int cbid,
    long threadId) {
  public static final int KERNEL = 1;
  public static final int MEMCPY = 2;
  public static final int MEMSET = 3;
  public static final int EXTERNAL = 4;
  /** A CUDA runtime API call. */
  public static final int RUNTIME = 5;
  /** A CUDA driver API call. */
  public static final int DRIVER = 6;

  /** An external correlation: CUPTI's {@code correlationId} belongs to launch {@code launchId}. */
  public static ActivityRow external(int correlationId, long launchId) {
    return new ActivityRow(EXTERNAL, correlationId, launchId, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  public static ActivityRow kernel(int correlationId, long startNs, long endNs, long nameAddress,
      int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ) {
    return new ActivityRow(KERNEL, correlationId, 0, startNs, endNs, nameAddress, 0, gridX, gridY, gridZ,
        blockX, blockY, blockZ, 0, 0, 0);
  }

  public static ActivityRow memcpy(int correlationId, long startNs, long endNs, int copyKind, long bytes) {
    return new ActivityRow(MEMCPY, correlationId, 0, startNs, endNs, 0, copyKind, 0, 0, 0, 0, 0, 0, bytes, 0, 0);
  }

  public static ActivityRow memset(int correlationId, long startNs, long endNs, int memoryKind, long bytes) {
    return new ActivityRow(MEMSET, correlationId, 0, startNs, endNs, 0, memoryKind, 0, 0, 0, 0, 0, 0, bytes, 0, 0);
  }

  /** A runtime ({@code driver} false) or driver API call, made on thread {@code threadId} from start to end. */
  public static ActivityRow api(boolean driver, int correlationId, int cbid, long startNs, long endNs, long threadId) {
    return new ActivityRow(driver ? DRIVER : RUNTIME, correlationId, 0, startNs, endNs, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        cbid, threadId);
  }

  /** A kernel, memcpy or memset: GPU work. */
  public boolean isWork() {
    return kind == KERNEL || kind == MEMCPY || kind == MEMSET;
  }

  /** A runtime or driver API call. */
  public boolean isApi() {
    return kind == RUNTIME || kind == DRIVER;
  }

  /**
   * CUPTI's name of a memcpy kind ({@code CUPTI_ACTIVITY_MEMCPY_KIND_*}: 1 HtoD, 2 DtoH, 3 HtoA, 4 AtoH, 5 AtoA,
   * 6 AtoD, 7 DtoA, 8 DtoD, 9 HtoH, 10 PtoP), {@code "unknown"} otherwise.
   */
  public static String copyKindName(int kind) {
    return switch (kind) {
      case 1 -> "HtoD";
      case 2 -> "DtoH";
      case 3 -> "HtoA";
      case 4 -> "AtoH";
      case 5 -> "AtoA";
      case 6 -> "AtoD";
      case 7 -> "DtoA";
      case 8 -> "DtoD";
      case 9 -> "HtoH";
      case 10 -> "PtoP";
      default -> "unknown";
    };
  }
}
