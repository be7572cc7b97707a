package io.github.trtrace.tensorrt.model.log;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Decides what a TensorRT log line is about. Pure and cheap: plain {@code startsWith}/{@code
 * contains} checks; the one regex runs only on lines that contain {@code "Error Code "}.
 *
 * <p>Every rule comes from a real line: the H200 fixtures captured for this project (TensorRT
 * 10.15.1) or lines quoted in public TensorRT issues (older versions; listed with their sources in
 * the test resources). Lines that match no rule are {@link TrtLogKind#OTHER}.
 *
 * <pre>{@code
 * TrtLogKind k = TrtLogClassifier.classify(TrtSeverity.INFO, "[MemUsageChange] Init CUDA: ..."); // MEMORY_USAGE
 * TrtLogClassifier.ErrorLine e = TrtLogClassifier.errorLine("... Error Code 6: API Usage Error (...)"); // 6, "API Usage Error"
 * }</pre>
 */
public final class TrtLogClassifier {
  private static final String ERROR_CODE = "Error Code ";
  private static final Pattern ERROR_LINE = Pattern.compile("Error Code (\\d+): ([^(]+) \\(");

  private TrtLogClassifier() {}

  /**
   * The code and category of an {@code "Error Code N: <Category> (...)"} line.
   *
   * @param code TensorRT's {@link TrtErrorCode} value
   * @param category the text between the code and the parenthesis, trimmed
   */
  public record ErrorLine(int code, String category) {}

  /** The parsed error code and category, or null when the line has none. */
  public static @Nullable ErrorLine errorLine(String message) {
    if (message.indexOf(ERROR_CODE) < 0) {
      return null;
    }
    Matcher m = ERROR_LINE.matcher(message);
    if (!m.find()) {
      return null;
    }
    try {
      return new ErrorLine(Integer.parseInt(m.group(1)), m.group(2).trim());
    } catch (NumberFormatException tooLong) {
      return null;
    }
  }

  /** The kind of {@code message} logged at {@code severity}. */
  public static TrtLogKind classify(TrtSeverity severity, String message) {
    return classify(severity, message, errorLine(message));
  }

  /** The kind of {@code message} logged at {@code severity}, when its {@link #errorLine} was parsed already. */
  public static TrtLogKind classify(TrtSeverity severity, String message, @Nullable ErrorLine error) {
    TrtLogKind byContent = byContent(message);
    if (byContent != null) {
      return byContent;
    }
    if (error != null) {
      return byCategory(error);
    }
    return severity == TrtSeverity.INTERNAL_ERROR ? TrtLogKind.INTERNAL_ERROR : TrtLogKind.OTHER;
  }

  private static @Nullable TrtLogKind byContent(String m) {
    if (m.startsWith("[MemUsageChange]")) {
      return TrtLogKind.MEMORY_USAGE;
    }
    // fixture: "Trying to load shared library libnvinfer_builder_resource_sm90.so.10.15.1",
    // "... Error Code 6: API Usage Error (Unable to load library: libnvinfer_builder_resource_sm90..."
    if (m.contains("libnvinfer_builder_resource")) {
      return TrtLogKind.BUILDER_RESOURCE;
    }
    // fixture: "CUDA lazy loading is enabled.", "Lowering maximum device shared memory from ..."
    if (m.startsWith("CUDA lazy loading") || m.startsWith("Lowering maximum device shared memory")) {
      return TrtLogKind.CUDA_INIT;
    }
    // fixture: "Loaded engine size: 0 MiB"
    if (m.startsWith("Loaded engine size")) {
      return TrtLogKind.SERIALIZATION;
    }
    // issues: "Error Code 2: OutOfMemory (no further information)",
    // "Requested amount of GPU memory (4294967296 bytes) could not be allocated."
    if (m.contains("OutOfMemory") || m.contains("out of memory") || m.contains("could not be allocated")) {
      return TrtLogKind.OUT_OF_MEMORY;
    }
    // issues: "Skipping tactic 3 due to ...", "Could not find any implementation for node ..."
    if (m.contains("tactic") || m.contains("Could not find any implementation")) {
      return TrtLogKind.TACTIC_SELECTION;
    }
    // issues: "ConvReluFusion: Fusing a with b", "Running: ConvReluFusion on a",
    // "Fusing convolution weights from a with scale b"
    if (m.contains("Fusion") || m.startsWith("Fusing ")) {
      return TrtLogKind.FUSION;
    }
    // issues: "Registered plugin creator - ::GridAnchor_TRT version 1",
    // "getPluginCreator could not find plugin DCNv2 version 1"
    if (m.contains("plugin") || m.contains("Plugin")) {
      return TrtLogKind.PLUGIN;
    }
    // issue: "... does not natively support INT64. Attempting to cast down to INT32."
    if (m.contains("cast down to")) {
      return TrtLogKind.PRECISION;
    }
    return null;
  }

  private static TrtLogKind byCategory(ErrorLine error) {
    switch (error.category().toLowerCase(Locale.ROOT)) {
      case "api usage error":
        return TrtLogKind.API_USAGE_ERROR;
      case "internal error":
        return TrtLogKind.INTERNAL_ERROR;
      case "serialization":
        return TrtLogKind.SERIALIZATION;
      default:
        return TrtErrorCode.fromCode(error.code()).kind();
    }
  }
}
