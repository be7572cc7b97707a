package io.github.trtrace.tensorrt.model.log;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One error an {@code IErrorRecorder} received (the native shim's recorder, drained from Java):
 * TensorRT's code and description, as plain data.
 *
 * <pre>{@code
 * for (RecordedError e : recorder.drain()) log.error("TensorRT {} ({}): {}", e.codeName(), e.code(), e.description());
 * }</pre>
 *
 * @param code the {@link TrtErrorCode} value ({@code nvinfer1::ErrorCode})
 * @param description TensorRT's description, unchanged
 * @param epochMicros when TensorRT reported it, microseconds since the epoch; 0 when unknown
 */
public record RecordedError(int code, String description, long epochMicros) {
  public RecordedError {
    Objects.requireNonNull(description, "description");
  }

  /** An error whose time is unknown (e.g. read back from a log). */
  public RecordedError(int code, String description) {
    this(code, description, 0L);
  }

  /** The category of an {@code "Error Code N: <Category> (...)"} description, e.g. {@code API Usage Error}; else null. */
  public @Nullable String category() {
    TrtLogClassifier.ErrorLine line = TrtLogClassifier.errorLine(description);
    return line == null ? null : line.category();
  }

  /** What the error is about, classified as an ERROR line with this description. */
  public TrtLogKind kind() {
    return TrtLogClassifier.classify(TrtSeverity.ERROR, description);
  }

  /** The enum name as in TensorRT's headers, e.g. {@code kFAILED_INITIALIZATION}. */
  public String codeName() {
    return codeName(code);
  }

  /** The {@code nvinfer1::ErrorCode} name of {@code code}, or {@code UNKNOWN(<code>)}. */
  public static String codeName(int code) {
    TrtErrorCode c = TrtErrorCode.fromCode(code);
    return c == TrtErrorCode.UNKNOWN ? "UNKNOWN(" + code + ")" : "k" + c.name();
  }
}
