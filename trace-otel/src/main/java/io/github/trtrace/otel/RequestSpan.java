package io.github.trtrace.otel;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.OutputFlag;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.internal.json.JsonWriter;
import io.github.trtrace.core.sampling.Sampler;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * One request's spans. A stage's span is this handle's state for the stage, which the trace keeps on
 * its stage stack and hands back (as the parent of the stages inside, at the stage's end, with events):
 * the nesting is the trace's alone. Callbacks may come from any thread the request hops to; the ones
 * that read or set {@code ended} and the captured content hold this object's monitor (uncontended in
 * practice: a request is worked on by one thread at a time).
 */
final class RequestSpan implements TraceListener.Handle {
  private final OtelListener listener;
  private final OtelListener.ModelNames names;
  private final Span root;
  /** Parent context with the request span (and this handle, for content capture) in it. */
  private final Context context;
  private final long startEpochNanos;
  private final boolean recording;
  private @Nullable String input;
  private @Nullable String output;
  private boolean ended;

  RequestSpan(OtelListener listener, OtelListener.ModelNames names, Context parent, Span root, long startEpochNanos) {
    this.listener = listener;
    this.names = names;
    this.root = root;
    // The handle rides in the context only when content capture needs to find it.
    Context withSpan = parent.with(root);
    this.context = listener.captureContent ? withSpan.with(OtelListener.CURRENT, this) : withSpan;
    this.startEpochNanos = startEpochNanos;
    this.recording = root.isRecording();
  }

  @Override
  public TraceScope makeCurrent() {
    try {
      SpanContext sc = root.getSpanContext();
      return new CurrentScope(context.makeCurrent(), sc.isValid() ? sc : null);
    } catch (RuntimeException e) {
      listener.error("makeCurrent", e);
      return TraceScope.NOOP;
    }
  }

  @Override
  public synchronized @Nullable Object onStageStart(Stage stage, @Nullable Object parent, long epochNanos) {
    if (ended || !recording) {
      return null; // a dropped request span gets no children: they would be dropped too
    }
    try {
      // Only the span of the parent context is read: the request's own context serves the top level.
      return listener
          .tracer
          .spanBuilder(spanName(stage))
          .setParent(parent instanceof Span p ? Context.root().with(p) : context)
          .setSpanKind(SpanKind.INTERNAL)
          .setStartTimestamp(epochNanos, TimeUnit.NANOSECONDS)
          .startSpan();
    } catch (RuntimeException e) {
      listener.error("onStageStart", e);
      return null;
    }
  }

  @Override
  public void onStageEnd(Stage stage, @Nullable Object state, long epochNanos) {
    // Every stage ends before the trace does (the trace ends the open ones first), so before onEnd.
    if (state instanceof Span span) {
      try {
        span.end(epochNanos, TimeUnit.NANOSECONDS);
      } catch (RuntimeException e) {
        listener.error("onStageEnd", e);
      }
    }
  }

  @Override
  public synchronized void onEvent(InferenceRecord.Event event, @Nullable Object stage) {
    if (ended) {
      return;
    }
    try {
      listener.instruments.tensorRtEvent(event.kind(), event.severity());
      if (!recording) {
        return;
      }
      // On the innermost open stage: an error during a launch lands on that launch's span.
      Span target = stage instanceof Span span ? span : root;
      String kind = RecordConvention.text(event.kind());
      Attributes attributes =
          Attributes.of(
              GenAiConvention.EVENT_KIND, kind,
              GenAiConvention.EVENT_SEVERITY, RecordConvention.text(event.severity()),
              GenAiConvention.EVENT_MESSAGE, RecordConvention.text(event.message()));
      double offset = event.offsetMs();
      if (Double.isFinite(offset) && offset >= 0) {
        target.addEvent(kind, attributes, startEpochNanos + Math.round(offset * 1e6), TimeUnit.NANOSECONDS);
      } else {
        target.addEvent(kind, attributes);
      }
    } catch (RuntimeException e) {
      listener.error("onEvent", e);
    }
  }

  synchronized void capture(String redacted, boolean isInput) {
    if (!ended) {
      if (isInput) {
        input = redacted;
      } else {
        output = redacted;
      }
    }
  }

  @Override
  public void onEnd(InferenceRecord record, long endEpochNanos) {
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
    }
    try {
      listener.instruments.record(names, record);
    } catch (RuntimeException e) {
      listener.error("metrics", e);
    }
    try {
      if (recording) {
        annotate(record);
      }
    } catch (RuntimeException e) {
      listener.error("onEnd", e);
    }
    try {
      // the SDK runs its span processors (exporters) inside end(): one that throws is counted here
      root.end(endEpochNanos, TimeUnit.NANOSECONDS);
    } catch (RuntimeException e) {
      listener.error("onEnd: span end", e);
    }
  }

  /**
   * The record's outcome, usage and timings on the request span. Text the host supplied goes through
   * {@link RecordConvention#text(String)}, as in every other output: bounded, no unpaired surrogates,
   * control and format characters escaped.
   */
  private void annotate(InferenceRecord r) {
    // Straight onto the span: the SDK's Span.setAllAttributes sets them one by one anyway, so an
    // Attributes built first (a growing list, sorted and de-duplicated, then copied) was pure garbage.
    Span s = root;
    s.setAttribute(GenAiConvention.RESPONSE_MODEL, RecordConvention.text(r.modelName()));
    s.setAttribute(GenAiConvention.STATUS, r.status().wireName());
    putCount(s, GenAiConvention.USAGE_INPUT_TOKENS, r.inputTokens());
    putCount(s, GenAiConvention.USAGE_OUTPUT_TOKENS, r.outputTokens());
    putCount(s, GenAiConvention.REQUEST_MAX_TOKENS, r.maxTokens());
    putFinite(s, GenAiConvention.REQUEST_TEMPERATURE, r.temperature());
    putFinite(s, GenAiConvention.REQUEST_TOP_P, r.topP());
    String rawReason = r.finishReason();
    @Nullable String finishReason = rawReason != null ? RecordConvention.text(rawReason) : null;
    if (finishReason != null) {
      s.setAttribute(GenAiConvention.RESPONSE_FINISH_REASONS, listener.finishReasons(finishReason));
    }
    String fingerprint = r.engineFingerprint();
    if (fingerprint != null) {
      s.setAttribute(GenAiConvention.ENGINE_FINGERPRINT, RecordConvention.text(fingerprint));
    }
    if (!r.inputFlags().isEmpty()) {
      s.setAttribute(GenAiConvention.INPUT_FLAGS, wireNames(r.inputFlags(), InputFlag::wireName));
    }
    if (!r.outputFlags().isEmpty()) {
      s.setAttribute(GenAiConvention.OUTPUT_FLAGS, wireNames(r.outputFlags(), OutputFlag::wireName));
    }
    putSeconds(s, GenAiConvention.QUEUE_TIME, r.queueMs());
    putSeconds(s, GenAiConvention.TIME_TO_FIRST_TOKEN, r.ttftMs());
    putSeconds(s, GenAiConvention.TIME_PER_OUTPUT_TOKEN, r.tpotMs());
    putSeconds(s, GenAiConvention.GPU_TIME, r.gpuMs());
    String reason = r.sampledReason();
    if (reason != null) {
      s.setAttribute(GenAiConvention.SAMPLED_REASON, RecordConvention.text(reason));
    }
    s.setAttribute(GenAiConvention.KEEP, mustKeep(r));
    if (listener.latencyAttributes) {
      latency(s, r);
    }
    if (r.status().isFailure()) {
      String errorType = r.errorType();
      String type = errorType != null ? RecordConvention.text(errorType) : r.status().wireName();
      s.setAttribute(GenAiConvention.ERROR_TYPE, type);
      s.setStatus(StatusCode.ERROR, type);
    }
    if (input != null) {
      s.setAttribute(GenAiConvention.INPUT_MESSAGES, messages("user", input, null));
    }
    if (output != null) {
      s.setAttribute(GenAiConvention.OUTPUT_MESSAGES, messages("assistant", output, finishReason));
    }
    layers(r.layers());
    LaunchSpans.annotate(s, r.batching());
  }

  /** The request span's context: what a launch span links to. */
  SpanContext spanContext() {
    return root.getSpanContext();
  }

  /**
   * Whether a collector should keep this trace whatever its head sampling said: failures, and requests
   * the SDK kept for a reason of its own (slow, slow percentile) rather than by chance or keep-all.
   */
  static boolean mustKeep(InferenceRecord r) {
    String reason = r.sampledReason();
    return r.status().isFailure()
        || (reason != null && !reason.equals(Sampler.SAMPLED) && !reason.equals(Sampler.ALWAYS));
  }

  /** The {@code gen_ai.latency.*} keys vLLM/SGLang write, in seconds, from the record's timings. */
  private static void latency(Span a, InferenceRecord r) {
    double queue = r.queueMs();
    putSeconds(a, GenAiConvention.LATENCY_TIME_IN_QUEUE, queue);
    putSeconds(a, GenAiConvention.LATENCY_TIME_TO_FIRST_TOKEN, r.ttftMs());
    putSeconds(a, GenAiConvention.LATENCY_E2E, r.latencyMs());
    double q = Double.isNaN(queue) ? 0 : queue;
    if (!Double.isNaN(r.ttftMs())) {
      putSeconds(a, GenAiConvention.LATENCY_TIME_IN_MODEL_PREFILL, Math.max(0, r.ttftMs() - q));
    }
    if (!Double.isNaN(r.tpotMs()) && r.outputTokens() > 1) {
      putSeconds(a, GenAiConvention.LATENCY_TIME_IN_MODEL_DECODE, r.tpotMs() * (r.outputTokens() - 1));
    }
    putSeconds(a, GenAiConvention.LATENCY_TIME_IN_MODEL_INFERENCE, Math.max(0, r.latencyMs() - q));
  }

  private void layers(List<InferenceRecord.LayerTime> layers) {
    int max = listener.maxLayerEvents;
    if (layers.isEmpty()) {
      return;
    }
    List<InferenceRecord.LayerTime> slowest = new ArrayList<>(layers);
    slowest.sort(Comparator.comparingDouble(InferenceRecord.LayerTime::ms).reversed());
    int n = Math.min(max, slowest.size());
    for (int i = 0; i < n; i++) {
      InferenceRecord.LayerTime l = slowest.get(i);
      root.addEvent(
          GenAiConvention.EVENT_LAYER,
          Attributes.of(
              GenAiConvention.LAYER_NAME, RecordConvention.text(l.name()),
              GenAiConvention.LAYER_DURATION, l.ms() / 1000.0,
              GenAiConvention.LAYER_INVOCATIONS, (long) l.invocations()));
    }
    if (slowest.size() > n) {
      root.setAttribute(GenAiConvention.LAYERS_OMITTED, (long) (slowest.size() - n));
    }
  }

  /** The conventions' message structure: {@code [{"role":..,"parts":[{"type":"text","content":..}]}]}. */
  private static String messages(String role, String text, @Nullable String finishReason) {
    StringBuilder sb = new StringBuilder(text.length() + 64);
    JsonWriter w = JsonWriter.create(sb, Integer.MAX_VALUE);
    w.beginArray().beginObject().name("role").value(role);
    w.name("parts").beginArray().beginObject().name("type").value("text").name("content").value(text);
    w.endObject().endArray();
    if (finishReason != null) {
      w.name("finish_reason").value(finishReason);
    }
    w.endObject().endArray();
    return sb.toString();
  }

  private static String spanName(Stage stage) {
    switch (stage) {
      case QUEUE:
        return GenAiConvention.SPAN_QUEUE;
      case PREPROCESS:
        return GenAiConvention.SPAN_PREPROCESS;
      case INFER:
        return GenAiConvention.SPAN_INFER;
      case DECODE:
        return GenAiConvention.SPAN_DECODE;
      case POSTPROCESS:
        return GenAiConvention.SPAN_POSTPROCESS;
      default:
        return stage.name().toLowerCase(Locale.ROOT);
    }
  }

  /** The wire names of a set of flags ({@code InputFlag} or {@code OutputFlag}). */
  private static <F> List<String> wireNames(Set<F> flags, Function<F, String> wireName) {
    List<String> out = new ArrayList<>(flags.size());
    for (F f : flags) {
      out.add(wireName.apply(f));
    }
    return out;
  }

  private static void putCount(Span a, AttributeKey<Long> key, int v) {
    if (v >= 0) {
      a.setAttribute(key, (long) v);
    }
  }

  private static void putFinite(Span a, AttributeKey<Double> key, double v) {
    if (Double.isFinite(v)) {
      a.setAttribute(key, v);
    }
  }

  private static void putSeconds(Span a, AttributeKey<Double> key, double ms) {
    if (Double.isFinite(ms)) {
      a.setAttribute(key, ms / 1000.0);
    }
  }

  /**
   * The OTel scope plus {@code trace_id}/{@code span_id} in the MDC, previous values restored on
   * close. Closing twice does nothing (an OTel scope closed twice would restore a stale context).
   */
  private static final class CurrentScope implements TraceScope {
    private final Scope scope;
    private final @Nullable String previousTraceId;
    private final @Nullable String previousSpanId;
    private final boolean mdc;
    private boolean closed;

    /** {@code span} null: no valid span, nothing for the MDC. */
    CurrentScope(Scope scope, @Nullable SpanContext span) {
      this.scope = scope;
      String pt = null;
      String ps = null;
      boolean ok = false;
      if (span != null) {
        try {
          pt = MDC.get(GenAiConvention.MDC_TRACE_ID);
          ps = MDC.get(GenAiConvention.MDC_SPAN_ID);
          MDC.put(GenAiConvention.MDC_TRACE_ID, span.getTraceId());
          MDC.put(GenAiConvention.MDC_SPAN_ID, span.getSpanId());
          ok = true;
        } catch (RuntimeException e) {
          Internal.LOG.warn("trtrace: SLF4J MDC failed, trace_id not set in the MDC: {}", e.toString());
        }
      }
      this.previousTraceId = pt;
      this.previousSpanId = ps;
      this.mdc = ok;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      if (mdc) {
        try {
          restore(GenAiConvention.MDC_TRACE_ID, previousTraceId);
          restore(GenAiConvention.MDC_SPAN_ID, previousSpanId);
        } catch (RuntimeException e) {
          Internal.LOG.warn("trtrace: SLF4J MDC failed while restoring trace_id: {}", e.toString());
        }
      }
      scope.close();
    }

    private static void restore(String key, @Nullable String previous) {
      if (previous == null) {
        MDC.remove(key);
      } else {
        MDC.put(key, previous);
      }
    }
  }
}
