package io.github.trtrace.tensorrt.shim;

import java.util.Objects;

/**
 * One error TensorRT reported to a {@link ShimErrorRecorder}.
 *
 * <pre>{@code
 * for (RecordedError e : recorder.drain()) log.error("TensorRT {} ({}): {}", e.codeName(), e.code(), e.description());
 * }</pre>
 *
 * @param code the {@code nvinfer1::ErrorCode} value
 * @param codeName its enum name, e.g. {@code kFAILED_INITIALIZATION}, or {@code UNKNOWN(<code>)}
 * @param description TensorRT's description (at most 4096 characters)
 * @param epochMicros when TensorRT reported it, microseconds since the epoch
 */
public record RecordedError(int code, String codeName, String description, long epochMicros) {

  private static final String[] NAMES = {
    "kSUCCESS", "kUNSPECIFIED_ERROR", "kINTERNAL_ERROR", "kINVALID_ARGUMENT", "kINVALID_CONFIG",
    "kFAILED_ALLOCATION", "kFAILED_INITIALIZATION", "kFAILED_EXECUTION", "kFAILED_COMPUTATION",
    "kINVALID_STATE", "kUNSUPPORTED_STATE"
  };

  public RecordedError {
    Objects.requireNonNull(codeName, "codeName");
    Objects.requireNonNull(description, "description");
  }

  /** An error with the code name looked up from TensorRT's {@code ErrorCode} enum. */
  public static RecordedError of(int code, String description, long epochMicros) {
    return new RecordedError(code, codeName(code), description, epochMicros);
  }

  /** The name of TensorRT 10's {@code nvinfer1::ErrorCode} {@code code}, or {@code UNKNOWN(<code>)}. */
  public static String codeName(int code) {
    return code >= 0 && code < NAMES.length ? NAMES[code] : "UNKNOWN(" + code + ")";
  }
}
