package io.github.trtrace.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.TraceParent;
import io.github.trtrace.testing.InMemorySink;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** {@link TracedRequest#call} / {@link TracedRequest#run}: the honest outcome without a nested try. */
class TracedRequestCallTest {

  /** A request as a filter hands it over, for an ID of the caller's. */
  private static TracedRequest request(String id) {
    return new TracedRequest() {
      @Override public String requestId() { return id; }
      @Override public boolean requestIdGenerated() { return false; }
      @Override public @Nullable String rejectedRequestId() { return null; }
      @Override public Optional<TraceParent> traceParent() { return Optional.empty(); }
      @Override public @Nullable String traceState() { return null; }
      @Override public RequestContext context() { return RequestContext.with(id).build(); }
      @Override public InferenceTrace startTrace(InferenceTracer tracer, String modelName) {
        return tracer.start(modelName, id);
      }
    };
  }

  @Test
  void aThrowingHandlerIsRecordedAsAnErrorAndTheExceptionReachesTheCaller() throws Exception {
    InMemorySink sink = InMemorySink.create();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).build()) {
      IllegalStateException boom = new IllegalStateException("engine failed");
      assertThatThrownBy(() -> request("api-demo-0001").run(tracer, "m", t -> {
        assertThat(MDC.get("request_id")).isEqualTo("api-demo-0001"); // the trace is current in the body
        throw boom;
      })).isSameAs(boom);
      String answer = request("api-demo-0002").call(tracer, "m", t -> "ok");
      assertThat(answer).isEqualTo("ok");
      tracer.flush().get();
    }
    InferenceRecord failed = sink.findByRequestId("api-demo-0001").orElseThrow();
    assertThat(failed.status()).isEqualTo(Status.ERROR);
    assertThat(failed.errorType()).isEqualTo(IllegalStateException.class.getName());
    assertThat(sink.findByRequestId("api-demo-0002").orElseThrow().status()).isEqualTo(Status.SUCCESS);
  }
}
