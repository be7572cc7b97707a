package io.github.trtrace.tensorrt.model.log;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One classified, redacted TensorRT log line.
 *
 * <pre>{@code
 * pipeline.onEvent(e -> { if (e.kind() == TrtLogKind.OUT_OF_MEMORY) alert(e.requestId()); });
 * }</pre>
 *
 * @param severity TensorRT severity
 * @param kind what the line is about
 * @param errorCode the {@code N} of {@code "Error Code N: ..."}, or -1
 * @param errorCategory the text after the code, e.g. {@code "API Usage Error"}, or null. Added to the
 *     brief's field list so build reports keep {code, category, message} without re-parsing.
 * @param message the message after redaction
 * @param threadName thread TensorRT called back on
 * @param epochMicros wall-clock time of the callback, microseconds since the epoch
 * @param requestId the request the line is attributed to, or null
 * @param scope the innermost open scope, e.g. {@code "build:llama-8b"}, or null
 */
public record TrtLogEvent(
    TrtSeverity severity,
    TrtLogKind kind,
    int errorCode,
    @Nullable String errorCategory,
    String message,
    String threadName,
    long epochMicros,
    @Nullable String requestId,
    @Nullable String scope) {
  public TrtLogEvent {
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(threadName, "threadName");
  }

  /** Whether the line is an error ({@link TrtSeverity#ERROR} or {@link TrtSeverity#INTERNAL_ERROR}). */
  public boolean isError() {
    return severity.isAtLeast(TrtSeverity.ERROR);
  }
}
