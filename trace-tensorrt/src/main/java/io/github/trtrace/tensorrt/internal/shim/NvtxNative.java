package io.github.trtrace.tensorrt.internal.shim;

import org.jspecify.annotations.Nullable;

/** JNI entry points of {@code trtrace_nvtx.cpp} (in {@code libtrtrace_shim.so}): NVTX through dlopen, demangling. */
final class NvtxNative {
  private NvtxNative() {}

  /**
   * Loads the first of {@code libraries} that exports NVTX's range functions; its index, or -1. {@code why}
   * (as long as {@code libraries}) gets, for each one tried and refused, the reason.
   */
  static native int load(String[] libraries, @Nullable String[] why);

  static native void rangePush(String name);

  static native void rangePop();

  static native long rangeStart(String name);

  static native void rangeEnd(long id);

  /** The readable form of an Itanium-mangled C++ name, or null when it is not one. */
  static native @Nullable String demangle(String mangled);
}
