package io.github.trtrace.tensorrt.internal.shim;

import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NVTX ranges that name trtrace's launches and requests for NVIDIA's tools (Nsight Compute's {@code --nvtx
 * --nvtx-include}, Nsight Systems' timeline): a push/pop range {@value #LAUNCH_PREFIX}{@code <launch id>} around
 * a launch's enqueue, and a start/end range {@value #REQUEST_PREFIX}{@code <request id>} for a chosen request
 * (start/end, as several requests' ranges overlap on one launch).
 *
 * <p>Off and free unless a tool is attached: NVTX tools announce themselves to NVTX through the environment
 * variable {@code NVTX_INJECTION64_PATH} (set by Nsight Systems and Nsight Compute when they start the process).
 * Without it {@link #enabled()} is false, decided once, and the engine neither formats a range name nor crosses
 * JNI. System property {@value #PROPERTY}: {@code auto} (default), {@code on} (ranges even without that
 * variable, e.g. for a tool injected otherwise), {@code off}. With ranges on, the shim loads CUDA 13's
 * {@code libnvtx3interop.so}, else CUDA 12's {@code libnvToolsExt.so.1} (dlopen); when neither loads, NVTX is
 * off (said once).
 *
 * <pre>{@code
 * if (Nvtx.enabled()) Nvtx.push(Nvtx.LAUNCH_PREFIX + launchId);
 * }</pre>
 */
public final class Nvtx {
  /** Name prefix of a launch's push/pop range. */
  public static final String LAUNCH_PREFIX = "trtrace launch ";
  /** Name prefix of a request's start/end range. */
  public static final String REQUEST_PREFIX = "trtrace request ";
  /** System property: {@code auto}, {@code on} or {@code off}. */
  public static final String PROPERTY = "trtrace.nvtx";
  /** The NVTX C libraries tried, in order: CUDA 13's interop library, then CUDA 12's nvToolsExt. */
  static final String[] LIBRARIES = {"libnvtx3interop.so", "libnvtx3interop.so.1", "libnvToolsExt.so.1"};

  private static final Logger LOG = LoggerFactory.getLogger(Nvtx.class);
  private static final boolean ENABLED = decide(System.getProperty(PROPERTY, "auto"),
      System.getenv("NVTX_INJECTION64_PATH"));

  private Nvtx() {}

  /** Whether ranges are emitted: a tool is attached (or {@value #PROPERTY}=on) and an NVTX library loaded. */
  public static boolean enabled() {
    return ENABLED;
  }

  /** Whether ranges are wanted for {@code setting} ({@value #PROPERTY}) and {@code injection} (the variable). */
  static boolean wanted(String setting, @Nullable String injection) {
    return switch (setting.trim().toLowerCase(Locale.ROOT)) {
      case "on", "true" -> true;
      case "off", "false" -> false;
      default -> injection != null && !injection.isBlank();
    };
  }

  private static boolean decide(String setting, @Nullable String injection) {
    if (!wanted(setting, injection)) {
      return false;
    }
    try {
      NativeShim.load();
      String[] why = new String[LIBRARIES.length];
      int loaded = NvtxNative.load(LIBRARIES, why);
      if (loaded < 0) {
        LOG.warn("trtrace: NVTX ranges are off: no NVTX library loads ({}: {}, {}: {}, {}: {})",
            LIBRARIES[0], why[0], LIBRARIES[1], why[1], LIBRARIES[2], why[2]);
        return false;
      }
      LOG.info("trtrace: NVTX ranges on ({}): launches as \"{}<id>\" (push/pop), requests as \"{}<id>\" (start/end)",
          LIBRARIES[loaded], LAUNCH_PREFIX, REQUEST_PREFIX);
      return true;
    } catch (RuntimeException | LinkageError e) {
      LOG.warn("trtrace: NVTX ranges are off: {}", e.toString());
      return false;
    }
  }

  /** Opens a push/pop range on this thread; only when {@link #enabled()}. */
  public static void push(String name) {
    NvtxNative.rangePush(name);
  }

  /** Closes this thread's innermost push/pop range. */
  public static void pop() {
    NvtxNative.rangePop();
  }

  /** Opens a start/end range; its id for {@link #end(long)}. */
  public static long start(String name) {
    return NvtxNative.rangeStart(name);
  }

  public static void end(long id) {
    NvtxNative.rangeEnd(id);
  }
}
