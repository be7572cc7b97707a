package io.github.trtrace.benchmarks.peers;

/**
 * Paces one producer thread at a fixed request rate. Used from a JMH {@code Level.Invocation} setup
 * method, so the wait is outside the measured time: the sample is the caller cost of one request at
 * a realistic arrival rate, not the writer's throughput at saturation. A rate of 0 disables pacing.
 */
final class Pacer {
  private final long intervalNanos;
  private long next;

  Pacer(int requestsPerSecondPerThread) {
    this.intervalNanos = requestsPerSecondPerThread <= 0 ? 0 : 1_000_000_000L / requestsPerSecondPerThread;
  }

  void await() {
    if (intervalNanos == 0) {
      return;
    }
    long now = System.nanoTime();
    if (next == 0 || now - next > 100 * intervalNanos) {
      next = now; // first call, or the thread fell far behind (GC, descheduling): restart the schedule
    }
    while (System.nanoTime() < next) {
      Thread.onSpinWait();
    }
    next += intervalNanos;
  }
}
