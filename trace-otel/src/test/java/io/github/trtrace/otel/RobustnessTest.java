package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.Stage;
import io.github.trtrace.testing.InMemorySink;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerBuilder;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Recording never throws into the host; bad options fail at build time with a clear message. */
class RobustnessTest {

  /** An OpenTelemetry whose tracer throws on every span: a broken SDK or a hostile extension. */
  private static OpenTelemetry throwingTracer() {
    Tracer broken = name -> {
      throw new IllegalStateException("span builder broken");
    };
    TracerProvider provider = new TracerProvider() {
      @Override
      public Tracer get(String name) {
        return broken;
      }

      @Override
      public Tracer get(String name, String version) {
        return broken;
      }

      @Override
      public TracerBuilder tracerBuilder(String name) {
        return TracerProvider.noop().tracerBuilder(name);
      }
    };
    return new OpenTelemetry() {
      @Override
      public TracerProvider getTracerProvider() {
        return provider;
      }

      @Override
      public MeterProvider getMeterProvider() {
        return MeterProvider.noop();
      }

      @Override
      public ContextPropagators getPropagators() {
        return ContextPropagators.noop();
      }
    };
  }

  @Test
  void aFailingSdkIsCountedAndTheRequestIsStillRecorded() throws Exception {
    TrtraceOpenTelemetry otel = TrtraceOpenTelemetry.create(throwingTracer());
    InMemorySink sink = InMemorySink.create();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).listener(otel).build()) {
      int result = tracer.call("m", t -> {
        t.runStage(Stage.DECODE, t::token);
        return 42;
      });
      assertThat(result).isEqualTo(42);
      tracer.flush().get(10, TimeUnit.SECONDS);
      assertThat(sink.records()).hasSize(1);
      assertThat(otel.errors()).isEqualTo(1);
    }
  }

  @Test
  void callbacksAfterTheEndAreIgnored() throws Exception {
    try (OtelFixture fx = new OtelFixture()) {
      var t = fx.tracer.start("m");
      var handle = fx.otel.onStart(t, OtelFixture.at(0));
      handle.onEnd(io.github.trtrace.core.InferenceRecord.builder("req-x", "m").latencyMs(1).build(), OtelFixture.at(1));
      assertThat(handle.onStageStart(Stage.DECODE, null, OtelFixture.at(2))).isNull();
      handle.onEvent(new io.github.trtrace.core.InferenceRecord.Event("k", "warning", "late", 3), null);
      handle.onEnd(io.github.trtrace.core.InferenceRecord.builder("req-x", "m").latencyMs(1).build(), OtelFixture.at(4));
      t.close();
      // the manual handle's span once, the tracer's own trace span once; no decode span, no event
      assertThat(fx.names()).containsExactly("text_completion m", "text_completion m");
      assertThat(fx.finished()).allSatisfy(s -> assertThat(s.getEvents()).isEmpty());
      assertThat(fx.otel.errors()).isZero();
    }
  }

  @Test
  void badOptionsFailAtBuildTime() {
    var b = TrtraceOpenTelemetry.builder(OpenTelemetry.noop());
    assertThatThrownBy(() -> b.serverAddress("localhost", 0)).hasMessageContaining("port");
    assertThatThrownBy(() -> b.operationName(" ")).hasMessageContaining("operationName");
    assertThatThrownBy(() -> b.maxLayerEvents(-1)).hasMessageContaining("maxLayerEvents");
  }

  @Test
  void contentCaptureFollowsTheSystemProperty() {
    String previous = System.getProperty(GenAiConvention.CAPTURE_CONTENT_PROPERTY);
    try {
      System.setProperty(GenAiConvention.CAPTURE_CONTENT_PROPERTY, "TRUE");
      assertThat(TrtraceOpenTelemetry.Builder.captureContentFromEnvironment()).isTrue();
      System.setProperty(GenAiConvention.CAPTURE_CONTENT_PROPERTY, "false");
      assertThat(TrtraceOpenTelemetry.Builder.captureContentFromEnvironment()).isFalse();
    } finally {
      if (previous == null) {
        System.clearProperty(GenAiConvention.CAPTURE_CONTENT_PROPERTY);
      } else {
        System.setProperty(GenAiConvention.CAPTURE_CONTENT_PROPERTY, previous);
      }
    }
  }

  /** No lone UTF-16 surrogate left (they make OTLP's UTF-8 encoding fail or turn into '?'). */
  private static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  @Test
  void hostTextOnSpansAndMetricsIsSanitisedByTheRecordConvention() throws Exception {
    String longType = "E".repeat(10_240);
    String control = "stop\u0000\u0007\n\u001b[31m";
    try (OtelFixture fx = new OtelFixture()) {
      fx.tracer.run("m", "req-adversarial", t -> {
        t.error(longType);
        t.engineFingerprint("fp-\uD800-x");
        t.finishReason(control + "\uDFFF");
        t.event("tensorrt.\uDBFF", "error", "x".repeat(5_000) + "\uD83D");
        t.layers(List.of(new InferenceRecord.LayerTime("conv\uDC00", 1.5, 1)));
        fx.advanceMs(2);
      });
      fx.record("req-adversarial");
      SpanData root = fx.span("text_completion m");
      var a = root.getAttributes();

      String type = a.get(GenAiConvention.ERROR_TYPE);
      assertThat(type).hasSize(RecordConvention.MAX_TEXT_LENGTH).endsWith("\u2026").isEqualTo(RecordConvention.text(longType));
      assertThat(root.getStatus().getDescription()).isEqualTo(type);
      assertThat(a.get(GenAiConvention.ENGINE_FINGERPRINT)).isEqualTo("fp-\uFFFD-x");
      // Control characters reach an attribute as escapes' text (a span attribute is written as it is).
      assertThat(a.get(GenAiConvention.RESPONSE_FINISH_REASONS))
          .containsExactly("stop\\u0000\\u0007\\u000a\\u001b[31m\uFFFD");

      EventData event = root.getEvents().stream()
          .filter(e -> !e.getName().equals(GenAiConvention.EVENT_LAYER)).findFirst().orElseThrow();
      assertThat(event.getName()).isEqualTo("tensorrt.\uFFFD");
      assertThat(event.getAttributes().get(GenAiConvention.EVENT_KIND)).isEqualTo("tensorrt.\uFFFD");
      String message = event.getAttributes().get(GenAiConvention.EVENT_MESSAGE);
      assertThat(message).hasSize(RecordConvention.MAX_TEXT_LENGTH).endsWith("\u2026");
      assertThat(wellFormed(message)).isTrue();
      assertThat(root.getEvents()).filteredOn(e -> e.getName().equals(GenAiConvention.EVENT_LAYER))
          .singleElement().satisfies(e -> assertThat(e.getAttributes().get(GenAiConvention.LAYER_NAME)).isEqualTo("conv\uFFFD"));

      MetricData duration = fx.metric(GenAiConvention.METRIC_REQUEST_DURATION).orElseThrow();
      String label = duration.getHistogramData().getPoints().iterator().next().getAttributes().get(GenAiConvention.ERROR_TYPE);
      assertThat(label).isEqualTo("E".repeat(128));
      MetricData events = fx.metric(GenAiConvention.METRIC_TENSORRT_EVENTS).orElseThrow();
      assertThat(events.getLongSumData().getPoints()).singleElement()
          .satisfies(p -> assertThat(p.getAttributes().get(GenAiConvention.EVENT_KIND)).isEqualTo("tensorrt.\uFFFD"));
    }
  }
}
