package io.github.trtrace.tensorrt.log;

import java.util.Objects;

/**
 * One error an {@code IErrorRecorder} received: TensorRT's code and description, as plain data.
 *
 * <pre>{@code
 * RecordedError e = new RecordedError(6, "IBuilder::buildSerializedNetwork: Error Code 6: ...");
 * }</pre>
 *
 * @param code the {@link TrtErrorCode} value
 * @param description TensorRT's description, unchanged
 */
public record RecordedError(int code, String description) {
  public RecordedError {
    Objects.requireNonNull(description, "description");
  }
}
