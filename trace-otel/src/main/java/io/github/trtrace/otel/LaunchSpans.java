package io.github.trtrace.otel;

import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.TraceListener;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Shared launches in OpenTelemetry (issue 17): one span per launch, a root of its own, linked to every
 * member's request span (span links are OpenTelemetry's idiom for batched work; TGI links its request
 * spans to the batch span the same way), each link carrying that member's GPU share; and two
 * histograms, members per launch and launch duration, labelled by phase only (never a request ID).
 * The request span's summary attributes come from the record ({@link #annotate}).
 */
final class LaunchSpans {
  private final Tracer tracer;
  private final LongHistogram batchSize;
  private final DoubleHistogram duration;
  private final Attributes[] phaseAttributes;

  LaunchSpans(Tracer tracer, Meter meter) {
    this.tracer = tracer;
    this.batchSize = meter.histogramBuilder(GenAiConvention.METRIC_LAUNCH_BATCH_SIZE)
        .setDescription("Requests per shared engine launch (batch size), by phase.")
        .setUnit("{request}")
        .ofLongs()
        .setExplicitBucketBoundariesAdvice(GenAiConvention.BUCKETS_LAUNCH_BATCH_SIZE)
        .build();
    this.duration = meter.histogramBuilder(GenAiConvention.METRIC_LAUNCH_DURATION)
        .setDescription("Host time of one shared engine launch, by phase.")
        .setUnit(GenAiConvention.UNIT_SECONDS)
        .setExplicitBucketBoundariesAdvice(GenAiConvention.BUCKETS_LAUNCH_DURATION)
        .build();
    SharedLaunch.Phase[] phases = SharedLaunch.Phase.values();
    this.phaseAttributes = new Attributes[phases.length];
    for (SharedLaunch.Phase p : phases) {
      phaseAttributes[p.ordinal()] = Attributes.of(GenAiConvention.LAUNCH_PHASE, p.wireName());
    }
  }

  void onLaunch(SharedLaunch.Ended l, List<TraceListener.@Nullable Handle> members) {
    Attributes phase = phaseAttributes[l.phase().ordinal()];
    batchSize.record(l.batchSize(), phase);
    duration.record(l.hostMs() / 1000.0, phase);
    SpanBuilder b = tracer.spanBuilder(GenAiConvention.SPAN_LAUNCH)
        .setNoParent()
        .setSpanKind(SpanKind.INTERNAL)
        .setStartTimestamp(l.startEpochNanos(), TimeUnit.NANOSECONDS)
        .setAttribute(GenAiConvention.LAUNCH_ID, l.id())
        .setAttribute(GenAiConvention.LAUNCH_PHASE, l.phase().wireName())
        .setAttribute(GenAiConvention.LAUNCH_BATCH_SIZE, (long) l.batchSize())
        .setAttribute(GenAiConvention.LAUNCH_PREFILL_TOKENS, l.prefillTokens())
        .setAttribute(GenAiConvention.LAUNCH_DECODE_ROWS, (long) l.decodeRows());
    String fingerprint = l.engineFingerprint();
    if (fingerprint != null) {
      b.setAttribute(GenAiConvention.ENGINE_FINGERPRINT, io.github.trtrace.core.RecordConvention.text(fingerprint));
    }
    boolean timed = !Double.isNaN(l.gpuMs());
    if (timed) {
      b.setAttribute(GenAiConvention.LAUNCH_GPU_TIME, l.gpuMs() / 1000.0)
          .setAttribute(GenAiConvention.SHARE_METHOD, l.shareMethod().wireName());
    }
    for (int i = 0; i < members.size(); i++) {
      TraceListener.Handle h = members.get(i);
      if (h instanceof RequestSpan rs) {
        SpanContext member = rs.spanContext();
        if (member.isValid()) {
          b.addLink(member, timed
              ? Attributes.of(GenAiConvention.REQUEST_ID, l.memberRequestId(i), GenAiConvention.GPU_SHARE, l.memberShareMs(i) / 1000.0)
              : Attributes.of(GenAiConvention.REQUEST_ID, l.memberRequestId(i)));
        }
      }
    }
    Span span = b.startSpan();
    String error = l.errorType();
    if (error != null) {
      String type = io.github.trtrace.core.RecordConvention.text(error);
      span.setAttribute(GenAiConvention.ERROR_TYPE, type);
      span.setStatus(StatusCode.ERROR, type);
    }
    span.end(l.endEpochNanos(), TimeUnit.NANOSECONDS);
  }

  /** The record's batching summary on its request span. */
  static void annotate(Span s, SharedLaunch.@Nullable Summary b) {
    if (b == null) {
      return;
    }
    if (b.launchCount() > 0) {
      s.setAttribute(GenAiConvention.LAUNCH_COUNT, (long) b.launchCount());
      s.setAttribute(GenAiConvention.FIRST_LAUNCH_ID, b.firstLaunchId());
      s.setAttribute(GenAiConvention.LAST_LAUNCH_ID, b.lastLaunchId());
      s.setAttribute(GenAiConvention.BATCH_SIZE_MEAN, b.batchSizeMean());
      s.setAttribute(GenAiConvention.BATCH_SIZE_MAX, (long) b.batchSizeMax());
    }
    if (b.shareMethod() != null) {
      s.setAttribute(GenAiConvention.SHARE_METHOD, b.shareMethod());
    }
    if (b.slotWaitMs() > 0) {
      s.setAttribute(GenAiConvention.SLOT_WAIT_TIME, b.slotWaitMs() / 1000.0);
    }
    if (b.neighbourPrefillLaunches() > 0) {
      s.setAttribute(GenAiConvention.NEIGHBOUR_PREFILL_LAUNCHES, (long) b.neighbourPrefillLaunches());
      s.setAttribute(GenAiConvention.NEIGHBOUR_PREFILL_TIME, b.neighbourPrefillMs() / 1000.0);
    }
    if (!b.slowedBy().isEmpty()) {
      List<String> slowedBy = new ArrayList<>(b.slowedBy().size());
      for (SharedLaunch.Neighbour n : b.slowedBy()) {
        slowedBy.add(io.github.trtrace.core.RecordConvention.text(n.requestId()) + ":" + n.prefillTokens());
      }
      s.setAttribute(GenAiConvention.SLOWED_BY, slowedBy);
    }
    if (b.preemptions() > 0) {
      s.setAttribute(GenAiConvention.PREEMPTIONS, (long) b.preemptions());
      s.setAttribute(GenAiConvention.PREEMPTED_TIME, b.preemptedMs() / 1000.0);
    }
    if (b.failedLaunches() > 0) {
      s.setAttribute(GenAiConvention.FAILED_LAUNCHES, (long) b.failedLaunches());
      s.setAttribute(GenAiConvention.FAILED_LAUNCH_ID, b.failedLaunchId());
    }
  }
}
