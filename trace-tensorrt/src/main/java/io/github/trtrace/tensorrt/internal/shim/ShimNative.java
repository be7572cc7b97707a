package io.github.trtrace.tensorrt.internal.shim;

/** JNI entry points of {@code libtrtrace_shim.so} that own and drain the native objects. */
final class ShimNative {
  private ShimNative() {}

  /** {@code layout} = the TensorRT major version whose IProfiler layout to use (10 or 11); 0 on failure. */
  static native long profilerCreate(int capacity, int layout);

  static native void profilerFree(long handle, int layout);

  /**
   * Moves up to {@code ids.length} samples into {@code ids}/{@code ms}; returns the layer names whose ID is
   * {@code >= knownNames}; {@code counts} = {moved, dropped since last drain, left in this drain's batch}.
   */
  static native String[] profilerDrain(long handle, int layout, int knownNames, int[] ids, float[] ms, long[] counts);

  /** {@code delete} of a TensorRT 10 API object through its virtual destructor (see the C++ source). */
  static native void deleteTensorRtObject(long address);

  static native long recorderCreate(int capacity);

  static native void recorderFree(long handle);

  static native int recorderRefCount(long handle);

  /** {@code IErrorRecorder::clear()} on TensorRT's view. */
  static native void recorderClear(long handle);

  /** {@code stats} = {moved, dropped since last drain, reported in total}. */
  static native int recorderDrain(long handle, int[] codes, long[] epochMicros, String[] descs, long[] stats);

  static native long monitorCreate(int capacity);

  static native void monitorFree(long handle);

  static native void monitorSetCancelled(long handle, boolean cancelled);

  /** {@code stats} = {moved, dropped since last drain, left in this drain's batch}. */
  static native int monitorDrain(
      long handle, int[] types, int[] values, long[] nanos, String[] phases, String[] parents, long[] stats);
}
