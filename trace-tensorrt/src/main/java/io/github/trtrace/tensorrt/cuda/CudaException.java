package io.github.trtrace.tensorrt.cuda;

import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;

import org.bytedeco.javacpp.BytePointer;

/**
 * A CUDA runtime call returned an error.
 *
 * <pre>{@code
 * try { timer.elapsedMs(); } catch (CudaException e) { log.warn("cuda error {}: {}", e.code(), e.getMessage()); }
 * }</pre>
 */
public final class CudaException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int code;

  CudaException(String call, int code) {
    super(call + " failed: cudaError " + code + " (" + describe(code) + ")");
    this.code = code;
  }

  /** The {@code cudaError_t} value. */
  public int code() {
    return code;
  }

  /** Throws when {@code code} is not {@code cudaSuccess}. */
  static void check(String call, int code) {
    if (code != 0) {
      throw new CudaException(call, code);
    }
  }

  private static String describe(int code) {
    try {
      BytePointer s = cudaGetErrorString(code);
      return s == null ? "?" : s.getString();
    } catch (RuntimeException | LinkageError e) {
      return "?";
    }
  }
}
