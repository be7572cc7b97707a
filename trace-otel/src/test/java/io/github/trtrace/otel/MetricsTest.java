package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.sink.RecordSink;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MetricsTest {
  private final OtelFixture fx = new OtelFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  private void request(String id, long queueMs, int tokens) throws Exception {
    RequestContext.with(id).build().call(() -> fx.tracer.call("llama-8b", t -> {
      try (var q = t.stage(io.github.trtrace.core.Stage.QUEUE)) {
        fx.advanceMs(queueMs);
      }
      t.inputTokens(20);
      fx.advanceMs(50);
      for (int i = 0; i < tokens; i++) {
        t.token();
        fx.advanceMs(20);
      }
      return 1;
    }));
  }

  private static HistogramPointData onlyPoint(MetricData m) {
    assertThat(m.getHistogramData().getPoints()).hasSize(1);
    return m.getHistogramData().getPoints().iterator().next();
  }

  @Test
  void genAiServerMetricsUseTheConventionsBuckets() throws Exception {
    request("req-m1", 10, 5);
    request("req-m2", 30, 5);

    MetricData duration = fx.metric(GenAiConvention.METRIC_REQUEST_DURATION).orElseThrow();
    assertThat(duration.getUnit()).isEqualTo("s");
    HistogramPointData d = onlyPoint(duration);
    assertThat(d.getBoundaries()).isEqualTo(GenAiConvention.BUCKETS_REQUEST_DURATION);
    assertThat(d.getCount()).isEqualTo(2);
    // 10+50+100 and 30+50+100 ms
    assertThat(d.getSum()).isCloseTo(0.16 + 0.18, org.assertj.core.data.Offset.offset(1e-9));

    HistogramPointData ttft = onlyPoint(fx.metric(GenAiConvention.METRIC_TIME_TO_FIRST_TOKEN).orElseThrow());
    assertThat(ttft.getBoundaries()).isEqualTo(GenAiConvention.BUCKETS_TIME_TO_FIRST_TOKEN);
    assertThat(ttft.getSum()).isCloseTo(0.06 + 0.08, org.assertj.core.data.Offset.offset(1e-9));
    HistogramPointData tpot = onlyPoint(fx.metric(GenAiConvention.METRIC_TIME_PER_OUTPUT_TOKEN).orElseThrow());
    assertThat(tpot.getBoundaries()).isEqualTo(GenAiConvention.BUCKETS_TIME_PER_OUTPUT_TOKEN);
    assertThat(tpot.getSum()).isCloseTo(0.04, org.assertj.core.data.Offset.offset(1e-9));
    HistogramPointData queue = onlyPoint(fx.metric(GenAiConvention.METRIC_QUEUE_DURATION).orElseThrow());
    assertThat(queue.getSum()).isCloseTo(0.04, org.assertj.core.data.Offset.offset(1e-9));

    MetricData usage = fx.metric(GenAiConvention.METRIC_TOKEN_USAGE).orElseThrow();
    assertThat(usage.getHistogramData().getPoints())
        .extracting(p -> p.getAttributes().get(GenAiConvention.TOKEN_TYPE), HistogramPointData::getSum)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("input", 40.0), org.assertj.core.groups.Tuple.tuple("output", 10.0));

    Attributes a = d.getAttributes();
    assertThat(a.get(GenAiConvention.OPERATION_NAME)).isEqualTo("text_completion");
    assertThat(a.get(GenAiConvention.PROVIDER_NAME)).isEqualTo("tensorrt");
    assertThat(a.get(GenAiConvention.REQUEST_MODEL)).isEqualTo("llama-8b");
    assertThat(a.get(GenAiConvention.RESPONSE_MODEL)).isEqualTo("llama-8b");
    for (MetricData m : fx.allMetrics()) {
      assertThat(m.getData().getPoints())
          .as("no request ID on metric %s", m.getName())
          .allSatisfy(p -> assertThat(p.getAttributes().get(GenAiConvention.REQUEST_ID)).isNull());
    }
  }

  @Test
  void failedRequestsCountInDurationByErrorTypeButNotInTokenLatency() throws Exception {
    RequestContext.with("req-err").build().call(() -> fx.tracer.call("llama-8b", t -> {
      t.token();
      t.error("tensorrt.oom");
      return 1;
    }));
    HistogramPointData d = onlyPoint(fx.metric(GenAiConvention.METRIC_REQUEST_DURATION).orElseThrow());
    assertThat(d.getAttributes().get(GenAiConvention.ERROR_TYPE)).isEqualTo("tensorrt.oom");
    assertThat(fx.metric(GenAiConvention.METRIC_TIME_TO_FIRST_TOKEN)).isEmpty();
  }

  @Test
  void errorTypesOnTheDurationMetricAreBoundedSoFreeTextCannotExplodeCardinality() throws Exception {
    int n = Instruments.MAX_ERROR_TYPES + 20;
    for (int i = 0; i < n; i++) {
      String type = "failure with message " + i;                  // a host passing messages as error types
      RequestContext.with("req-card-" + i).build().call(() -> fx.tracer.call("llama-8b", t -> {
        t.error(type);
        return 1;
      }));
    }
    List<String> labels = fx.metric(GenAiConvention.METRIC_REQUEST_DURATION).orElseThrow()
        .getHistogramData().getPoints().stream()
        .map(p -> p.getAttributes().get(GenAiConvention.ERROR_TYPE)).toList();
    assertThat(labels).hasSize(Instruments.MAX_ERROR_TYPES + 1).contains(Instruments.OTHER_ERROR_TYPE);
  }

  @Test
  void tensorRtEventsAreCountedByKindAndSeverity() throws Exception {
    RequestContext.with("req-ev").build().call(() -> fx.tracer.call("llama-8b", t -> {
      t.event("tensorrt.out_of_memory", "error", "cudaMalloc failed");
      t.event("tensorrt.fusion", "warning", "not fused");
      t.event("tensorrt.fusion", "warning", "not fused either");
      return 1;
    }));
    MetricData events = fx.metric(GenAiConvention.METRIC_TENSORRT_EVENTS).orElseThrow();
    assertThat(events.getLongSumData().getPoints())
        .extracting(
            p -> p.getAttributes().get(GenAiConvention.EVENT_KIND),
            p -> p.getAttributes().get(GenAiConvention.EVENT_SEVERITY),
            LongPointData::getValue)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("tensorrt.out_of_memory", "error", 1L),
            org.assertj.core.groups.Tuple.tuple("tensorrt.fusion", "warning", 2L));
  }

  @Test
  void engineBuildsAreRecordedByOutcome() {
    fx.otel.recordEngineBuild(Duration.ofSeconds(42), 0.8, true);
    fx.otel.recordEngineBuild(Duration.ofSeconds(3), Double.NaN, false);
    MetricData build = fx.metric(GenAiConvention.METRIC_BUILD_DURATION).orElseThrow();
    assertThat(build.getHistogramData().getPoints())
        .extracting(p -> p.getAttributes().get(GenAiConvention.BUILD_STATUS), HistogramPointData::getSum)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("success", 42.0), org.assertj.core.groups.Tuple.tuple("failure", 3.0));
    HistogramPointData fusion = onlyPoint(fx.metric(GenAiConvention.METRIC_BUILD_FUSION_RATE).orElseThrow());
    assertThat(fusion.getSum()).isEqualTo(0.8);
    assertThat(fusion.getBoundaries()).isEqualTo(GenAiConvention.BUCKETS_FUSION_RATE);
  }

  @Test
  void sdkHealthIsObservedFromTheTracersCounters() throws Exception {
    // A tracer whose only sink blocks on its first batch (so the one-slot queue fills and the rest
    // is dropped), then fails every batch: every health counter moves, deterministically.
    java.util.concurrent.CountDownLatch inWrite = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    RecordSink failing = RecordSink.named("broken", batch -> {
      inWrite.countDown();
      try {
        release.await(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("disk gone");
    });
    try (InferenceTracer t =
            InferenceTracer.builder().sink(failing).queueCapacity(1).queueFullPolicy(QueueFullPolicy.DROP).build();
        AutoCloseable obs = fx.otel.observe(t)) {
      t.start("m").close();
      assertThat(inWrite.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < 50; i++) {
        t.start("m").close();
      }
      release.countDown();
      t.flush().get();
      List<MetricData> all = List.copyOf(fx.allMetrics());
      long dropped = sum(all, GenAiConvention.METRIC_RECORDS_DROPPED, "queue_full");
      long lost = sumSink(all, GenAiConvention.METRIC_SINK_RECORDS_LOST, "broken");
      long failures = sumSink(all, GenAiConvention.METRIC_SINK_FAILURES, "broken");
      // Compared through the one adapter that reads the core's counters, so a renamed stats field
      // is one edit (Instruments.Health.of); that the counters moved at all is asserted as well.
      Instruments.Health h = Instruments.Health.of(t.stats());
      assertThat(dropped).isEqualTo(h.droppedQueueFull).isPositive();
      assertThat(h.sinks).singleElement().satisfies(k -> {
        assertThat(k.name).isEqualTo("broken");
        assertThat(lost).isEqualTo(k.lost).isPositive();
      });
      assertThat(failures).isPositive();
      assertThat(all).anySatisfy(m -> assertThat(m.getName()).isEqualTo(GenAiConvention.METRIC_QUEUE_DEPTH));
      assertThat(all).anySatisfy(m -> assertThat(m.getName()).isEqualTo(GenAiConvention.METRIC_RECORDS_WRITTEN));
    }
  }

  private static long sum(List<MetricData> all, String name, String reason) {
    return all.stream().filter(m -> m.getName().equals(name))
        .flatMap(m -> m.getLongSumData().getPoints().stream())
        .filter(p -> reason.equals(p.getAttributes().get(GenAiConvention.DROP_REASON)))
        .mapToLong(LongPointData::getValue).sum();
  }

  private static long sumSink(List<MetricData> all, String name, String sink) {
    return all.stream().filter(m -> m.getName().equals(name))
        .flatMap(m -> m.getLongSumData().getPoints().stream())
        .filter(p -> sink.equals(p.getAttributes().get(GenAiConvention.SINK_NAME)))
        .mapToLong(LongPointData::getValue).sum();
  }
}
