package io.github.trtrace.otel;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.TraceParent;
import io.github.trtrace.core.redact.Redactor;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/** The listener: one {@link RequestSpan} per trace; instruments and per-model attributes shared. */
final class OtelListener implements TrtraceOpenTelemetry {
  /** The request whose span is current, for content capture. */
  static final ContextKey<RequestSpan> CURRENT = ContextKey.named("trtrace-request-span");
  /** Per-model names and attributes are cached up to this many models (then computed per request). */
  private static final int MAX_CACHED_MODELS = 1024;
  /** Finish-reason lists are shared up to this many distinct reasons (then built per request). */
  private static final int MAX_CACHED_FINISH_REASONS = 64;

  final Tracer tracer;
  final Instruments instruments;
  final boolean latencyAttributes;
  final boolean captureContent;
  final Redactor redactor;
  final int maxLayerEvents;
  private final String operationName;
  private final String providerName;
  private final @Nullable String serverAddress;
  private final int serverPort;
  private final Map<String, ModelNames> models = new ConcurrentHashMap<>();
  /** {@code gen_ai.response.finish_reasons} values, one list per reason ("stop", "length", ...), bounded. */
  private final Map<String, List<String>> finishReasons = new ConcurrentHashMap<>();
  private final LongAdder errors = new LongAdder();

  OtelListener(TrtraceOpenTelemetry.Builder b) {
    this.tracer = b.openTelemetry.getTracer(GenAiConvention.INSTRUMENTATION_SCOPE);
    this.instruments = new Instruments(b.openTelemetry.getMeter(GenAiConvention.INSTRUMENTATION_SCOPE));
    this.latencyAttributes = b.latencyAttributes;
    this.captureContent = b.captureContent;
    this.redactor = b.redactor;
    this.maxLayerEvents = b.maxLayerEvents;
    this.operationName = b.operationName;
    this.providerName = b.providerName;
    this.serverAddress = b.serverAddress;
    this.serverPort = b.serverPort;
    this.launches = new LaunchSpans(tracer, b.openTelemetry.getMeter(GenAiConvention.INSTRUMENTATION_SCOPE));
  }

  private final LaunchSpans launches;

  @Override
  public void onLaunch(SharedLaunch.Ended launch, List<@Nullable Handle> members) {
    try {
      launches.onLaunch(launch, members);
    } catch (RuntimeException e) {
      error("onLaunch", e);
    }
  }

  @Override
  public Handle onStart(InferenceTrace trace, long startEpochNanos) {
    try {
      ModelNames names = names(RecordConvention.text(trace.modelName()));
      Context parent = callerParent(trace, Context.current());
      SpanContext parentSpan = Span.fromContext(parent).getSpanContext();
      // A valid local span is the host's own (HTTP server) span: nest under it as INTERNAL.
      SpanKind kind = parentSpan.isValid() && !parentSpan.isRemote() ? SpanKind.INTERNAL : SpanKind.SERVER;
      Span span =
          tracer
              .spanBuilder(names.spanName)
              .setParent(parent)
              .setSpanKind(kind)
              .setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS)
              .setAllAttributes(names.spanAttributes)
              .setAttribute(GenAiConvention.REQUEST_ID, RecordConvention.text(trace.requestId()))
              .startSpan();
      SpanContext sc = span.getSpanContext();
      if (sc.isValid()) {
        trace.traceContext(sc.getTraceId(), sc.getSpanId());
      }
      return new RequestSpan(this, names, parent, span, startEpochNanos);
    } catch (RuntimeException e) {
      error("onStart", e);
      return Handle.NOOP;
    }
  }

  /**
   * The parent of the request span: the current OpenTelemetry context when it holds a span (the host's own
   * server span, or a context the host extracted), otherwise the caller's {@code traceparent} that
   * trace-http's filter parsed into the request's {@link RequestContext}, as a remote parent. The header is
   * not read again here: the record and the span share the one parse.
   */
  private static Context callerParent(InferenceTrace trace, Context current) {
    if (Span.fromContext(current).getSpanContext().isValid()) {
      return current;
    }
    RequestContext request = RequestContext.current();
    TraceParent caller = request.traceParent();
    if (caller == null || !trace.requestId().equals(request.requestId())) {
      return current;
    }
    SpanContext remote =
        SpanContext.createFromRemoteParent(
            caller.traceId(), caller.parentId(), TraceFlags.fromByte((byte) caller.flags()),
            W3cTraceState.decode(caller.traceState()));
    return current.with(Span.wrap(remote));
  }

  @Override
  public AutoCloseable observe(InferenceTracer inferenceTracer) {
    return instruments.observe(inferenceTracer);
  }

  @Override
  public void recordEngineBuild(Duration duration, double fusionRate, boolean success) {
    try {
      instruments.recordBuild(duration, fusionRate, success);
    } catch (RuntimeException e) {
      error("recordEngineBuild", e);
    }
  }

  @Override
  public void captureInput(CharSequence prompt) {
    capture(prompt, true);
  }

  @Override
  public void captureOutput(CharSequence completion) {
    capture(completion, false);
  }

  private void capture(@Nullable CharSequence text, boolean input) {
    if (!captureContent || text == null) {
      return;
    }
    RequestSpan current = Context.current().get(CURRENT);
    if (current != null) {
      try {
        current.capture(redactor.redact(text), input);
      } catch (RuntimeException e) {
        error("capture", e);
      }
    }
  }

  @Override
  public long errors() {
    return errors.sum();
  }

  void error(String where, RuntimeException e) {
    errors.increment();
    Internal.LOG.warn("trtrace: OpenTelemetry listener failed in {} (ignored): {}", where, e.toString());
  }

  /** The one-element list of {@code reason}, shared by every request that ends for that reason. */
  List<String> finishReasons(String reason) {
    List<String> list = finishReasons.get(reason);
    if (list == null) {
      list = List.of(reason);
      if (finishReasons.size() < MAX_CACHED_FINISH_REASONS) {
        finishReasons.putIfAbsent(reason, list);
      }
    }
    return list;
  }

  private ModelNames names(String model) {
    ModelNames n = models.get(model);
    if (n == null) {
      n = new ModelNames(model);
      if (models.size() < MAX_CACHED_MODELS) {
        models.putIfAbsent(model, n);
      }
    }
    return n;
  }

  /** Span name and the attribute sets that depend on the model only, built once per model. */
  final class ModelNames {
    final String spanName;
    final Attributes spanAttributes;
    /** Low-cardinality attributes of every metric point of this model (no request ID, ever). */
    final Attributes metricAttributes;
    final Attributes inputTokenAttributes;
    final Attributes outputTokenAttributes;

    ModelNames(String model) {
      this.spanName = operationName + " " + model;
      AttributesBuilder a =
          Attributes.builder()
              .put(GenAiConvention.OPERATION_NAME, operationName)
              .put(GenAiConvention.PROVIDER_NAME, providerName)
              .put(GenAiConvention.REQUEST_MODEL, model);
      if (serverAddress != null) {
        a.put(GenAiConvention.SERVER_ADDRESS, serverAddress).put(GenAiConvention.SERVER_PORT, (long) serverPort);
      }
      this.spanAttributes = a.build();
      this.metricAttributes = a.put(GenAiConvention.RESPONSE_MODEL, model).build();
      this.inputTokenAttributes =
          metricAttributes.toBuilder().put(GenAiConvention.TOKEN_TYPE, GenAiConvention.TOKEN_TYPE_INPUT).build();
      this.outputTokenAttributes =
          metricAttributes.toBuilder().put(GenAiConvention.TOKEN_TYPE, GenAiConvention.TOKEN_TYPE_OUTPUT).build();
    }
  }
}
