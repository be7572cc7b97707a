package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.sampling.Sampler;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The policy (docs/opentelemetry.md, "Sampling"): spans follow the host's sampler, records follow trtrace's; each
 * span says whether its record was kept and why, for a collector's tail sampling.
 */
class SamplingInterplayTest {

  @Test
  void headSampledOutSpanStillLeavesALinkedRecordAndMetrics() throws Exception {
    try (OtelFixture fx =
        new OtelFixture(
            io.opentelemetry.sdk.trace.samplers.Sampler.parentBased(
                io.opentelemetry.sdk.trace.samplers.Sampler.alwaysOn()),
            b -> {},
            Sampler.builder().build())) {
      SpanContext unsampled =
          SpanContext.createFromRemoteParent(
              "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", TraceFlags.getDefault(), TraceState.getDefault());
      try (Scope s = Context.root().with(Span.wrap(unsampled)).makeCurrent()) {
        RequestContext.with("req-headout").build().call(() -> fx.tracer.call("m", t -> {
          fx.advanceMs(30);
          throw new IllegalStateException("boom");
        }));
      } catch (IllegalStateException expected) {
        // rethrown by tracer.call
      }
      assertThat(fx.finished()).as("the host's sampler dropped the span").isEmpty();
      InferenceRecord r = fx.record("req-headout");
      assertThat(r.sampledReason()).isEqualTo("error");
      assertThat(r.traceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
      HistogramPointData p =
          fx.metric(GenAiConvention.METRIC_REQUEST_DURATION).orElseThrow().getHistogramData().getPoints().iterator().next();
      assertThat(p.getCount()).isEqualTo(1);
      assertThat(p.getAttributes().get(GenAiConvention.ERROR_TYPE)).isEqualTo("java.lang.IllegalStateException");
    }
  }

  @Test
  void recordSampledOutBySdkStillExportsTheSpanMarkedNotKept() throws Exception {
    try (OtelFixture fx =
        new OtelFixture(
            io.opentelemetry.sdk.trace.samplers.Sampler.alwaysOn(), b -> {}, Sampler.builder().rate(0.0).build())) {
      RequestContext.with("req-recordout").build().call(() -> fx.tracer.call("m", t -> 1));
      SpanData root = fx.span("text_completion m");
      assertThat(root.getAttributes().get(GenAiConvention.SAMPLED_REASON)).isNull();
      assertThat(root.getAttributes().get(GenAiConvention.KEEP)).isFalse();
      fx.tracer.flush().join();
      assertThat(fx.sink.findByRequestId("req-recordout")).isEmpty();
      assertThat(fx.tracer.stats().sampledOut()).isEqualTo(1);
    }
  }

  @Test
  void slowRequestIsMarkedForTailSampling() throws Exception {
    try (OtelFixture fx =
        new OtelFixture(
            io.opentelemetry.sdk.trace.samplers.Sampler.alwaysOn(),
            b -> {},
            Sampler.builder().rate(0.0).slowThreshold(Duration.ofMillis(100)).build())) {
      RequestContext.with("req-fast").build().call(() -> fx.tracer.call("m", t -> {
        fx.advanceMs(5);
        return 1;
      }));
      RequestContext.with("req-slow").build().call(() -> fx.tracer.call("m", t -> {
        fx.advanceMs(250);
        return 1;
      }));
      SpanData fast = spanOf(fx, "req-fast");
      SpanData slow = spanOf(fx, "req-slow");
      assertThat(fast.getAttributes().get(GenAiConvention.KEEP)).isFalse();
      assertThat(slow.getAttributes().get(GenAiConvention.KEEP)).isTrue();
      assertThat(slow.getAttributes().get(GenAiConvention.SAMPLED_REASON)).isEqualTo("slow");
      assertThat(fx.record("req-slow").traceId()).isEqualTo(slow.getTraceId());
    }
  }

  private static SpanData spanOf(OtelFixture fx, String requestId) {
    return fx.finished().stream()
        .filter(s -> requestId.equals(s.getAttributes().get(GenAiConvention.REQUEST_ID)))
        .findFirst()
        .orElseThrow();
  }
}
