package io.github.trtrace.core.sampling;

import io.github.trtrace.core.Status;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Decides, on the caller thread at the end of each request, whether its record is kept and why.
 * Failures (every status but {@link Status#SUCCESS}) are always kept with the status's wire name
 * as reason. A success is kept as {@code "slow"} when its latency reaches the fixed threshold, as
 * {@code "slow_p99"} when it exceeds its model's current adaptive percentile over a sliding
 * window, and otherwise as {@code "sampled"} with probability {@code rate}.
 *
 * <pre>{@code
 * Sampler sampler = Sampler.builder()
 *     .rate(0.05)                              // keep 5 % of ordinary successes
 *     .slowThreshold(Duration.ofSeconds(2))    // always keep anything slower than 2 s
 *     .build();                                // and each model's p99 outliers (after 200 requests)
 * String reason = sampler.decide("llama-8b", Status.SUCCESS, 180.0);
 * if (reason != null) { dispatcher.offer(record.sampledReason(reason).build(), !reason.equals(Sampler.SAMPLED)); }
 * }</pre>
 *
 * <p>The adaptive percentile is computed per model from the latencies of its successes only (fast
 * rejections and deadline timeouts say nothing about normal serving time). Every success is
 * recorded, whether kept or sampled out, <em>after</em> its own decision: it is judged against the
 * requests before it. The percentile comes from a log-linear histogram over a sliding window, and
 * a success is "slow_p99" when it lies above the whole histogram bucket holding that percentile
 * (buckets are at most 3.1 % wide), so a service with steady latency is not flagged request after
 * request. The percentile is recomputed every 64 successes or 100 ms, and needs {@code minSamples}
 * successes in the window before it gives any verdict.
 *
 * <p>Implementations are thread-safe, lock-free on the decision path and never throw.
 */
public interface Sampler {
  /** Reason for a success at or above the fixed slow threshold. */
  String SLOW = "slow";
  /** Reason for a success at or above its model's adaptive percentile (p99 by default). */
  String SLOW_P99 = "slow_p99";
  /** Reason for a success kept by head sampling. */
  String SAMPLED = "sampled";
  /** Reason given by {@link #always()}. */
  String ALWAYS = "always";

  /**
   * Why the record is kept ({@code "error"}, {@code "timeout"}, {@code "rejected"},
   * {@code "cancelled"}, {@code "slow"}, {@code "slow_p99"}, {@code "sampled"}, {@code "always"}),
   * or {@code null} when it is sampled out.
   *
   * @param modelName the model that served the request
   * @param status the request's outcome
   * @param latencyMs end-to-end latency in milliseconds
   */
  @Nullable String decide(String modelName, Status status, double latencyMs);

  /** Counters since the sampler was built. */
  Stats stats();

  /** A sampler that keeps every record with reason {@code "always"}. */
  static Sampler always() {
    return new AlwaysSampler();
  }

  /** A builder; its defaults keep every record (rate 1.0) while tracking adaptive p99. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Configures a sampler.
   *
   * <pre>{@code
   * Sampler s = Sampler.builder().rate(0.1).window(Duration.ofMinutes(5)).minSamples(500).build();
   * }</pre>
   */
  final class Builder {
    private double rate = 1.0;
    private @Nullable Duration slowThreshold;
    private boolean adaptiveSlow = true;
    private Duration window = Duration.ofSeconds(60);
    private int minSamples = 200;
    private double percentile = 0.99;
    private int maxModels = 1024;
    private DoubleSupplier randomSource = () -> ThreadLocalRandom.current().nextDouble();
    private LongSupplier nanoClock = System::nanoTime;
    private boolean systemClock = true;

    private Builder() {}

    /** Share of ordinary successes kept, 0.0 (none) to 1.0 (all, the default). */
    public Builder rate(double rate) {
      if (!(rate >= 0.0 && rate <= 1.0)) {
        throw new IllegalArgumentException("rate must be within 0.0..1.0: " + rate);
      }
      this.rate = rate;
      return this;
    }

    /** Successes at least this slow are always kept with reason {@code "slow"}; none by default. */
    public Builder slowThreshold(Duration threshold) {
      Objects.requireNonNull(threshold, "threshold");
      if (threshold.isNegative() || threshold.isZero()) {
        throw new IllegalArgumentException("slowThreshold must be positive: " + threshold);
      }
      this.slowThreshold = threshold;
      return this;
    }

    /** Whether successes at or above their model's adaptive percentile are kept (default true). */
    public Builder adaptiveSlow(boolean adaptiveSlow) {
      this.adaptiveSlow = adaptiveSlow;
      return this;
    }

    /** Length of the sliding window of the adaptive percentile, 1 s .. 24 h (default 60 s). */
    public Builder window(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.compareTo(Duration.ofSeconds(1)) < 0 || window.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException("window must be within 1 s .. 24 h: " + window);
      }
      this.window = window;
      return this;
    }

    /** Successes a model's window must hold before the adaptive verdict applies (default 200). */
    public Builder minSamples(int minSamples) {
      if (minSamples < 1) {
        throw new IllegalArgumentException("minSamples must be >= 1: " + minSamples);
      }
      this.minSamples = minSamples;
      return this;
    }

    /** The adaptive percentile, strictly between 0 and 1 (default 0.99). */
    public Builder percentile(double percentile) {
      if (!(percentile > 0.0 && percentile < 1.0)) {
        throw new IllegalArgumentException("percentile must be within (0, 1): " + percentile);
      }
      this.percentile = percentile;
      return this;
    }

    /**
     * Models with their own window, 1 .. 65536 (default 1024; about 24 KiB each). Further models
     * share one "other" window, so unbounded or hostile model names cannot grow memory.
     */
    public Builder maxModels(int maxModels) {
      if (maxModels < 1 || maxModels > 65_536) {
        throw new IllegalArgumentException("maxModels must be within 1..65536: " + maxModels);
      }
      this.maxModels = maxModels;
      return this;
    }

    /** Uniform random numbers in [0, 1) for head sampling; for tests (default ThreadLocalRandom). */
    public Builder randomSource(DoubleSupplier randomSource) {
      this.randomSource = Objects.requireNonNull(randomSource, "randomSource");
      return this;
    }

    /** Monotonic clock in nanoseconds for the sliding window; for tests (default System::nanoTime). */
    public Builder nanoClock(LongSupplier nanoClock) {
      this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
      this.systemClock = false;
      return this;
    }

    /** A sampler with this configuration. */
    public Sampler build() {
      return new AdaptiveSampler(
          rate,
          // from seconds and nanos: toNanos() overflows past 292 years
          slowThreshold == null
              ? Double.POSITIVE_INFINITY
              : slowThreshold.getSeconds() * 1e3 + slowThreshold.getNano() / 1e6,
          adaptiveSlow,
          window.toNanos(),
          minSamples,
          percentile,
          maxModels,
          randomSource,
          nanoClock,
          systemClock);
    }
  }

  /**
   * Counters of a {@link Sampler} since it was built. An interface, so that counters can be added
   * without breaking callers.
   *
   * <pre>{@code
   * Sampler.Stats s = sampler.stats();
   * long slow = s.keptByReason().getOrDefault("slow_p99", 0L);
   * }</pre>
   */
  interface Stats {
    /**
     * Records kept, by reason ({@code "error"}, {@code "slow_p99"}, {@code "sampled"}, ...); reasons
     * never given are absent.
     */
    Map<String, Long> keptByReason();

    /** Records dropped by head sampling. */
    long sampledOut();

    /** Models with their own latency window. */
    int modelsTracked();

    /**
     * Decisions for models beyond the model bound (or with over-long names), whose latencies share one
     * "other" window.
     */
    long untrackedModelDecisions();

    /** All decisions: kept plus sampled out. */
    default long decisions() {
      long kept = 0;
      for (long n : keptByReason().values()) {
        kept += n;
      }
      return kept + sampledOut();
    }
  }
}
