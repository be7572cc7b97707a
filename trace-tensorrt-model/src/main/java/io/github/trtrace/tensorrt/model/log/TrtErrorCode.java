package io.github.trtrace.tensorrt.model.log;

/**
 * TensorRT's documented {@code nvinfer1::ErrorCode} values, the number in {@code "Error Code N: ..."}
 * log lines and what an {@code IErrorRecorder} receives. The text after the number (e.g. {@code
 * "API Usage Error"}) is a separate, finer category: the fixtures show code 6 with "API Usage Error",
 * code 2 with "Internal Error", code 1 with "Serialization".
 *
 * <pre>{@code
 * TrtErrorCode c = TrtErrorCode.fromCode(6); // FAILED_INITIALIZATION
 * }</pre>
 */
public enum TrtErrorCode {
  SUCCESS(0),
  UNSPECIFIED_ERROR(1),
  INTERNAL_ERROR(2),
  INVALID_ARGUMENT(3),
  INVALID_CONFIG(4),
  FAILED_ALLOCATION(5),
  FAILED_INITIALIZATION(6),
  FAILED_EXECUTION(7),
  FAILED_COMPUTATION(8),
  INVALID_STATE(9),
  UNSUPPORTED_STATE(10),
  /** A code this version does not know. */
  UNKNOWN(-1);

  private static final TrtErrorCode[] KNOWN = values();

  private final int code;

  TrtErrorCode(int code) {
    this.code = code;
  }

  /** The numeric value. */
  public int code() {
    return code;
  }

  /** The enum constant for {@code code}, or {@link #UNKNOWN}. */
  public static TrtErrorCode fromCode(int code) {
    return code >= 0 && code <= 10 ? KNOWN[code] : UNKNOWN;
  }

  /** The log kind an error with this code and no more specific category belongs to. */
  public TrtLogKind kind() {
    switch (this) {
      case INTERNAL_ERROR:
        return TrtLogKind.INTERNAL_ERROR;
      case INVALID_ARGUMENT:
      case INVALID_CONFIG:
      case INVALID_STATE:
      case UNSUPPORTED_STATE:
        return TrtLogKind.API_USAGE_ERROR;
      case FAILED_ALLOCATION:
        return TrtLogKind.OUT_OF_MEMORY;
      default:
        return TrtLogKind.OTHER;
    }
  }
}
