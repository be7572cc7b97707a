package io.github.trtrace.otel;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.redact.Redactor;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Connects trtrace to the host's OpenTelemetry: a {@link TraceListener} that turns every traced
 * request into a GenAI SERVER span with child spans for its stages, TensorRT messages into span
 * events, and the request's timings into the GenAI server metrics. The library installs no SDK: pass
 * the host's {@code OpenTelemetry} (or {@code GlobalOpenTelemetry.get()}).
 *
 * <pre>{@code
 * TrtraceOpenTelemetry otel = TrtraceOpenTelemetry.create(openTelemetry);
 * InferenceTracer tracer = InferenceTracer.builder().listener(otel).fromEnvironment().build();
 * otel.observe(tracer);                     // dispatcher queue depth, drops, sink failures as metrics
 * }</pre>
 *
 * <h2>Spans</h2>
 * The request span is named {@code {gen_ai.operation.name} {gen_ai.request.model}}. Its kind is
 * SERVER, unless a local span is current when the trace starts (the host's own HTTP server span):
 * then it is an INTERNAL child of that span. A remote parent keeps it SERVER: the caller's {@code
 * traceparent} as trace-http's filter parsed it into the request's {@code RequestContext} (nothing else to
 * install on the HTTP path), or a context extracted with the host's propagators ({@link TraceHeaders}). Stage spans ({@link GenAiConvention#SPAN_QUEUE}, ...) nest
 * as the stages did and carry the trace's own timestamps, not the time of export. While user code
 * runs inside {@code tracer.call}/{@code run} (or {@code trace.makeCurrent()}), the request span is
 * current, so the host's instrumentation nests under it, and the MDC carries {@code trace_id} and
 * {@code span_id}. The record gets {@code trace_id}/{@code span_id}; the span gets
 * {@code trtrace.request.id}: either finds the other.
 *
 * <h2>Sampling</h2>
 * Spans follow the host's sampler; records follow trtrace's. When the host's head sampler drops a
 * span, the record still carries its trace ID and metrics are still recorded. Every span says whether
 * the SDK kept its record and why ({@code trtrace.sampled_reason}, {@code trtrace.keep} for errors and
 * slow requests), which a collector's tail-sampling processor keys on (docs/opentelemetry.md, "Sampling").
 *
 * <h2>Per-layer profiles</h2>
 * A record's layer table ({@code InferenceRecord.layers()}) becomes span events named
 * {@code tensorrt.layer} on the request span, the slowest first, at most {@link
 * Builder#maxLayerEvents(int)} of them. Not child spans: the table holds each layer's total time over
 * all of the request's launches, with no start times, so child spans would need invented timestamps
 * and would draw a false waterfall; and hundreds of layers × tokens would exceed any span limit.
 *
 * <p>Recording never throws into the host: a failure inside a callback is logged (rate-limited) and
 * counted in {@link #errors()}.
 */
public interface TrtraceOpenTelemetry extends TraceListener {

  /** A listener with default options (content capture as the environment says, see {@link Builder}). */
  static TrtraceOpenTelemetry create(OpenTelemetry openTelemetry) {
    return builder(openTelemetry).build();
  }

  /** A builder for a listener that reports to {@code openTelemetry}. */
  static Builder builder(OpenTelemetry openTelemetry) {
    return new Builder(openTelemetry);
  }

  /**
   * Reports {@code tracer}'s own health as asynchronous metrics read at each collection: dispatcher
   * queue depth, records written, dropped by reason, sampled out, lost by sink, sink failures. Close
   * the returned handle to stop.
   */
  AutoCloseable observe(InferenceTracer tracer);

  /**
   * Records one TensorRT engine build: its duration and the fraction of network layers fused into
   * engine layers (NaN when unknown), by outcome.
   */
  void recordEngineBuild(Duration duration, double fusionRate, boolean success);

  /**
   * Captures the prompt of the request whose trace is current (inside {@code tracer.call}/{@code
   * run}) as {@code gen_ai.input.messages}, redacted and bounded by the redactor. Does nothing unless
   * content capture is enabled, or when no traced request is current.
   */
  void captureInput(CharSequence prompt);

  /** Like {@link #captureInput}, for the completion ({@code gen_ai.output.messages}). */
  void captureOutput(CharSequence completion);

  /** Failures inside the listener's callbacks, each logged (rate-limited) and ignored. */
  long errors();

  /** Options of a {@link TrtraceOpenTelemetry}. Not thread-safe. */
  final class Builder {
    final OpenTelemetry openTelemetry;
    String operationName = GenAiConvention.OPERATION_TEXT_COMPLETION;
    String providerName = GenAiConvention.PROVIDER_TENSORRT;
    @Nullable String serverAddress;
    int serverPort = -1;
    boolean latencyAttributes = true;
    boolean captureContent = captureContentFromEnvironment();
    Redactor redactor = Redactor.defaults();
    int maxLayerEvents = 32;

    Builder(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
    }

    /** {@code gen_ai.operation.name}, e.g. {@code chat}; default {@code text_completion}. */
    public Builder operationName(String name) {
      this.operationName = requireText(name, "operationName");
      return this;
    }

    /** {@code gen_ai.provider.name}; default {@code tensorrt}. */
    public Builder providerName(String name) {
      this.providerName = requireText(name, "providerName");
      return this;
    }

    /** {@code server.address} and {@code server.port} of this service (on spans and metrics). */
    public Builder serverAddress(String host, int port) {
      this.serverAddress = requireText(host, "host");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port must be 1..65535: " + port);
      }
      this.serverPort = port;
      return this;
    }

    /**
     * Whether request spans also carry the {@code gen_ai.latency.*} keys vLLM and SGLang write, so
     * their dashboards work unchanged (default on).
     */
    public Builder latencyAttributes(boolean enabled) {
      this.latencyAttributes = enabled;
      return this;
    }

    /**
     * Whether {@link #captureInput}/{@link #captureOutput} record content. Default: the system
     * property {@code otel.instrumentation.genai.capture-message-content} or the environment variable
     * {@code OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT} is {@code true}; otherwise off.
     */
    public Builder captureMessageContent(boolean enabled) {
      this.captureContent = enabled;
      return this;
    }

    /** Redacts and bounds captured content; default {@link Redactor#defaults()}. */
    public Builder redactor(Redactor redactor) {
      this.redactor = Objects.requireNonNull(redactor, "redactor");
      return this;
    }

    /** At most this many per-layer events per request span (default 32; 0 for none). */
    public Builder maxLayerEvents(int max) {
      if (max < 0) {
        throw new IllegalArgumentException("maxLayerEvents must be >= 0: " + max);
      }
      this.maxLayerEvents = max;
      return this;
    }

    public TrtraceOpenTelemetry build() {
      return new OtelListener(this);
    }

    static boolean captureContentFromEnvironment() {
      String v = System.getProperty(GenAiConvention.CAPTURE_CONTENT_PROPERTY);
      if (v == null) {
        v = System.getenv(GenAiConvention.CAPTURE_CONTENT_ENV);
      }
      return v != null && v.trim().toLowerCase(Locale.ROOT).equals("true");
    }

    private static String requireText(String value, String what) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(what + " must not be blank");
      }
      return value;
    }
  }
}
