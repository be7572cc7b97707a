package io.github.trtrace.core;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.dispatch.Dispatcher;
import io.github.trtrace.core.gpu.GpuMetricsPoller;
import io.github.trtrace.core.gpu.GpuReading;
import io.github.trtrace.core.internal.RateLimitedLogger;
import io.github.trtrace.core.redact.Redactor;
import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Clock;
import java.util.Map;
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

  final LongAdder started = new LongAdder();
  final LongAdder ended = new LongAdder();
  final LongAdder sampledOut = new LongAdder();
  final LongAdder enqueued = new LongAdder();
  final LongAdder recordErrors = new LongAdder();
  final LongAdder misuse = new LongAdder();

  DefaultInferenceTracer(InferenceTracer.Builder b) {
    this.wallClock = b.wallClock;
    this.nanoClock = b.nanoClock;
    Sampler chosen = b.sampler;
    if (chosen == null) {
      chosen = b.samplerBuilder != null ? b.samplerBuilder.build() : Sampler.builder().build();
    } else if (b.samplerBuilder != null) {
      LoggerFactory.getLogger("io.github.trtrace.tracer")
          .warn("trtrace: sampler(...) was given, so the {} and {} settings are ignored",
              InferenceTracer.Builder.ENV_SAMPLE_RATE, InferenceTracer.Builder.ENV_SLOW_MS);
    }
    this.sampler = chosen;
    this.redactor = b.redactor;
    this.inputDigest = b.inputDigest;
    this.veryLongInputChars = b.veryLongInputChars;
    if (b.customDispatcher != null) {
      this.dispatcher = b.customDispatcher;
    } else {
      for (RecordSink sink : b.sinks) {
        b.dispatcher.sink(sink);
      }
      this.dispatcher = b.dispatcher.build();
    }
    this.gpuPoller = b.gpuSource == null ? null : GpuMetricsPoller.start(b.gpuSource, b.gpuInterval);
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
  public InferenceTrace start(String modelName, String requestId) {
    RequestIds.Accepted accepted = RequestIds.accept(requestId);
    DefaultInferenceTrace t =
        begin(modelName == null ? "unknown" : modelName, accepted.id(), RequestContext.current().attributes());
    if (accepted.rejectedValue() != null) {
      t.attribute(RequestIds.REJECTED_ATTRIBUTE, accepted.rejectedValue());
    }
    return t;
  }

  private DefaultInferenceTrace begin(String model, String id, Map<String, String> attributes) {
    started.increment();
    return new DefaultInferenceTrace(this, id, model, attributes, wallClock.instant(), nanoClock.getAsLong());
  }

  /** Called once per trace, on the thread that ended it. */
  void finish(
      String model, InferenceRecord.Builder record, Status status, double latencyMs, @Nullable CharSequence input) {
    ended.increment();
    try {
      String reason = sampler.decide(model, status, latencyMs);
      if (reason == null) {
        sampledOut.increment();
        return;
      }
      record.sampledReason(reason);
      // Everything kept for a reason other than head sampling (failures, slow) is priority: it may
      // use the dispatcher's reserved capacity and carries the input digest when enabled.
      boolean priority = !reason.equals(Sampler.SAMPLED) && !reason.equals(Sampler.ALWAYS);
      if (inputDigest && input != null && priority) {
        record.inputDigest(redactor.digest(input));
      }
      if (gpuPoller != null) {
        GpuReading g = gpuPoller.latest();
        record.gpuUtil(g.utilPercent()).gpuMemUsedMb(g.memUsedMb());
      }
      if (dispatcher.offer(record.build(), priority)) {
        enqueued.increment();
      }
    } catch (RuntimeException e) {
      recordErrors.increment();
      LOG.warn("trtrace could not record a request: {}", e.toString());
    }
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
