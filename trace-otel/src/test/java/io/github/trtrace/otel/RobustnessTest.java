package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.testing.InMemorySink;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerBuilder;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;
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
      handle.onStageStart(Stage.DECODE, OtelFixture.at(2));
      handle.onEvent(new io.github.trtrace.core.InferenceRecord.Event("k", "warning", "late", 3));
      handle.onEnd(io.github.trtrace.core.InferenceRecord.builder("req-x", "m").latencyMs(1).build(), OtelFixture.at(4));
      t.close();
      // the manual handle's span once, the tracer's own trace span once; no decode span, no event
      assertThat(fx.names()).containsExactly("text_completion m", "text_completion m");
      assertThat(fx.spans.getFinishedSpanItems()).allSatisfy(s -> assertThat(s.getEvents()).isEmpty());
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
}
