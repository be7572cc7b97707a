package io.github.trtrace.benchmarks.peers;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * One producer thread of a peer benchmark: its own request-ID sequence and, when the benchmark's
 * {@code totalRate} parameter is not 0, a {@link Pacer} that spaces its requests (the wait runs in a
 * {@code Level.Invocation} set-up, outside the measured time). Shared by every SDK's benchmark.
 */
@State(Scope.Thread)
public class Producer {
  private Pacer pacer = new Pacer(0);
  private long n;

  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) {
    init(Integer.parseInt(params.getParam("totalRate")), params.getThreads());
  }

  /** For use outside JMH ({@link SustainedThroughput}): {@code totalRate} requests/s over {@code threads}. */
  void init(int totalRate, int threads) {
    pacer = new Pacer(totalRate / threads);
    n = Thread.currentThread().getId() << 20;
  }

  @Setup(Level.Invocation)
  public void pace() {
    pacer.await();
  }

  /** The next request ID of this producer. */
  String nextRequestId() {
    return RequestShape.requestId(n++);
  }
}
