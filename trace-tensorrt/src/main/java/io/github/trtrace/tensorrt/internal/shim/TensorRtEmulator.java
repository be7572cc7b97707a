package io.github.trtrace.tensorrt.internal.shim;

import org.jspecify.annotations.Nullable;

/**
 * Calls the shim objects through their C++ TensorRT interfaces (vtables), exactly as {@code libnvinfer}
 * does, without TensorRT or a GPU. Used by self checks, tests and the GPU check's micro-benchmarks; it
 * proves that the native dispatch, buffering and draining work on this machine.
 *
 * <pre>{@code
 * TensorRtEmulator.reportLayerTimes(profiler, new String[] {"conv1", "relu1"}, new float[] {0.12f, 0.01f}, 100);
 * }</pre>
 */
public final class TensorRtEmulator {
  private TensorRtEmulator() {}

  /**
   * Calls {@code IProfiler::reportLayerTime(names[i], ms[i])} for every layer, {@code rounds} times over,
   * through the {@code IProfiler} of the profiler's TensorRT generation (slot 0 for 10, slot 4 for 11).
   */
  public static void reportLayerTimes(ShimProfiler profiler, String[] names, float[] ms, int rounds) {
    if (names.length != ms.length) {
      throw new IllegalArgumentException("names and ms differ in length: " + names.length + " != " + ms.length);
    }
    synchronized (profiler) {
      reportLayerTimes(profiler.address(), profiler.abi().major(), names, ms, rounds);
    }
  }

  /**
   * {@code IVersionedInterface::getInterfaceInfo()} (and {@code getAPILanguage()}) of a TensorRT 11
   * profiler as {@code "kind major.minor"}; TensorRT 10's {@code IProfiler} has no such slots.
   */
  public static String interfaceInfo(ShimProfiler profiler) {
    if (profiler.abi() != TensorRtAbi.V11) {
      throw new IllegalArgumentException("a TensorRT " + profiler.abi().major() + " IProfiler is not versioned");
    }
    synchronized (profiler) {
      return profilerInterfaceInfo(profiler.address());
    }
  }

  /** The address {@code IErrorRecorder::getErrorDesc(index)} returns (valid until {@code clear()}). */
  public static long getErrorDescAddress(ShimErrorRecorder recorder, int index) {
    synchronized (recorder) {
      return getErrorDescAddress(recorder.address(), index);
    }
  }

  /** The NUL-terminated string at {@code address}, as TensorRT would read a {@code getErrorDesc} pointer. */
  static String readCString(long address) {
    NativeShim.load();
    return readCString0(address);
  }

  /** Calls {@code IErrorRecorder::reportError(code, desc)}; returns what the recorder returned. */
  public static boolean reportError(ShimErrorRecorder recorder, int code, String desc) {
    synchronized (recorder) {
      return reportError(recorder.address(), code, desc);
    }
  }

  /** {@code IErrorRecorder::getNbErrors()}. */
  public static int getNbErrors(ShimErrorRecorder recorder) {
    synchronized (recorder) {
      return getNbErrors(recorder.address());
    }
  }

  /** {@code IErrorRecorder::getErrorCode(index)}. */
  public static int getErrorCode(ShimErrorRecorder recorder, int index) {
    synchronized (recorder) {
      return getErrorCode(recorder.address(), index);
    }
  }

  /** {@code IErrorRecorder::getErrorDesc(index)}. */
  public static String getErrorDesc(ShimErrorRecorder recorder, int index) {
    synchronized (recorder) {
      return getErrorDesc(recorder.address(), index);
    }
  }

  /** {@code IErrorRecorder::hasOverflowed()}. */
  public static boolean hasOverflowed(ShimErrorRecorder recorder) {
    synchronized (recorder) {
      return hasOverflowed(recorder.address());
    }
  }

  /** {@code IErrorRecorder::clear()}. */
  public static void clear(ShimErrorRecorder recorder) {
    synchronized (recorder) {
      clear(recorder.address());
    }
  }

  /** {@code IErrorRecorder::incRefCount()}; returns the new count. */
  public static int incRefCount(ShimErrorRecorder recorder) {
    synchronized (recorder) {
      return incRefCount(recorder.address());
    }
  }

  /** {@code IErrorRecorder::decRefCount()}; returns the new count. */
  public static int decRefCount(ShimErrorRecorder recorder) {
    synchronized (recorder) {
      return decRefCount(recorder.address());
    }
  }

  /** {@code IVersionedInterface::getInterfaceInfo()} of the recorder as {@code "kind major.minor"}. */
  public static String interfaceInfo(ShimErrorRecorder recorder) {
    synchronized (recorder) {
      return interfaceInfo(recorder.address(), true);
    }
  }

  /** {@code IVersionedInterface::getInterfaceInfo()} of the monitor as {@code "kind major.minor"}. */
  public static String interfaceInfo(ShimProgressMonitor monitor) {
    synchronized (monitor) {
      return interfaceInfo(monitor.address(), false);
    }
  }

  /** {@code IProgressMonitor::phaseStart(phase, parent, nbSteps)}. */
  public static void phaseStart(ShimProgressMonitor monitor, String phase, @Nullable String parent, int nbSteps) {
    synchronized (monitor) {
      phaseStart(monitor.address(), phase, parent, nbSteps);
    }
  }

  /** {@code IProgressMonitor::stepComplete(phase, step)}; false means TensorRT must cancel the build. */
  public static boolean stepComplete(ShimProgressMonitor monitor, String phase, int step) {
    synchronized (monitor) {
      return stepComplete(monitor.address(), phase, step);
    }
  }

  /** {@code IProgressMonitor::phaseFinish(phase)}. */
  public static void phaseFinish(ShimProgressMonitor monitor, String phase) {
    synchronized (monitor) {
      phaseFinish(monitor.address(), phase);
    }
  }

  /**
   * Calls {@code ILogger::log(severity, message)} {@code calls} times on the native object at
   * {@code loggerAddress} (e.g. a JavaCPP {@code ILogger} subclass's {@code address()}), from native
   * code as TensorRT does, through the {@code ILogger} layout of the loaded TensorRT ({@link
   * TensorRtAbi#ofLoadedTensorRt()}); returns the elapsed nanoseconds.
   */
  public static long logCalls(long loggerAddress, int severity, String message, int calls) {
    return logCalls(loggerAddress, TensorRtAbi.ofLoadedTensorRt(), severity, message, calls);
  }

  /**
   * {@code IVersionedInterface::getInterfaceInfo()} (vtable slot 1) of the TensorRT 11 {@code ILogger} at
   * {@code loggerAddress}, as {@code "kind major.minor"}: one of the slots TensorRT 11 added before {@code log}.
   */
  public static String loggerInterfaceInfo(long loggerAddress) {
    if (loggerAddress == 0) {
      throw new IllegalArgumentException("null logger address");
    }
    NativeShim.load();
    return loggerInterfaceInfo0(loggerAddress);
  }

  /** {@code IVersionedInterface::getAPILanguage()} (slot 0) of a TensorRT 11 {@code ILogger}: 0 is {@code kCPP}. */
  public static int loggerApiLanguage(long loggerAddress) {
    if (loggerAddress == 0) {
      throw new IllegalArgumentException("null logger address");
    }
    NativeShim.load();
    return loggerApiLanguage0(loggerAddress);
  }

  /** {@link #logCalls(long, int, String, int)} through the {@code ILogger} layout of generation {@code abi}. */
  public static long logCalls(long loggerAddress, TensorRtAbi abi, int severity, String message, int calls) {
    if (loggerAddress == 0) {
      throw new IllegalArgumentException("null logger address");
    }
    NativeShim.load();
    return logCalls0(loggerAddress, abi.major(), severity, message, calls);
  }

  private static native void reportLayerTimes(long profiler, int layout, String[] names, float[] ms, int rounds);

  private static native String profilerInterfaceInfo(long profiler);

  private static native long getErrorDescAddress(long recorder, int index);

  private static native String readCString0(long address);

  private static native String loggerInterfaceInfo0(long logger);

  private static native int loggerApiLanguage0(long logger);

  private static native long logCalls0(long logger, int layout, int severity, String message, int calls);

  private static native boolean reportError(long recorder, int code, String desc);

  private static native int getNbErrors(long recorder);

  private static native int getErrorCode(long recorder, int index);

  private static native String getErrorDesc(long recorder, int index);

  private static native boolean hasOverflowed(long recorder);

  private static native void clear(long recorder);

  private static native int incRefCount(long recorder);

  private static native int decRefCount(long recorder);

  private static native String interfaceInfo(long object, boolean isRecorder);

  private static native void phaseStart(long monitor, String phase, @Nullable String parent, int nbSteps);

  private static native boolean stepComplete(long monitor, String phase, int step);

  private static native void phaseFinish(long monitor, String phase);
}
