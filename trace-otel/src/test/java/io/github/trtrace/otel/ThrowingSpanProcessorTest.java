package io.github.trtrace.otel;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.testing.InMemorySink;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A real SDK whose span processor throws when a span ends: the request span's end must not escape the
 * listener uncounted (docs/opentelemetry.md: every failure inside a callback is counted in errors()).
 */
class ThrowingSpanProcessorTest {

  /** Throws from onEnd, after counting the call (so the test knows the SDK reached it). */
  private static final class ThrowingOnEnd implements SpanProcessor {
    final AtomicInteger ends = new AtomicInteger();

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {}

    @Override
    public boolean isStartRequired() {
      return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {
      ends.incrementAndGet();
      throw new IllegalStateException("exporter broken: " + span.getName());
    }

    @Override
    public boolean isEndRequired() {
      return true;
    }
  }

  @Test
  void aProcessorThrowingInOnEndOfTheRequestSpanIsCountedAndNotThrownIntoTheHost() throws Exception {
    ThrowingOnEnd processor = new ThrowingOnEnd();
    SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(processor).build();
    try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(provider).build()) {
      TrtraceOpenTelemetry otel = TrtraceOpenTelemetry.create(sdk);
      InMemorySink sink = InMemorySink.create();
      try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).listener(otel).build()) {
        int result = tracer.call("m", t -> {
          t.token();
          return 7;
        });
        assertThat(result).isEqualTo(7);
        tracer.flush().get(10, TimeUnit.SECONDS);
        assertThat(sink.records()).hasSize(1);
      }
      assertThat(processor.ends.get()).isEqualTo(1); // the request span, no stage spans
      assertThat(otel.errors()).isEqualTo(1);
    }
  }
}
