package io.github.trtrace.otel;

import static io.github.trtrace.otel.OtelFixture.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.context.RequestContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class RequestSpansTest {
  private final OtelFixture fx = new OtelFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  /** A decode loop with three engine launches, 41 ms in all, as the fixture's clock counts it. */
  private String serve(InferenceTrace t) {
    t.input("summarise\u202Ethis");
    t.maxTokens(64).temperature(0.7).topP(0.9);
    try (var q = t.stage(Stage.QUEUE)) {
      fx.advanceMs(5);
    }
    try (var p = t.stage(Stage.PREPROCESS)) {
      fx.advanceMs(2);
    }
    t.inputTokens(12);
    try (var d = t.stage(Stage.DECODE)) {
      for (int i = 0; i < 3; i++) {
        try (var launch = t.stage(Stage.INFER)) {
          fx.advanceMs(10);
          if (i == 1) {
            t.event("tensorrt.fusion_warning", "warning", "layer norm not fused");
          }
        }
        t.token();
        fx.advanceMs(1);
      }
    }
    t.finishReason("stop").engineFingerprint("fp-a1b2").addGpuMs(25);
    fx.advanceMs(1);
    return "ok";
  }

  private String run(String requestId, io.github.trtrace.core.InferenceTracer.TracedCallable<String, RuntimeException> body)
      throws Exception {
    return RequestContext.with(requestId).build().call(() -> fx.tracer.call("llama-8b", body));
  }

  @Test
  void oneServerSpanPerRequestWithStageChildrenAtTheTracesOwnTimes() throws Exception {
    run("req-spans-1", this::serve);

    SpanData root = fx.span("text_completion llama-8b");
    assertThat(root.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(root.getParentSpanContext().isValid()).isFalse();
    assertThat(root.getStartEpochNanos()).isEqualTo(at(0));
    assertThat(root.getEndEpochNanos()).isEqualTo(at(41));

    SpanData queue = fx.span("queue");
    assertThat(queue.getParentSpanId()).isEqualTo(root.getSpanId());
    assertThat(queue.getStartEpochNanos()).isEqualTo(at(0));
    assertThat(queue.getEndEpochNanos()).isEqualTo(at(5));
    SpanData pre = fx.span("preprocess");
    assertThat(pre.getStartEpochNanos()).isEqualTo(at(5));
    assertThat(pre.getEndEpochNanos()).isEqualTo(at(7));
    SpanData decode = fx.span("decode");
    assertThat(decode.getParentSpanId()).isEqualTo(root.getSpanId());
    assertThat(decode.getStartEpochNanos()).isEqualTo(at(7));
    assertThat(decode.getEndEpochNanos()).isEqualTo(at(40));

    List<SpanData> launches =
        fx.finished().stream().filter(s -> s.getName().equals("tensorrt.infer")).toList();
    assertThat(launches).hasSize(3);
    for (int i = 0; i < 3; i++) {
      SpanData l = launches.get(i);
      assertThat(l.getParentSpanId()).as("launch nests in decode").isEqualTo(decode.getSpanId());
      assertThat(l.getKind()).isEqualTo(SpanKind.INTERNAL);
      assertThat(l.getStartEpochNanos()).isEqualTo(at(7 + 11L * i));
      assertThat(l.getEndEpochNanos()).isEqualTo(at(17 + 11L * i));
    }
    assertThat(fx.finished()).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(root.getTraceId()));
  }

  @Test
  void requestSpanCarriesGenAiAndTrtraceAttributes() throws Exception {
    run("req-attrs-1", this::serve);
    SpanData root = fx.span("text_completion llama-8b");
    var a = root.getAttributes();
    assertThat(a.get(GenAiConvention.OPERATION_NAME)).isEqualTo("text_completion");
    assertThat(a.get(GenAiConvention.PROVIDER_NAME)).isEqualTo("tensorrt");
    assertThat(a.get(GenAiConvention.REQUEST_MODEL)).isEqualTo("llama-8b");
    assertThat(a.get(GenAiConvention.RESPONSE_MODEL)).isEqualTo("llama-8b");
    assertThat(a.get(GenAiConvention.USAGE_INPUT_TOKENS)).isEqualTo(12L);
    assertThat(a.get(GenAiConvention.USAGE_OUTPUT_TOKENS)).isEqualTo(3L);
    assertThat(a.get(GenAiConvention.REQUEST_MAX_TOKENS)).isEqualTo(64L);
    assertThat(a.get(GenAiConvention.REQUEST_TEMPERATURE)).isEqualTo(0.7);
    assertThat(a.get(GenAiConvention.REQUEST_TOP_P)).isEqualTo(0.9);
    assertThat(a.get(GenAiConvention.RESPONSE_FINISH_REASONS)).containsExactly("stop");
    assertThat(a.get(GenAiConvention.REQUEST_ID)).isEqualTo("req-attrs-1");
    assertThat(a.get(GenAiConvention.ENGINE_FINGERPRINT)).isEqualTo("fp-a1b2");
    assertThat(a.get(GenAiConvention.INPUT_FLAGS)).containsExactly("bidi_control");
    assertThat(a.get(GenAiConvention.STATUS)).isEqualTo("success");
    assertThat(a.get(GenAiConvention.QUEUE_TIME)).isEqualTo(0.005);
    // first token at 7 + 10 = 17 ms after arrival; marks at 17, 28, 39 -> 11 ms per token
    assertThat(a.get(GenAiConvention.TIME_TO_FIRST_TOKEN)).isEqualTo(0.017);
    assertThat(a.get(GenAiConvention.TIME_PER_OUTPUT_TOKEN)).isCloseTo(0.011, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(a.get(GenAiConvention.GPU_TIME)).isEqualTo(0.025);
    assertThat(a.get(GenAiConvention.ERROR_TYPE)).isNull();
    assertThat(root.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    // vLLM / SGLang keys
    assertThat(a.get(GenAiConvention.LATENCY_TIME_IN_QUEUE)).isEqualTo(0.005);
    assertThat(a.get(GenAiConvention.LATENCY_TIME_TO_FIRST_TOKEN)).isEqualTo(0.017);
    assertThat(a.get(GenAiConvention.LATENCY_TIME_IN_MODEL_PREFILL)).isCloseTo(0.012, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(a.get(GenAiConvention.LATENCY_TIME_IN_MODEL_DECODE)).isCloseTo(0.022, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(a.get(GenAiConvention.LATENCY_TIME_IN_MODEL_INFERENCE)).isCloseTo(0.036, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(a.get(GenAiConvention.LATENCY_E2E)).isEqualTo(0.041);
    // no content unless the host opts in
    assertThat(a.get(GenAiConvention.INPUT_MESSAGES)).isNull();
  }

  @Test
  void latencyKeysCanBeTurnedOff() throws Exception {
    try (OtelFixture off =
        new OtelFixture(
            io.opentelemetry.sdk.trace.samplers.Sampler.alwaysOn(),
            b -> b.latencyAttributes(false),
            io.github.trtrace.core.sampling.Sampler.always())) {
      RequestContext.with("req-nolat").build().call(() -> off.tracer.call("m", t -> {
        t.token();
        return 1;
      }));
      var a = off.span("text_completion m").getAttributes();
      assertThat(a.asMap().keySet()).noneMatch(k -> k.getKey().startsWith("gen_ai.latency."));
      assertThat(a.get(GenAiConvention.TIME_TO_FIRST_TOKEN)).isNotNull();
    }
  }

  @Test
  void tensorRtMessagesBecomeEventsOnTheLaunchSpanAtTheirOwnTime() throws Exception {
    run("req-events-1", this::serve);
    List<SpanData> launches =
        fx.finished().stream().filter(s -> s.getName().equals("tensorrt.infer")).toList();
    assertThat(launches.get(0).getEvents()).isEmpty();
    List<EventData> events = launches.get(1).getEvents();
    assertThat(events).hasSize(1);
    EventData e = events.get(0);
    assertThat(e.getName()).isEqualTo("tensorrt.fusion_warning");
    assertThat(e.getAttributes().get(GenAiConvention.EVENT_SEVERITY)).isEqualTo("warning");
    assertThat(e.getAttributes().get(GenAiConvention.EVENT_MESSAGE)).isEqualTo("layer norm not fused");
    assertThat(e.getEpochNanos()).isEqualTo(at(28)); // second launch started at 18, ran 10 ms
  }

  @Test
  void layerProfilesBecomeEventsSlowestFirstBounded() throws Exception {
    try (OtelFixture small =
        new OtelFixture(
            io.opentelemetry.sdk.trace.samplers.Sampler.alwaysOn(),
            b -> b.maxLayerEvents(2),
            io.github.trtrace.core.sampling.Sampler.always())) {
      RequestContext.with("req-layers").build().call(() -> small.tracer.call("m", t -> {
        t.layers(List.of(
            new InferenceRecord.LayerTime("embed", 1.0, 3),
            new InferenceRecord.LayerTime("attn.0", 7.5, 3),
            new InferenceRecord.LayerTime("mlp.0", 4.0, 3)));
        return 1;
      }));
      SpanData root = small.span("text_completion m");
      assertThat(root.getEvents()).extracting(EventData::getName).containsOnly(GenAiConvention.EVENT_LAYER);
      assertThat(root.getEvents())
          .extracting(ev -> ev.getAttributes().get(GenAiConvention.LAYER_NAME))
          .containsExactly("attn.0", "mlp.0");
      assertThat(root.getEvents().get(0).getAttributes().get(GenAiConvention.LAYER_DURATION)).isEqualTo(0.0075);
      assertThat(root.getEvents().get(0).getAttributes().get(GenAiConvention.LAYER_INVOCATIONS)).isEqualTo(3L);
      assertThat(root.getAttributes().get(GenAiConvention.LAYERS_OMITTED)).isEqualTo(1L);
    }
  }

  @Test
  void failureSetsErrorStatusAndErrorType() throws Exception {
    try {
      run("req-fail-1", t -> {
        fx.advanceMs(3);
        throw new IllegalStateException("engine lost");
      });
    } catch (IllegalStateException expected) {
      // rethrown unchanged by tracer.call
    }
    SpanData root = fx.span("text_completion llama-8b");
    assertThat(root.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(root.getAttributes().get(GenAiConvention.ERROR_TYPE)).isEqualTo("java.lang.IllegalStateException");
    assertThat(root.getAttributes().get(GenAiConvention.STATUS)).isEqualTo("error");
    assertThat(root.getAttributes().get(GenAiConvention.KEEP)).isTrue();
    assertThat(root.getAttributes().get(GenAiConvention.SAMPLED_REASON)).isEqualTo("error");
  }

  @Test
  void requestSpanIsCurrentInUserCodeSoHostSpansNestAndMdcCarriesTraceId() throws Exception {
    AtomicReference<SpanContext> current = new AtomicReference<>();
    AtomicReference<String> mdcTrace = new AtomicReference<>();
    AtomicReference<String> mdcSpan = new AtomicReference<>();
    MDC.put(GenAiConvention.MDC_TRACE_ID, "previous");
    run("req-current-1", t -> {
      current.set(Span.current().getSpanContext());
      mdcTrace.set(MDC.get(GenAiConvention.MDC_TRACE_ID));
      mdcSpan.set(MDC.get(GenAiConvention.MDC_SPAN_ID));
      Span host = fx.sdk.getTracer("host").spanBuilder("tokenizer.encode").startSpan();
      host.end();
      return "ok";
    });
    assertThat(MDC.get(GenAiConvention.MDC_TRACE_ID)).as("restored").isEqualTo("previous");
    assertThat(MDC.get(GenAiConvention.MDC_SPAN_ID)).as("removed").isNull();
    MDC.clear();
    assertThat(Span.current().getSpanContext().isValid()).isFalse();

    SpanData root = fx.span("text_completion llama-8b");
    assertThat(current.get().getSpanId()).isEqualTo(root.getSpanId());
    assertThat(mdcTrace.get()).isEqualTo(root.getTraceId());
    assertThat(mdcSpan.get()).isEqualTo(root.getSpanId());
    assertThat(fx.span("tokenizer.encode").getParentSpanId()).isEqualTo(root.getSpanId());

    InferenceRecord r = fx.record("req-current-1");
    assertThat(r.traceId()).isEqualTo(root.getTraceId());
    assertThat(r.spanId()).isEqualTo(root.getSpanId());
    assertThat(root.getAttributes().get(GenAiConvention.REQUEST_ID)).isEqualTo(r.requestId());
  }

  @Test
  void makeCurrentOnAnotherThreadMakesTheRequestSpanCurrentThere() throws Exception {
    ExecutorService worker = Executors.newSingleThreadExecutor();
    try {
      AtomicReference<String> seen = new AtomicReference<>();
      InferenceTrace t = fx.tracer.start("llama-8b");
      worker.submit(() -> {
        try (TraceScope s = t.makeCurrent()) {
          seen.set(Span.current().getSpanContext().getSpanId());
        }
        seen.compareAndSet(null, "none");
        assertThat(Span.current().getSpanContext().isValid()).isFalse();
      }).get(10, TimeUnit.SECONDS);
      t.close();
      assertThat(seen.get()).isEqualTo(fx.span("text_completion llama-8b").getSpanId());
    } finally {
      worker.shutdownNow();
    }
  }

  @Test
  void nestsAsInternalUnderTheHostsServerSpan() throws Exception {
    Span http = fx.sdk.getTracer("host").spanBuilder("POST /v1/completions").setSpanKind(SpanKind.SERVER).startSpan();
    try (Scope s = http.makeCurrent()) {
      run("req-nested-1", t -> "ok");
    }
    http.end();
    SpanData root = fx.span("text_completion llama-8b");
    assertThat(root.getKind()).isEqualTo(SpanKind.INTERNAL);
    assertThat(root.getParentSpanId()).isEqualTo(http.getSpanContext().getSpanId());
    assertThat(root.getTraceId()).isEqualTo(http.getSpanContext().getTraceId());
  }

  @Test
  void continuesAnExtractedRemoteParentAsServer() throws Exception {
    String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    Context parent =
        TraceHeaders.extractSingle(
            fx.sdk,
            Map.of("TraceParent", "00-" + traceId + "-00f067aa0ba902b7-01", "tracestate", "vendor=abc"));
    try (Scope s = parent.makeCurrent()) {
      run("req-remote-1", t -> "ok");
    }
    SpanData root = fx.span("text_completion llama-8b");
    assertThat(root.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(root.getTraceId()).isEqualTo(traceId);
    assertThat(root.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(root.getSpanContext().getTraceState().get("vendor")).isEqualTo("abc");
    assertThat(fx.record("req-remote-1").traceId()).isEqualTo(traceId);
  }

  @Test
  void contentIsCapturedOnlyWhenEnabledAndThenRedacted() throws Exception {
    run("req-nocontent", t -> {
      fx.otel.captureInput("my key is sk-proj-4f9a8b7c6d5e4f3a2b1c");
      return "ok";
    });
    assertThat(fx.span("text_completion llama-8b").getAttributes().get(GenAiConvention.INPUT_MESSAGES)).isNull();

    try (OtelFixture on =
        new OtelFixture(
            io.opentelemetry.sdk.trace.samplers.Sampler.alwaysOn(),
            b -> b.captureMessageContent(true),
            io.github.trtrace.core.sampling.Sampler.always())) {
      RequestContext.with("req-content").build().call(() -> on.tracer.call("m", t -> {
        on.otel.captureInput("mail bob@example.com, key sk-proj-4f9a8b7c6d5e4f3a2b1c \"quoted\"");
        on.otel.captureOutput("done");
        t.finishReason("stop");
        return 1;
      }));
      var a = on.span("text_completion m").getAttributes();
      String in = a.get(GenAiConvention.INPUT_MESSAGES);
      assertThat(in).doesNotContain("bob@example.com").doesNotContain("sk-proj");
      var parsed = new com.fasterxml.jackson.databind.ObjectMapper().readTree(in);
      assertThat(parsed.get(0).get("role").asText()).isEqualTo("user");
      assertThat(parsed.get(0).get("parts").get(0).get("content").asText())
          .isEqualTo("mail [EMAIL], key [SECRET] \"quoted\"");
      var out = new com.fasterxml.jackson.databind.ObjectMapper().readTree(a.get(GenAiConvention.OUTPUT_MESSAGES));
      assertThat(out.get(0).get("role").asText()).isEqualTo("assistant");
      assertThat(out.get(0).get("finish_reason").asText()).isEqualTo("stop");
      assertThat(out.get(0).get("parts").get(0).get("content").asText()).isEqualTo("done");
    }
  }

  @Test
  void aStageLeftOpenEndsWithTheRequestSpan() throws Exception {
    InferenceTrace t = fx.tracer.start("llama-8b");
    t.stage(Stage.DECODE);
    fx.advanceMs(4);
    t.close();
    SpanData decode = fx.span("decode");
    assertThat(decode.getEndEpochNanos()).isEqualTo(at(4));
    assertThat(fx.span("text_completion llama-8b").getEndEpochNanos()).isEqualTo(at(4));
  }
}
