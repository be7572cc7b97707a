package io.github.trtrace.tensorrt.internal.shim;

import org.slf4j.LoggerFactory;

/**
 * Demangles C++ names (kernel names as CUPTI gives them) through the native shim's {@code abi::__cxa_demangle}.
 * Where the shim does not load (another platform), names stay as they are (said once).
 *
 * <pre>{@code
 * Demangler.demangle("_Z6kernelPf");   // "kernel(float*)"
 * }</pre>
 */
public final class Demangler {
  private static final boolean AVAILABLE = load();

  private Demangler() {}

  private static boolean load() {
    try {
      NativeShim.load();
      return true;
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(Demangler.class).info("trtrace: kernel names stay mangled: {}", e.getMessage());
      return false;
    }
  }

  /** The readable form of {@code mangled}; {@code mangled} itself when it is not a mangled name or cannot be. */
  public static String demangle(String mangled) {
    if (!AVAILABLE || mangled == null) {
      return mangled;
    }
    String d = NvtxNative.demangle(mangled);
    return d == null ? mangled : d;
  }
}
