package io.github.trtrace.core.sampling;

import io.github.trtrace.core.Status;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.internal.sampling.EndReadingSampler;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * The sampler built by {@link Sampler#builder()}.
 *
 * <p>Only successes feed the latency windows: a fast rejection or a timeout at the deadline says
 * nothing about how long a served request normally takes, and would drag the percentile down or
 * up. Every success is recorded, kept or sampled out, so sampling never biases the percentile.
 * A success is recorded <em>after</em> its own decision: it is judged against the requests before
 * it, and an outlier cannot raise the bar it is measured against.
 */
final class AdaptiveSampler implements Sampler, EndReadingSampler {
  private static final RateLimitedLogger LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger(Sampler.class), 60_000);
  private static final int SUB_WINDOWS = 6;
  /** Longer names are not tracked on their own: a map key must not hold megabytes. */
  static final int MAX_MODEL_NAME_CHARS = 256;

  private static final Status[] STATUSES = Status.values();
  // reason slots: one per status (SUCCESS's slot unused), then slow, slow_p99, sampled
  private static final int R_SLOW = STATUSES.length;
  private static final int R_SLOW_P99 = R_SLOW + 1;
  private static final int R_SAMPLED = R_SLOW + 2;

  private final double rate;
  private final double fixedThresholdMs;
  private final boolean adaptive;
  private final long subWindowNanos;
  private final int minSamples;
  private final double percentile;
  private final int maxModels;
  private final DoubleSupplier random;
  private final LongSupplier clock;
  /** Whether {@link #clock} is {@code System.nanoTime} (the builder was given no clock). */
  private final boolean systemClock;

  private final ConcurrentHashMap<String, ModelLatency> models = new ConcurrentHashMap<>();
  private final Object admitLock = new Object();
  private final ModelLatency other;
  private final LongAdder untracked = new LongAdder();
  private final LongAdder[] kept = new LongAdder[R_SAMPLED + 1];
  private final LongAdder sampledOut = new LongAdder();

  AdaptiveSampler(
      double rate,
      double fixedThresholdMs,
      boolean adaptive,
      long windowNanos,
      int minSamples,
      double percentile,
      int maxModels,
      DoubleSupplier random,
      LongSupplier clock,
      boolean systemClock) {
    this.rate = rate;
    this.fixedThresholdMs = fixedThresholdMs;
    this.adaptive = adaptive;
    this.subWindowNanos = Math.max(1, windowNanos / SUB_WINDOWS);
    this.minSamples = minSamples;
    this.percentile = percentile;
    this.maxModels = maxModels;
    this.random = random;
    this.clock = clock;
    this.systemClock = systemClock;
    for (int i = 0; i < kept.length; i++) {
      kept[i] = new LongAdder();
    }
    this.other = newModel(clock.getAsLong());
  }

  @Override
  public @Nullable String decide(String modelName, Status status, double latencyMs) {
    return decide(modelName, status, latencyMs, Long.MIN_VALUE);
  }

  @Override
  public boolean sharesClock(LongSupplier tracerClock, boolean systemClocks) {
    return tracerClock == clock || (systemClock && systemClocks);
  }

  /**
   * {@link #decide(String, Status, double)} with the request's end as read on this sampler's clock, or
   * {@code Long.MIN_VALUE}: the clock is read here, and only when the adaptive window needs it.
   */
  @Override
  public @Nullable String decide(String modelName, Status status, double latencyMs, long nowNanos) {
    try {
      if (status != Status.SUCCESS) {
        if (status == null) {
          LOG.warn("Sampler.decide called with a null status for model {}; record kept as error", modelName);
          status = Status.ERROR;
        }
        kept[status.ordinal()].increment();
        return status.wireName();
      }
      double latency = latencyMs;
      if (!(latency >= 0.0)) {
        LOG.warn("Sampler.decide called with latency {} ms for model {}; treated as 0", latencyMs, modelName);
        latency = 0.0;
      }
      int reason = -1;
      if (latency >= fixedThresholdMs) {
        reason = R_SLOW;
      }
      if (adaptive) {
        ModelLatency model = model(modelName);
        long now = nowNanos == Long.MIN_VALUE ? clock.getAsLong() : nowNanos;
        if (reason < 0 && latency >= model.thresholdMs(now)) {
          reason = R_SLOW_P99;
        }
        model.record(latency, now);
      }
      if (reason < 0 && (rate >= 1.0 || (rate > 0.0 && random.getAsDouble() < rate))) {
        reason = R_SAMPLED;
      }
      if (reason < 0) {
        sampledOut.increment();
        return null;
      }
      kept[reason].increment();
      return reasonName(reason);
    } catch (RuntimeException e) {
      // e.g. a throwing test clock or random source: keep the record rather than lose it
      LOG.warn("sampling failed for model {}; record kept", modelName, e);
      kept[R_SAMPLED].increment();
      return SAMPLED;
    }
  }

  private ModelLatency model(@Nullable String name) {
    if (name == null || name.length() > MAX_MODEL_NAME_CHARS) {
      untracked.increment();
      return other;
    }
    ModelLatency m = models.get(name);
    if (m != null) {
      return m;
    }
    if (models.size() >= maxModels) { // lock-free once full: later unknown names go straight to other
      untracked.increment();
      return other;
    }
    synchronized (admitLock) { // only while new models are being admitted
      m = models.get(name);
      if (m == null) {
        if (models.size() >= maxModels) {
          untracked.increment();
          return other;
        }
        m = newModel(clock.getAsLong());
        models.put(name, m);
      }
      return m;
    }
  }

  private ModelLatency newModel(long nowNanos) {
    return new ModelLatency(new SlidingHistogram(SUB_WINDOWS, subWindowNanos), percentile, minSamples, nowNanos);
  }

  private static String reasonName(int reason) {
    if (reason < R_SLOW) {
      return STATUSES[reason].wireName();
    }
    return reason == R_SLOW ? SLOW : reason == R_SLOW_P99 ? SLOW_P99 : SAMPLED;
  }

  @Override
  public Sampler.Stats stats() {
    Map<String, Long> byReason = new LinkedHashMap<>();
    for (int r = 0; r < kept.length; r++) {
      long n = kept[r].sum();
      if (n > 0) {
        byReason.put(reasonName(r), n);
      }
    }
    return new SamplerCounts(byReason, sampledOut.sum(), models.size(), untracked.sum());
  }

  @Override
  public String toString() {
    return "Sampler[rate=" + rate + ", slowThresholdMs=" + fixedThresholdMs + ", adaptive=" + adaptive
        + ", percentile=" + percentile + ", minSamples=" + minSamples + ", maxModels=" + maxModels + "]";
  }
}
