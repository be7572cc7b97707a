package io.github.trtrace.tensorrt.engine;

import io.github.trtrace.core.SharedLaunch;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Decides which shared launches get their GPU kernels recorded (CUPTI activity records, written to the launch
 * log as a {@code kernels} line): a sampled share of launches, and/or every launch that carries one request.
 * Off by default: an engine whose policy is off loads no CUPTI library and makes no CUPTI call. Thread-safe.
 *
 * <p>An operator turns it on without code through system properties, read by {@link #fromSystemProperties()}
 * (what {@link TracedEngine.Builder} uses unless given a policy): {@value #SAMPLE_PROPERTY} (share of
 * launches, 0..1) and {@value #REQUEST_PROPERTY} (a request ID whose launches are all recorded).
 *
 * <pre>{@code
 * TracedEngine engine = TracedEngine.builder(cudaEngine)
 *     .kernelRecords(KernelRecordPolicy.builder().sampleRate(0.01).requestId("req-42").build())
 *     .build();
 * // or: java -Dtrtrace.kernels.sample=0.01 -Dtrtrace.kernels.request=req-42 ...
 * }</pre>
 */
public interface KernelRecordPolicy {

  /** System property: the share of launches whose kernels are recorded, 0..1. */
  String SAMPLE_PROPERTY = "trtrace.kernels.sample";

  /** System property: a request ID whose launches all get their kernels recorded. */
  String REQUEST_PROPERTY = "trtrace.kernels.request";

  /** Whether the kernels of {@code launch} (members declared) are recorded. */
  boolean shouldRecord(SharedLaunch launch);

  /** Whether this policy can ever record: false for {@link #off()}, so the engine never starts CUPTI. */
  boolean enabled();

  /** The request whose launches are all recorded (and get an NVTX request range), or null. */
  @Nullable String requestId();

  /** Records nothing. */
  static KernelRecordPolicy off() {
    return builder().build();
  }

  /** A builder; by default nothing is recorded. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * The policy the system properties {@value #SAMPLE_PROPERTY} and {@value #REQUEST_PROPERTY} describe;
   * {@link #off()} when neither is set.
   *
   * @throws IllegalArgumentException when a property is set to an invalid value (named in the message)
   */
  static KernelRecordPolicy fromSystemProperties() {
    return fromProperties(System.getProperty(SAMPLE_PROPERTY), System.getProperty(REQUEST_PROPERTY));
  }

  /** {@link #fromSystemProperties()} over given values (null: unset). */
  static KernelRecordPolicy fromProperties(@Nullable String sample, @Nullable String requestId) {
    Builder b = builder();
    if (sample != null && !sample.isBlank()) {
      double rate;
      try {
        rate = Double.parseDouble(sample.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(SAMPLE_PROPERTY + "=" + sample + ": must be a number between 0 and 1");
      }
      if (!(rate >= 0 && rate <= 1)) {
        throw new IllegalArgumentException(SAMPLE_PROPERTY + "=" + sample + ": must be between 0 and 1");
      }
      b.sampleRate(rate);
    }
    if (requestId != null && !requestId.isBlank()) {
      b.requestId(requestId.trim());
    }
    return b.build();
  }

  /** Configures a {@link KernelRecordPolicy}. */
  final class Builder {
    private double sampleRate;
    private @Nullable String requestId;
    private DoubleSupplier random = new SplittableRandom()::nextDouble;

    private Builder() {}

    /** Share of launches recorded at random, 0..1. */
    public Builder sampleRate(double rate) {
      this.sampleRate = RateSampler.checkRate(rate);
      return this;
    }

    /** Records every launch that has {@code id} among its members. */
    public Builder requestId(String id) {
      Objects.requireNonNull(id, "id");
      if (id.isBlank()) {
        throw new IllegalArgumentException("requestId must not be blank");
      }
      this.requestId = id;
      return this;
    }

    /** Source of uniform numbers in [0, 1) for sampling; inject a seeded one for deterministic tests. */
    public Builder random(DoubleSupplier uniform) {
      this.random = Objects.requireNonNull(uniform, "uniform");
      return this;
    }

    public KernelRecordPolicy build() {
      return new DefaultKernelRecordPolicy(sampleRate, requestId, random);
    }
  }
}

final class DefaultKernelRecordPolicy implements KernelRecordPolicy {
  private final RateSampler sampler;
  private final @Nullable String requestId;

  DefaultKernelRecordPolicy(double sampleRate, @Nullable String requestId, DoubleSupplier random) {
    this.sampler = new RateSampler(sampleRate, random);
    this.requestId = requestId;
  }

  @Override
  public boolean shouldRecord(SharedLaunch launch) {
    return requestId != null && launch.hasMember(requestId) || sampler.sample();
  }

  @Override
  public boolean enabled() {
    return sampler.rate() > 0 || requestId != null;
  }

  @Override
  public @Nullable String requestId() {
    return requestId;
  }

  @Override
  public String toString() {
    return "KernelRecordPolicy{sampleRate=" + sampler.rate() + ", requestId=" + requestId + "}";
  }
}
