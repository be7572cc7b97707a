package io.github.trtrace.examples.demo;

import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.tensorrt.global.nvinfer;
import org.jspecify.annotations.Nullable;

/**
 * Offers the {@link TensorRtBackend} to {@link Backend#choose} (registered in {@code META-INF/services}): it
 * can run when the CUDA runtime and TensorRT natives load (JavaCPP's {@code linux-x86_64} jars of the
 * {@code cuda} and {@code tensorrt} presets on the class path, and the libraries they need) and a CUDA device
 * is present; otherwise it says which of these is missing, and the demo runs on the CPU.
 * {@code -Dtrtrace.demo.backend=cpu} keeps it off.
 *
 * <pre>{@code
 * String why = new TensorRtBackendProvider().unavailableReason();   // null on a GPU host with TensorRT
 * }</pre>
 */
public final class TensorRtBackendProvider implements Backend.Provider {

  /** For the service loader. */
  public TensorRtBackendProvider() {}

  @Override
  public String name() {
    return "tensorrt";
  }

  @Override
  public @Nullable String unavailableReason() {
    if ("cpu".equals(System.getProperty("trtrace.demo.backend"))) {
      return "turned off (-Dtrtrace.demo.backend=cpu)";
    }
    return Probe.REASON;
  }

  /** Probed once per JVM: natives that failed to load do not load later (a second try only says so). */
  private static final class Probe {
    static final @Nullable String REASON = probe();
  }

  private static @Nullable String probe() {
    try {
      Loader.load(cudart.class);
    } catch (Throwable e) { // UnsatisfiedLinkError and what JavaCPP wraps it in
      return "no CUDA runtime (the cuda preset's natives or libcudart did not load: " + rootMessage(e) + ")";
    }
    int[] count = new int[1];
    int rc = cudart.cudaGetDeviceCount(count);
    if (rc != 0) {
      return "no CUDA driver or device (cudaGetDeviceCount: cudaError " + rc + ")";
    }
    if (count[0] == 0) {
      return "no CUDA device";
    }
    try {
      Loader.load(nvinfer.class);
    } catch (Throwable e) {
      return "no TensorRT (the tensorrt preset's natives or libnvinfer did not load: " + rootMessage(e) + ")";
    }
    return null;
  }

  @Override
  public Backend create() {
    return new TensorRtBackend(Tokenizer.standard());
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage();
    String first = m == null ? t.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
    return first.length() > 160 ? first.substring(0, 160) + "..." : first;
  }
}
