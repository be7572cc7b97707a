package io.github.trtrace.tensorrt.engine;

import java.util.function.DoubleSupplier;

/**
 * A share of decisions taken at random, 0..1, as the profiling and the kernel-record policies sample: never at 0,
 * always at 1, otherwise a uniform draw (the source is shared by the launching threads, so draws are serialised).
 */
final class RateSampler {
  private final double rate;
  private final DoubleSupplier random;

  RateSampler(double rate, DoubleSupplier random) {
    this.rate = checkRate(rate);
    this.random = random;
  }

  /** {@code rate} when it is in [0, 1]; otherwise an {@code IllegalArgumentException} naming {@code sampleRate}. */
  static double checkRate(double rate) {
    if (!(rate >= 0 && rate <= 1)) {
      throw new IllegalArgumentException("sampleRate must be in [0, 1]: " + rate);
    }
    return rate;
  }

  double rate() {
    return rate;
  }

  boolean sample() {
    if (rate <= 0) {
      return false;
    }
    if (rate >= 1) {
      return true;
    }
    synchronized (random) {
      return random.getAsDouble() < rate;
    }
  }
}
