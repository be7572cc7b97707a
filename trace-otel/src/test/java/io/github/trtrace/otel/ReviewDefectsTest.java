package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.context.RequestContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Probes from a new user's review of trace-otel. */
class ReviewDefectsTest {
  private final OtelFixture fx = new OtelFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  /**
   * docs/opentelemetry.md: "metrics (low-cardinality attributes only ...)"; error.type labels fold into
   * _OTHER past 64 values, but the event counter takes every distinct host-supplied kind as a new series.
   */
  @Test
  void tensorRtEventCounterCardinalityIsBounded() throws Exception {
    for (int i = 0; i < 400; i++) {
      String id = "req-ev-" + i;
      RequestContext.with(id).build().call(() -> fx.tracer.call("m", t -> {
        t.event("oom " + id, "error", "out of memory");
        return 1;
      }));
    }
    MetricData events = fx.metric(GenAiConvention.METRIC_TENSORRT_EVENTS).orElseThrow();
    assertThat(events.getLongSumData().getPoints().size())
        .as("distinct (kind, severity) series of trtrace.tensorrt.events")
        .isLessThanOrEqualTo(257);
  }

  /** SharedLaunch#error: "every member's record gets error_type, an error status, and failed_launch_id". */
  @Test
  void failedSharedLaunchMarksMemberSpansAsErrors() throws Exception {
    InferenceTrace a = fx.tracer.start("llama-8b", "req-fl-a");
    InferenceTrace b = fx.tracer.start("llama-8b", "req-fl-b");
    try (SharedLaunch l = fx.tracer.launch("sha256:x")) {
      l.prefill(a, 10).decode(b).error("tensorrt.enqueue_failed");
    }
    a.close();
    b.close();
    var rec = fx.record("req-fl-a");
    SpanData launch = fx.span(GenAiConvention.SPAN_LAUNCH);
    assertThat(launch.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    SpanData span = fx.finished().stream()
        .filter(s -> "req-fl-a".equals(s.getAttributes().get(GenAiConvention.REQUEST_ID)))
        .findFirst().orElseThrow();
    assertThat(span.getStatus().getStatusCode()).as("record status " + rec.status() + " " + rec.errorType())
        .isEqualTo(StatusCode.ERROR);
    assertThat(span.getAttributes().get(GenAiConvention.ERROR_TYPE)).isEqualTo("tensorrt.enqueue_failed");
    assertThat(span.getAttributes().get(GenAiConvention.FAILED_LAUNCH_ID)).isEqualTo(rec.batching().failedLaunchId());
    HistogramPointData p = fx.metric(GenAiConvention.METRIC_REQUEST_DURATION).orElseThrow()
        .getHistogramData().getPoints().iterator().next();
    assertThat(p.getAttributes().get(GenAiConvention.ERROR_TYPE)).isEqualTo("tensorrt.enqueue_failed");
  }

  /**
   * docs/batching.md, "The record's batching fields": names are the same "(as trtrace.* attributes) on the
   * OpenTelemetry request span", and the table lists failed_launches; the span has only the last failed id.
   */
  @Test
  void failedLaunchCountReachesTheRequestSpan() throws Exception {
    InferenceTrace a = fx.tracer.start("llama-8b", "req-fc-a");
    for (int i = 0; i < 2; i++) {
      try (SharedLaunch l = fx.tracer.launch("sha256:x")) {
        l.decode(a).error("tensorrt.enqueue_failed");
      }
    }
    a.close();
    var rec = fx.record("req-fc-a");
    SpanData span = fx.span("text_completion llama-8b");
    assertThat(rec.batching().failedLaunches()).isEqualTo(2);
    assertThat(span.getAttributes().get(GenAiConvention.FAILED_LAUNCHES)).as("trtrace.launch.failed_count").isEqualTo(2L);
  }
}
