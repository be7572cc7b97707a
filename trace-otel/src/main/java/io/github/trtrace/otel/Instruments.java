package io.github.trtrace.otel;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.Status;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** The metric instruments, created once per listener. Attributes are low-cardinality only. */
final class Instruments {
  private static final int MAX_EVENT_KIND_CHARS = 64;
  private static final Attributes BUILD_SUCCESS = Attributes.of(GenAiConvention.BUILD_STATUS, "success");
  private static final Attributes BUILD_FAILURE = Attributes.of(GenAiConvention.BUILD_STATUS, "failure");

  private final Meter meter;
  private final DoubleHistogram requestDuration;
  private final DoubleHistogram timeToFirstToken;
  private final DoubleHistogram timePerOutputToken;
  private final LongHistogram tokenUsage;
  private final DoubleHistogram queueDuration;
  private final LongCounter tensorRtEvents;
  private final DoubleHistogram buildDuration;
  private final DoubleHistogram buildFusionRate;
  /** Attributes of the TensorRT event counter by kind and severity (a bounded set, kept). */
  private final Map<String, Attributes> eventAttributes = new ConcurrentHashMap<>();

  Instruments(Meter meter) {
    this.meter = meter;
    this.requestDuration =
        seconds(GenAiConvention.METRIC_REQUEST_DURATION, "Time from arrival to the last output token.",
            GenAiConvention.BUCKETS_REQUEST_DURATION);
    this.timeToFirstToken =
        seconds(GenAiConvention.METRIC_TIME_TO_FIRST_TOKEN,
            "Time from arrival to the first output token, for successful responses.",
            GenAiConvention.BUCKETS_TIME_TO_FIRST_TOKEN);
    this.timePerOutputToken =
        seconds(GenAiConvention.METRIC_TIME_PER_OUTPUT_TOKEN,
            "Mean time per output token after the first, for successful responses.",
            GenAiConvention.BUCKETS_TIME_PER_OUTPUT_TOKEN);
    this.queueDuration =
        seconds(GenAiConvention.METRIC_QUEUE_DURATION, "Time a request waited for a worker or batch slot.",
            GenAiConvention.BUCKETS_REQUEST_DURATION);
    this.tokenUsage =
        meter.histogramBuilder(GenAiConvention.METRIC_TOKEN_USAGE)
            .setDescription("Input and output tokens per request, by gen_ai.token.type.")
            .setUnit(GenAiConvention.UNIT_TOKENS)
            .ofLongs()
            .setExplicitBucketBoundariesAdvice(GenAiConvention.BUCKETS_TOKEN_USAGE)
            .build();
    this.tensorRtEvents =
        meter.counterBuilder(GenAiConvention.METRIC_TENSORRT_EVENTS)
            .setDescription("TensorRT messages attributed to requests, by kind and severity.")
            .setUnit("{event}")
            .build();
    this.buildDuration =
        seconds(GenAiConvention.METRIC_BUILD_DURATION, "TensorRT engine build time.", GenAiConvention.BUCKETS_BUILD_DURATION);
    this.buildFusionRate =
        meter.histogramBuilder(GenAiConvention.METRIC_BUILD_FUSION_RATE)
            .setDescription("Fraction of network layers fused into engine layers by a build.")
            .setUnit("1")
            .setExplicitBucketBoundariesAdvice(GenAiConvention.BUCKETS_FUSION_RATE)
            .build();
  }

  private DoubleHistogram seconds(String name, String description, List<Double> buckets) {
    return meter.histogramBuilder(name)
        .setDescription(description)
        .setUnit(GenAiConvention.UNIT_SECONDS)
        .setExplicitBucketBoundariesAdvice(buckets)
        .build();
  }

  /** The request's metric points; independent of span sampling. */
  void record(OtelListener.ModelNames names, InferenceRecord r) {
    Attributes base = names.metricAttributes;
    boolean success = r.status() == Status.SUCCESS;
    Attributes durationAttributes =
        success
            ? base
            : base.toBuilder()
                .put(GenAiConvention.ERROR_TYPE, r.errorType() != null ? errorType(r.errorType()) : r.status().wireName())
                .build();
    requestDuration.record(r.latencyMs() / 1000.0, durationAttributes);
    if (success && Double.isFinite(r.ttftMs())) {
      timeToFirstToken.record(r.ttftMs() / 1000.0, base);
    }
    if (success && Double.isFinite(r.tpotMs())) {
      timePerOutputToken.record(r.tpotMs() / 1000.0, base);
    }
    if (Double.isFinite(r.queueMs())) {
      queueDuration.record(r.queueMs() / 1000.0, base);
    }
    if (r.inputTokens() >= 0) {
      tokenUsage.record(r.inputTokens(), names.inputTokenAttributes);
    }
    if (r.outputTokens() >= 0) {
      tokenUsage.record(r.outputTokens(), names.outputTokenAttributes);
    }
  }

  /** Distinct error types a metric label may take; later new ones are reported as {@link #OTHER_ERROR_TYPE}. */
  static final int MAX_ERROR_TYPES = 64;

  /** The label of error types beyond {@link #MAX_ERROR_TYPES} (the conventions' fallback value). */
  static final String OTHER_ERROR_TYPE = "_OTHER";

  private final java.util.Set<String> errorTypes = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * Error types are class names or short codes, but {@code t.error(String)} accepts any text: cut long ones
   * so a message never becomes a label, and bound the distinct values so the metric's cardinality stays low.
   */
  private String errorType(String t) {
    String v = label(t, 128);
    if (errorTypes.contains(v)) {
      return v;
    }
    if (errorTypes.size() >= MAX_ERROR_TYPES) {
      return OTHER_ERROR_TYPE;
    }
    errorTypes.add(v);
    return v;
  }

  /** Distinct (kind, severity) series of the event counter; later new ones are counted as {@link #OTHER_EVENT}. */
  static final int MAX_EVENT_SERIES = 256;

  private static final Attributes OTHER_EVENT =
      Attributes.of(GenAiConvention.EVENT_KIND, OTHER_ERROR_TYPE, GenAiConvention.EVENT_SEVERITY, OTHER_ERROR_TYPE);

  void tensorRtEvent(String kind, String severity) {
    String key = kind + '\u0000' + severity;
    Attributes a = eventAttributes.get(key);
    if (a == null) {
      a = Attributes.of(
          GenAiConvention.EVENT_KIND, bounded(kind),
          GenAiConvention.EVENT_SEVERITY, bounded(severity.toLowerCase(Locale.ROOT)));
      if (eventAttributes.size() < MAX_EVENT_SERIES) {
        eventAttributes.putIfAbsent(key, a);
      } else {
        a = OTHER_EVENT; // a bounded label set: new kinds past the limit share one series
      }
    }
    tensorRtEvents.add(1, a);
  }

  private static String bounded(String s) {
    return label(s, MAX_EVENT_KIND_CHARS);
  }

  /**
   * A metric label from host text: {@link RecordConvention#text(String) sanitised} (no unpaired
   * surrogates), then cut to {@code max} chars without splitting a surrogate pair.
   */
  static String label(String s, int max) {
    String v = RecordConvention.text(s);
    if (v.length() <= max) {
      return v;
    }
    return v.substring(0, Character.isHighSurrogate(v.charAt(max - 1)) ? max - 1 : max);
  }

  void recordBuild(Duration duration, double fusionRate, boolean success) {
    Objects.requireNonNull(duration, "duration");
    Attributes a = success ? BUILD_SUCCESS : BUILD_FAILURE;
    if (!duration.isNegative()) {
      buildDuration.record(duration.toNanos() / 1e9, a);
    }
    if (fusionRate >= 0 && fusionRate <= 1) {
      buildFusionRate.record(fusionRate, a);
    }
  }

  /** SDK health as asynchronous instruments, all read from one {@code stats()} call per collection. */
  AutoCloseable observe(InferenceTracer tracer) {
    Objects.requireNonNull(tracer, "tracer");
    ObservableLongMeasurement queueDepth =
        meter.gaugeBuilder(GenAiConvention.METRIC_QUEUE_DEPTH)
            .setDescription("Records waiting in the dispatcher's queues.")
            .setUnit(GenAiConvention.UNIT_RECORDS).ofLongs().buildObserver();
    ObservableLongMeasurement written = counter(GenAiConvention.METRIC_RECORDS_WRITTEN, "Records every sink has written (the smallest per-sink count).");
    ObservableLongMeasurement dropped =
        counter(GenAiConvention.METRIC_RECORDS_DROPPED, "Records dropped before reaching a sink, by trtrace.drop.reason.");
    ObservableLongMeasurement sampledOut =
        counter(GenAiConvention.METRIC_RECORDS_SAMPLED_OUT, "Ended traces whose record sampling did not keep.");
    ObservableLongMeasurement sinkLost =
        counter(GenAiConvention.METRIC_SINK_RECORDS_LOST, "Records a sink lost (write failed, sink stuck, or left at close), by trtrace.sink.name.");
    ObservableLongMeasurement sinkFailures =
        counter(GenAiConvention.METRIC_SINK_FAILURES, "Failed sink write, flush or close calls, by trtrace.sink.name.");
    BatchCallback callback =
        meter.batchCallback(
            () -> {
              try {
                Health h = Health.of(tracer.stats());
                queueDepth.record(h.queued);
                written.record(h.written);
                dropped.record(h.droppedQueueFull, DROP_QUEUE_FULL);
                dropped.record(h.droppedBlockTimeout, DROP_BLOCK_TIMEOUT);
                dropped.record(h.droppedClosed, DROP_CLOSED);
                dropped.record(h.failed, DROP_FAILED);
                sampledOut.record(h.sampledOut);
                for (Health.Sink sink : h.sinks) {
                  Attributes a = Attributes.of(GenAiConvention.SINK_NAME, sink.name);
                  sinkLost.record(sink.lost, a);
                  sinkFailures.record(sink.failures, a);
                }
              } catch (RuntimeException e) {
                Internal.LOG.warn("trtrace: could not read tracer stats for metrics: {}", e.toString());
              }
            },
            queueDepth, written, dropped, sampledOut, sinkLost, sinkFailures);
    return callback::close;
  }

  private static final Attributes DROP_QUEUE_FULL = Attributes.of(GenAiConvention.DROP_REASON, "queue_full");
  private static final Attributes DROP_BLOCK_TIMEOUT = Attributes.of(GenAiConvention.DROP_REASON, "block_timeout");
  private static final Attributes DROP_CLOSED = Attributes.of(GenAiConvention.DROP_REASON, "closed");
  /** Records the tracer could not build or queue because of an internal error. */
  private static final Attributes DROP_FAILED = Attributes.of(GenAiConvention.DROP_REASON, "internal_error");

  private ObservableLongMeasurement counter(String name, String description) {
    return meter.counterBuilder(name).setDescription(description).setUnit(GenAiConvention.UNIT_RECORDS).buildObserver();
  }

  /**
   * The tracer counters the health metrics read, through this one adapter: when the core's stats
   * change shape (field names, how a sink's losses are split), only {@link #of} changes.
   */
  static final class Health {
    final long queued;
    final long written;
    final long droppedQueueFull;
    final long droppedBlockTimeout;
    final long droppedClosed;
    final long failed;
    final long sampledOut;
    final List<Sink> sinks;

    private Health(TracerStats s) {
      DispatcherStats d = s.dispatcher();
      this.queued = d.queued();
      // Written by every sink: the smallest per-sink count (a record counts once it reached each destination).
      this.written = d.sinks().values().stream().mapToLong(TracerStats.SinkStats::written).min().orElse(0);
      this.droppedQueueFull = d.droppedQueueFull();
      this.droppedBlockTimeout = d.droppedBlockTimeout();
      this.droppedClosed = d.droppedClosed();
      this.failed = s.recordErrors();
      this.sampledOut = s.sampledOut();
      List<Sink> list = new ArrayList<>(d.sinks().size());
      for (Map.Entry<String, TracerStats.SinkStats> e : d.sinks().entrySet()) {
        TracerStats.SinkStats k = e.getValue();
        list.add(new Sink(e.getKey(), k.lost(), k.failures()));
      }
      this.sinks = list;
    }

    static Health of(TracerStats s) {
      return new Health(s);
    }

    /** One sink's records lost and failed calls. */
    static final class Sink {
      final String name;
      final long lost;
      final long failures;

      Sink(String name, long lost, long failures) {
        this.name = name;
        this.lost = lost;
        this.failures = failures;
      }
    }
  }
}
