package io.github.trtrace.http.internal;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.context.TraceParent;
import io.github.trtrace.http.TracedRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What both filters share: deciding the request ID and trace context from header values, starting traces
 * under the request's context, and the rejected record and response body. Not API.
 */
public final class RequestTracing {
  /** The request/exchange attribute under which the filters keep the {@link TracedRequest}. */
  public static final String ATTRIBUTE = TracedRequest.class.getName();
  /** The record attribute holding the HTTP status of a rejection. */
  public static final String HTTP_STATUS_ATTRIBUTE = "http_status";

  private RequestTracing() {}

  /**
   * Decides the request from the header values. Several {@code X-Request-ID} values are ambiguous: they are
   * rejected together (joined with {@code ','}, which no valid ID contains) and an ID is generated. The
   * {@code traceparent} is parsed here, once: the parent goes into the request's context, where the record
   * (through the tracer) and trace-otel's span (through its listener) both read it.
   */
  public static TracedRequest accept(
      List<String> requestIdValues, @Nullable String traceparent, @Nullable String tracestate) {
    String header = requestIdValues.isEmpty() ? null
        : requestIdValues.size() == 1 ? requestIdValues.get(0) : String.join(",", requestIdValues);
    RequestIds.Accepted accepted = RequestIds.accept(header);
    Optional<TraceParent> parent = TraceParent.parse(traceparent, tracestate);
    RequestContext context = accepted.toContext().traceParent(parent.orElse(null)).build();
    return new Accepted(accepted, context, parent, tracestate);
  }

  /**
   * The {@code traceparent} header value when exactly one came; null for none or several (W3C Trace
   * Context's test suite: two {@code traceparent} headers are invalid and the request starts a new trace).
   */
  public static @Nullable String traceParent(List<String> values) {
    return values.size() == 1 ? values.get(0) : null;
  }

  /**
   * The {@code tracestate} header values as one list, in order (W3C Trace Context: several headers are
   * allowed and combined as RFC 7230 combines a list header); null when there is none.
   */
  public static @Nullable String traceState(List<String> values) {
    return values.isEmpty() ? null : values.size() == 1 ? values.get(0) : String.join(",", values);
  }

  /**
   * Writes the {@code rejected} record of a request the host turned away (overload) and returns the JSON
   * body to answer with.
   *
   * @throws IllegalArgumentException when {@code httpStatus} is not 429 or 503
   */
  public static byte[] recordRejected(TracedRequest request, InferenceTracer tracer, String modelName, int httpStatus) {
    checkRejectStatus(httpStatus);
    Objects.requireNonNull(tracer, "tracer");
    try (InferenceTrace t = request.startTrace(tracer, modelName)) {
      t.status(Status.REJECTED).attribute(HTTP_STATUS_ATTRIBUTE, Integer.toString(httpStatus));
    }
    String error = httpStatus == 429 ? "too_many_requests" : "service_unavailable";
    // The ID is from RequestIds' safe set: nothing in it needs JSON escaping.
    return ("{\"error\":\"" + error + "\",\"request_id\":\"" + request.requestId() + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Rejections are overload answers: 429 (this client, slow down) or 503 (the service is saturated). */
  public static void checkRejectStatus(int httpStatus) {
    if (httpStatus != 429 && httpStatus != 503) {
      throw new IllegalArgumentException(
          "a rejected request is answered with 429 or 503, not " + httpStatus
              + " (record other failures with InferenceTrace.error/status)");
    }
  }

  private record Accepted(
      RequestIds.Accepted accepted, RequestContext context, Optional<TraceParent> traceParent,
      @Nullable String traceState) implements TracedRequest {

    @Override
    public String requestId() {
      return accepted.id();
    }

    @Override
    public boolean requestIdGenerated() {
      return accepted.generated();
    }

    @Override
    public @Nullable String rejectedRequestId() {
      return accepted.rejectedValue();
    }

    @Override
    public InferenceTrace startTrace(InferenceTracer tracer, String modelName) {
      // Started under the request's context, which carries the parsed traceparent: the tracer links the
      // record to it, and a listener exporting spans (trace-otel) parents its span on it.
      try {
        return context.call(() -> tracer.start(modelName));
      } catch (Exception e) { // tracer.start never throws; keep the compiler happy without hiding a bug
        throw new IllegalStateException(e);
      }
    }

    @Override
    public String toString() {
      return "TracedRequest[" + accepted.id() + (accepted.generated() ? " (generated)" : "") + "]";
    }
  }
}
