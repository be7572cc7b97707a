package io.github.trtrace.tensorrt.internal.shim;

import org.bytedeco.javacpp.Pointer;
import org.jspecify.annotations.Nullable;

/**
 * Releases objects TensorRT created ({@code IBuilder}, {@code IRuntime}, {@code ICudaEngine},
 * {@code IExecutionContext}, {@code IHostMemory}, ...). The JavaCPP preset does not own pointers
 * returned by TensorRT factories, so {@code close()} on them frees nothing; TensorRT 10 releases an
 * object with C++ {@code delete}, which the native shim performs through the object's virtual
 * destructor.
 *
 * <pre>{@code
 * IExecutionContext ctx = engine.createExecutionContext();
 * ...
 * TensorRtObjects.destroy(ctx);   // then the engine, then the runtime: reverse order of creation
 * }</pre>
 */
public final class TensorRtObjects {
  private TensorRtObjects() {}

  /**
   * Deletes the TensorRT object at {@code object}'s address and sets the Java pointer to null.
   * Does nothing for null. Never pass an object you did not get from a TensorRT factory, or one
   * TensorRT still uses (destroy contexts before their engine, engines before their runtime).
   */
  public static void destroy(@Nullable Pointer object) {
    if (object == null || object.isNull()) {
      return;
    }
    NativeShim.load();
    ShimNative.deleteTensorRtObject(object.address());
    object.setNull();
  }
}
