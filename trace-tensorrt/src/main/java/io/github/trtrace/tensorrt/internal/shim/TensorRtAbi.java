package io.github.trtrace.tensorrt.internal.shim;

import org.bytedeco.javacpp.Loader;
import org.bytedeco.tensorrt.global.nvinfer;
import org.jspecify.annotations.Nullable;

/**
 * The C++ interface generation (vtable layout) of a TensorRT major version, for the callbacks the native
 * shim implements. TensorRT 11 made {@code IProfiler} and {@code ILogger} versioned interfaces (two
 * {@code IVersionedInterface} slots and the destructor come before {@code reportLayerTime}/{@code log}),
 * so a profiler built for one generation must never be handed to the other. The generation is read from
 * the loaded library ({@code getInferLibVersion()}), never assumed from the preset the code was compiled
 * against.
 *
 * <pre>{@code
 * TensorRtAbi abi = TensorRtAbi.ofLoadedTensorRt();        // V11 with libnvinfer.so.11
 * ShimProfiler profiler = ShimProfiler.create(65_536, abi);
 * }</pre>
 */
public enum TensorRtAbi {
  /** TensorRT 10.x: {@code IProfiler} and {@code ILogger} have no base class. */
  V10(10),
  /** TensorRT 11.x: {@code IProfiler} and {@code ILogger} derive from {@code IVersionedInterface}. */
  V11(11);

  private final int major;

  /** The loaded library's generation, once read (a process loads one TensorRT). */
  private static volatile @Nullable TensorRtAbi loaded;

  TensorRtAbi(int major) {
    this.major = major;
  }

  /** The TensorRT major version, e.g. 11. */
  public int major() {
    return major;
  }

  /**
   * The generation of the TensorRT whose {@code getInferLibVersion()} returned {@code inferLibVersion}
   * ({@code major * 10000 + minor * 100 + patch}, e.g. 110201 for 11.2.1).
   *
   * @throws UnsupportedOperationException for a major version whose layout this build does not know
   */
  public static TensorRtAbi ofVersion(int inferLibVersion) {
    int m = inferLibVersion / 10000;
    for (TensorRtAbi abi : values()) {
      if (abi.major == m) {
        return abi;
      }
    }
    throw new UnsupportedOperationException("TensorRT " + m + "." + (inferLibVersion / 100 % 100) + "."
        + (inferLibVersion % 100) + " (getInferLibVersion " + inferLibVersion + ") has no interface layout known to"
        + " this trtrace build (known: TensorRT 10 and 11); refusing to guess a vtable layout");
  }

  /**
   * The generation of the TensorRT library loaded in this process (loads it through the preset if needed).
   *
   * @throws IllegalStateException when TensorRT cannot be loaded (no natives, no GPU driver)
   * @throws UnsupportedOperationException for an unknown major version
   */
  public static TensorRtAbi ofLoadedTensorRt() {
    TensorRtAbi known = loaded;
    if (known != null) {
      return known;
    }
    int version;
    try {
      Loader.load(nvinfer.class);
      version = nvinfer.getInferLibVersion();
    } catch (RuntimeException | LinkageError e) {
      throw new IllegalStateException("cannot read the TensorRT version (getInferLibVersion) to choose the native"
          + " interface layout: TensorRT does not load here (" + e + "). Pass a TensorRtAbi explicitly only if you"
          + " know which TensorRT will call the object.", e);
    }
    known = ofVersion(version);
    loaded = known;
    return known;
  }
}
