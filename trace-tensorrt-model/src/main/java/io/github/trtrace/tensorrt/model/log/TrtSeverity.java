package io.github.trtrace.tensorrt.model.log;

/**
 * TensorRT's {@code ILogger::Severity}, with the same numeric codes.
 *
 * <pre>{@code
 * TrtSeverity s = TrtSeverity.fromCode(2); // WARNING
 * }</pre>
 */
public enum TrtSeverity {
  INTERNAL_ERROR(0, "error"),
  ERROR(1, "error"),
  WARNING(2, "warning"),
  INFO(3, "info"),
  VERBOSE(4, "verbose");

  private static final TrtSeverity[] BY_CODE = values();

  private final int code;
  private final String recordSeverity;

  TrtSeverity(int code, String recordSeverity) {
    this.code = code;
    this.recordSeverity = recordSeverity;
  }

  /** TensorRT's numeric value ({@code kINTERNAL_ERROR} = 0 ... {@code kVERBOSE} = 4). */
  public int code() {
    return code;
  }

  /** The severity word used in record events: {@code error}, {@code warning}, {@code info}, {@code verbose}. */
  public String recordSeverity() {
    return recordSeverity;
  }

  /** Whether this severity is at least as severe as {@code threshold} (lower code = more severe). */
  public boolean isAtLeast(TrtSeverity threshold) {
    return code <= threshold.code;
  }

  /**
   * The severity for a TensorRT code. Codes outside 0..4 (never sent by TensorRT 10) are sanitized:
   * negative to {@link #INTERNAL_ERROR}, larger to {@link #VERBOSE}.
   */
  public static TrtSeverity fromCode(int code) {
    if (code < 0) {
      return INTERNAL_ERROR;
    }
    return code >= BY_CODE.length ? VERBOSE : BY_CODE[code];
  }
}
