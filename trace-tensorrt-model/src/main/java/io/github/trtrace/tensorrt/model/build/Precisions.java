package io.github.trtrace.tensorrt.model.build;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** Precision names and their order. */
final class Precisions {
  private Precisions() {}

  static String normalize(String p) {
    String s = p.trim().toLowerCase(Locale.ROOT);
    switch (s) {
      case "half":
      case "float16":
        return "fp16";
      case "float":
      case "float32":
        return "fp32";
      case "bfloat16":
        return "bf16";
      default:
        return s;
    }
  }

  /**
   * Width rank of a floating or quantised precision: fp4 1, fp8/int8 2, fp16/bf16 3, fp32 4; 0 for
   * anything else (integers used for indices, bool, unknown), which fallback checks ignore.
   */
  static int rank(@Nullable String p) {
    if (p == null) {
      return 0;
    }
    switch (p) {
      case "fp4":
        return 1;
      case "fp8":
      case "int8":
        return 2;
      case "fp16":
      case "bf16":
        return 3;
      case "fp32":
        return 4;
      default:
        return 0;
    }
  }

  /**
   * The data type in an inspector {@code Format/Datatype} string such as {@code "Row major linear FP16
   * format"} or {@code "Channel major BFloat16 format where channel % 8 == 0"} (strings listed in
   * NVIDIA's trt-engine-explorer, {@code trex/activations.py}), or null when none is recognised.
   */
  static @Nullable String ofFormat(@Nullable String format) {
    if (format == null) {
      return null;
    }
    String f = format.toUpperCase(Locale.ROOT);
    if (f.contains("BFLOAT16") || f.contains("BF16")) {
      return "bf16";
    }
    if (f.contains("FP8")) {
      return "fp8";
    }
    if (f.contains("FP4")) {
      return "fp4";
    }
    if (f.contains("FP16") || f.contains("HALF")) {
      return "fp16";
    }
    if (f.contains("FP32") || f.contains("FLOAT")) {
      return "fp32";
    }
    if (f.contains("UINT8")) {
      return "uint8";
    }
    if (f.contains("INT8")) {
      return "int8";
    }
    if (f.contains("INT32")) {
      return "int32";
    }
    if (f.contains("INT64")) {
      return "int64";
    }
    if (f.contains("BOOL")) {
      return "bool";
    }
    return null;
  }
}
