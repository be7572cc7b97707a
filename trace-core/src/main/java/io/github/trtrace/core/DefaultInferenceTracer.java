package io.github.trtrace.core;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.dispatch.Dispatcher;
import io.github.trtrace.core.gpu.GpuReading;
import io.github.trtrace.core.internal.GpuMetricsPoller;
import io.github.trtrace.core.internal.GpuUsage;
import io.github.trtrace.core.internal.RateLimitedLogger;
import io.github.trtrace.core.redact.Redactor;
import io.github.trtrace.core.sampling.Sampler;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/** The tracer: starts traces, turns ended traces into records, hands them to the dispatcher. */
final class DefaultInferenceTracer implements InferenceTracer {
  private static final RateLimitedLogger LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger("io.github.trtrace.tracer"), 10_000);

  final Clock wallClock;
  final LongSupplier nanoClock;
  final Sampler sampler;
  final Redactor redactor;
  final boolean inputDigest;
  final int veryLongInputChars;
  private final Dispatcher dispatcher;
  private final @Nullable GpuMetricsPoller gpuPoller;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final TraceListener[] listeners;

  final LongAdder started = new LongAdder();
  final LongAdder ended = new LongAdder();
  final LongAdder sampledOut = new LongAdder();
  final LongAdder enqueued = new LongAdder();
  final LongAdder recordErrors = new LongAdder();
  final LongAdder misuse = new LongAdder();

  DefaultInferenceTracer(
      InferenceTracer.Builder b, Sampler sampler, Dispatcher dispatcher, @Nullable GpuMetricsPoller gpuPoller) {
    this.wallClock = b.wallClock;
    this.nanoClock = b.nanoClock;
    this.sampler = sampler;
    this.redactor = b.redactor;
    this.inputDigest = b.inputDigest;
    this.veryLongInputChars = b.veryLongInputChars;
    this.listeners = b.listeners.toArray(new TraceListener[0]);
    this.dispatcher = dispatcher;
    this.gpuPoller = gpuPoller;
  }

  @Override
  public InferenceTrace start(String modelName) {
    RequestContext ctx = RequestContext.current();
    String id = ctx.requestId();
    // RequestContext.with(...) already replaced an invalid ID (keeping the rejected value as an
    // attribute), so a context's ID is valid by construction and is not checked again here.
    return begin(
        modelName == null ? "unknown" : modelName, id == null ? RequestIds.generate() : id, ctx.attributes());
  }

  @Override
  public InferenceTrace start(String modelName, @Nullable String requestId) {
    RequestIds.Accepted accepted = RequestIds.accept(requestId);
    RequestContext ctx = RequestContext.current();
    Map<String, String> attributes = ctx.attributes();
    String rejected = accepted.rejectedValue();
    if (rejected != null) {
      attributes = new LinkedHashMap<>(attributes);
      attributes.put(RequestIds.REJECTED_ATTRIBUTE, rejected);
    } else if (attributes.containsKey(RequestIds.REJECTED_ATTRIBUTE) && !accepted.id().equals(ctx.requestId())) {
      // the context's rejected value belongs to the request whose ID replaced it, not to this one
      attributes = new LinkedHashMap<>(attributes);
      attributes.remove(RequestIds.REJECTED_ATTRIBUTE);
    }
    return begin(modelName == null ? "unknown" : modelName, accepted.id(), attributes);
  }

  private DefaultInferenceTrace begin(String model, String id, Map<String, String> attributes) {
    started.increment();
    DefaultInferenceTrace t =
        new DefaultInferenceTrace(this, id, model, attributes, wallClock.instant(), nanoClock.getAsLong());
    if (gpuPoller != null) {
      t.gpuMark = gpuPoller.mark();
    }
    if (listeners.length > 0) {
      TraceListener.Handle[] handles = new TraceListener.Handle[listeners.length];
      t.handles(handles);
      for (int i = 0; i < listeners.length; i++) {
        try {
          handles[i] =
              Objects.requireNonNull(listeners[i].onStart(t, t.startEpochNanos()), "onStart returned null");
        } catch (RuntimeException | LinkageError e) {
          handles[i] = null;
          listenerFailed(listeners[i].getClass().getName(), "onStart", id, e);
        }
      }
    }
    return t;
  }

  void listenerFailed(String listener, String callback, String requestId, Throwable e) {
    misuse.increment();
    LOG.warn("trtrace: listener {} failed in {} on trace {} and is skipped for it: {}",
        listener, callback, requestId, e.toString());
  }

  /** Called once per trace, on the thread that ended it. */
  void finish(
      DefaultInferenceTrace trace,
      InferenceRecord.Builder record,
      Status status,
      double latencyMs,
      @Nullable CharSequence input,
      TraceListener.Handle @Nullable [] handles,
      long endEpochNanos) {
    ended.increment();
    InferenceRecord built = null;
    try {
      String reason = sampler.decide(trace.modelName(), status, latencyMs);
      if (reason == null) {
        sampledOut.increment();
        if (handles == null) {
          return; // nobody sees a sampled-out record: do not build it
        }
        built = withGpu(record, trace).build();
      } else {
        record.sampledReason(reason);
        // Everything kept for a reason other than head sampling (failures, slow) is priority: it may
        // use the dispatcher's reserved capacity and carries the input digest when enabled.
        boolean priority = !reason.equals(Sampler.SAMPLED) && !reason.equals(Sampler.ALWAYS);
        if (inputDigest && input != null && priority) {
          record.inputDigest(redactor.digest(input));
        }
        built = withGpu(record, trace).build();
        if (dispatcher.offer(built, priority)) {
          enqueued.increment();
        }
      }
    } catch (RuntimeException e) {
      recordErrors.increment();
      LOG.warn("trtrace could not record a request: {}", e.toString());
      if (handles != null) {
        built = minimalRecord(trace, status, latencyMs);
      }
    }
    if (handles != null && built != null) {
      for (int i = handles.length - 1; i >= 0; i--) {
        TraceListener.Handle h = handles[i];
        if (h != null) {
          try {
            h.onEnd(built, endEpochNanos);
          } catch (RuntimeException | LinkageError e) {
            trace.listenerFailed(i, "onEnd", e);
          }
        }
      }
    }
  }

  /**
   * What listeners get in {@code onEnd} when the full record could not be built (a sampler, redactor or
   * record field failed): only what the trace itself knows, so that every listener still ends its trace
   * (an OpenTelemetry span must end to be exported). Null in the unlikely case this fails too.
   */
  private static @Nullable InferenceRecord minimalRecord(DefaultInferenceTrace trace, Status status, double latencyMs) {
    try {
      return InferenceRecord.builder(trace.requestId(), trace.modelName())
          .timestamp(trace.startedAt())
          .status(status)
          .errorType(RECORD_ERROR)
          .latencyMs(latencyMs)
          .build();
    } catch (RuntimeException e) {
      LOG.warn("trtrace could not build even a minimal record for listeners: {}", e.toString());
      return null;
    }
  }

  /** The error type of the {@linkplain #minimalRecord minimal record}. */
  static final String RECORD_ERROR = "trtrace.record_error";

  /** The latest reading, and the mean and maximum over the readings in effect during the request. */
  private InferenceRecord.Builder withGpu(InferenceRecord.Builder record, DefaultInferenceTrace trace) {
    GpuMetricsPoller.Mark start = trace.gpuMark;
    if (gpuPoller != null && start != null) {
      GpuReading g = gpuPoller.latest();
      GpuUsage u = gpuPoller.usageSince(start);
      record.gpuUtil(g.utilPercent()).gpuMemUsedMb(g.memUsedMb())
          .gpuUtilMean(u.utilMean()).gpuUtilMax(u.utilMax())
          .gpuMemUtilMean(u.memUtilMean()).gpuMemUtilMax(u.memUtilMax());
    }
    return record;
  }

  @Override
  public TracerStats stats() {
    return new TracerStats(
        started.sum(),
        ended.sum(),
        sampledOut.sum(),
        enqueued.sum(),
        recordErrors.sum(),
        misuse.sum(),
        dispatcher.stats());
  }

  @Override
  public CompletableFuture<Void> flush() {
    return dispatcher.flush();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (gpuPoller != null) {
      gpuPoller.close();
    }
    dispatcher.close();
  }
}
