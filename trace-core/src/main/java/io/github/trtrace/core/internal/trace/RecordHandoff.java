package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.internal.dispatch.Dispatcher;
import io.github.trtrace.core.internal.dispatch.PendingOffer;
import io.github.trtrace.core.internal.gpu.GpuMetricsPoller;
import io.github.trtrace.core.internal.gpu.GpuUsage;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.internal.sampling.EndReadingSampler;
import io.github.trtrace.core.redact.Redactor;
import io.github.trtrace.core.sampling.Sampler;
import java.time.Instant;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * Takes an ended trace's filled {@link RecordEntry} to the sinks: the sampling decision, the input
 * digest, the GPU figures, the hand-off to the dispatcher (whose worker builds the record and calls the
 * listeners' {@code onEnd}, issue 16 §3), and the counting of it all. One per tracer; thread-safe.
 *
 * <p>Counting: every ended trace counts once, in {@code sampledOut}, {@code recordErrors} or the
 * dispatcher's {@code offered}. A sampled-out trace whose record (built only for the listeners) fails
 * to build stays counted as sampled out; the listeners get the minimal record.
 */
final class RecordHandoff {
  private static final RateLimitedLogger LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger("io.github.trtrace.tracer"), 10_000);

  /** The error type of the {@linkplain #minimalRecord minimal record}. */
  static final String RECORD_ERROR = "trtrace.record_error";

  private final Sampler sampler;
  /** The sampler when it reads the tracer's clock: it then decides with the trace's end reading (none of its own). */
  private final @Nullable EndReadingSampler endReading;
  private final Redactor redactor;
  private final boolean inputDigest;
  private final Dispatcher dispatcher;
  /** The dispatcher when it is trtrace's own (takes entries), else null: records are built on the caller. */
  private final @Nullable PendingOffer pendingOffer;
  private final @Nullable GpuMetricsPoller gpuPoller;
  private final ListenerEnds.Failures listenerFailures;

  final LongAdder ended = new LongAdder();
  final LongAdder sampledOut = new LongAdder();
  final LongAdder enqueued = new LongAdder();
  final LongAdder recordErrors = new LongAdder();

  RecordHandoff(
      Sampler sampler,
      Redactor redactor,
      boolean inputDigest,
      Dispatcher dispatcher,
      @Nullable GpuMetricsPoller gpuPoller,
      ListenerEnds.Failures listenerFailures,
      LongSupplier nanoClock,
      boolean systemClocks) {
    this.sampler = sampler;
    this.endReading = sampler instanceof EndReadingSampler s && s.sharesClock(nanoClock, systemClocks) ? s : null;
    this.redactor = redactor;
    this.inputDigest = inputDigest;
    this.dispatcher = dispatcher;
    this.pendingOffer = dispatcher instanceof PendingOffer ? (PendingOffer) dispatcher : null;
    this.gpuPoller = gpuPoller;
    this.listenerFailures = listenerFailures;
  }

  /**
   * Called once per trace, on the thread that ended it, with the entry's end figures set ({@code
   * status}, {@code latencyMs}, {@code endEpochNanos}) and {@code endNanos}, the tracer clock's reading
   * they were computed from. Returns true when {@code record} was handed to
   * the dispatcher (which then owns it); false when it stays the trace's (sampled out, dropped, failed,
   * or built here into an immutable record that was offered instead).
   */
  boolean finish(
      RecordEntry record,
      @Nullable CharSequence input,
      TraceListener.Handle @Nullable [] handles,
      GpuMetricsPoller.@Nullable Mark gpuMark,
      long endNanos) {
    ended.increment();
    Status status = record.status;
    double latencyMs = record.latencyMs;
    InferenceRecord built = null;
    String reason;
    try {
      EndReadingSampler timed = endReading;
      reason = timed != null
          ? timed.decide(record.modelName, status, latencyMs, endNanos)
          : sampler.decide(record.modelName, status, latencyMs);
    } catch (RuntimeException e) {
      recordErrors.increment();
      LOG.warn("trtrace could not record a request: {}", e.toString());
      if (handles != null) {
        ListenerEnds.fire(handles, minimalRecord(record), record.endEpochNanos, listenerFailures);
      }
      return false;
    }
    if (reason == null) {
      sampledOut.increment();
      if (handles == null) {
        return false; // nobody sees a sampled-out record: do not build it
      }
      try {
        built = withGpu(record, gpuMark).build();
      } catch (RuntimeException e) {
        LOG.warn("trtrace could not build a sampled-out record for the listeners: {}", e.toString());
        built = minimalRecord(record);
      }
    } else {
      try {
        record.sampledReason = reason;
        // Everything kept for a reason other than head sampling (failures, slow) is priority: it may
        // use the dispatcher's reserved capacity and carries the input digest when enabled.
        boolean priority = !reason.equals(Sampler.SAMPLED) && !reason.equals(Sampler.ALWAYS);
        if (inputDigest && input != null && priority) {
          // Redacted where the record is built (the worker, on the garbage-free path: RecordEntry#resolveInput),
          // or here when the budget of deferred text is spent.
          record.digestInput(input.toString(), redactor);
        }
        withGpu(record, gpuMark).check();
        PendingOffer direct = pendingOffer;
        if (direct != null) {
          // One path whatever is installed: the worker builds the record and calls the listeners' onEnd.
          record.endListeners = handles;
          if (direct.offerPending(record, priority)) {
            enqueued.increment();
            return true;
          }
          record.endListeners = null; // dropped (counted): the listeners still end their traces, here
          if (handles != null) {
            built = record.build();
          }
        } else {
          built = record.build();
          if (dispatcher.offer(built, priority)) {
            enqueued.increment();
          }
        }
      } catch (RuntimeException e) {
        recordErrors.increment();
        LOG.warn("trtrace could not record a request: {}", e.toString());
        if (handles != null) {
          built = minimalRecord(record);
        }
      }
    }
    if (handles != null && built != null) {
      ListenerEnds.fire(handles, built, record.endEpochNanos, listenerFailures);
    }
    return false;
  }

  /**
   * What listeners get in {@code onEnd} when the full record could not be built (a sampler, redactor or
   * record field failed): only what the trace itself knows, so that every listener still ends its trace
   * (an OpenTelemetry span must end to be exported). Null in the unlikely case this fails too.
   */
  private static @Nullable InferenceRecord minimalRecord(RecordEntry e) {
    try {
      return minimalRecord(e.requestId, e.modelName, RecordEntry.instant(e.timestampEpochNanos), e.status, e.latencyMs);
    } catch (RuntimeException ex) {
      LOG.warn("trtrace could not build even a minimal record for listeners: {}", ex.toString());
      return null;
    }
  }

  /** The minimal record: request, model, start, status, latency and error type {@value #RECORD_ERROR}. */
  static InferenceRecord minimalRecord(
      String requestId, String modelName, Instant timestamp, Status status, double latencyMs) {
    return InferenceRecord.builder(requestId, modelName)
        .timestamp(timestamp)
        .status(status)
        .errorType(RECORD_ERROR)
        .latencyMs(Double.isNaN(latencyMs) || latencyMs < 0 || Double.isInfinite(latencyMs) ? 0 : latencyMs)
        .build();
  }

  /** The latest reading, and the mean and maximum over the readings in effect during the request. */
  private RecordEntry withGpu(RecordEntry record, GpuMetricsPoller.@Nullable Mark start) {
    if (gpuPoller != null && start != null) {
      GpuMetricsSource.Reading g = gpuPoller.latest();
      GpuUsage u = gpuPoller.usageSince(start);
      record.gpuUtil = g.utilPercent();
      record.gpuMemUsedMb = g.memUsedMb();
      record.gpuUtilMean = u.utilMean();
      record.gpuUtilMax = u.utilMax();
      record.gpuMemUtilMean = u.memUtilMean();
      record.gpuMemUtilMax = u.memUtilMax();
    }
    return record;
  }
}
