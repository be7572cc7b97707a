/**
 * trtrace for NVIDIA TensorRT (JavaCPP presets): TensorRT's log, traced builds, the traced engine,
 * NVML GPU metrics and the doctor. The build reports and log events they produce are plain data in
 * {@code io.github.trtrace.tensorrt.model} (no natives), required transitively. Exports the API packages
 * only; {@code io.github.trtrace.tensorrt.internal.shim} (the native shim with raw addresses) may change in
 * any release. JavaCPP and its presets
 * are named modules ({@code org.bytedeco.javacpp}, {@code org.bytedeco.tensorrt}, {@code
 * org.bytedeco.cuda}), so this is one too.
 */
module io.github.trtrace.tensorrt {
  requires transitive io.github.trtrace.core;
  requires transitive io.github.trtrace.tensorrt.model; // TracedBuilder returns BuildReport; the pipeline emits TrtLogEvent
  requires transitive org.bytedeco.tensorrt; // TensorRtLogger is an ILogger; builders and engines are TensorRT's
  requires transitive org.bytedeco.cuda;
  requires com.fasterxml.jackson.core;
  requires static org.jspecify;

  exports io.github.trtrace.tensorrt.build;
  exports io.github.trtrace.tensorrt.cuda;
  exports io.github.trtrace.tensorrt.doctor;
  exports io.github.trtrace.tensorrt.engine;
  exports io.github.trtrace.tensorrt.log;
  exports io.github.trtrace.tensorrt.nvml;
}
