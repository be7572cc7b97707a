package io.github.trtrace.benchmarks.peers;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * Issue 22: the caller thread's own CPU time per traced request, the README's callback form ({@code
 * tracer.run(model, header, t -> ...)}, every default but a sink that discards) with §1's body
 * ({@link TrtraceFileBenchmark#body}). One producer calls back to back; the thread's CPU clock, not the
 * wall clock, is read around each round of 200 000 requests, so that time the producer spends
 * descheduled by other processes on a shared machine does not count (cache and frequency effects
 * still do). A plain main, for interleaved runs of two builds' jars; read the rounds after the JIT has
 * settled (the first five are printed but are warm-up).
 *
 * <pre>{@code
 * java -cp trace-benchmarks/target/benchmarks.jar io.github.trtrace.benchmarks.peers.CallerCpuCost [rounds]
 * }</pre>
 */
public final class CallerCpuCost {
  private static final int PER_ROUND = 200_000;

  private CallerCpuCost() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 16;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Producer ids = new Producer();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(RecordSink.named("discard", batch -> {})).build()) {
      for (int r = 0; r < rounds; r++) {
        long cpu = threads.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        for (int i = 0; i < PER_ROUND; i++) {
          tracer.run(RequestShape.MODEL, ids.nextRequestId(), TrtraceFileBenchmark::body);
        }
        wall = System.nanoTime() - wall;
        cpu = threads.getCurrentThreadCpuTime() - cpu;
        System.out.printf(Locale.ROOT, "round %d: caller cpu %.0f ns/request, wall %.0f ns/request%n",
            r, cpu / (double) PER_ROUND, wall / (double) PER_ROUND);
      }
      tracer.flush().join();
      System.out.println(tracer.stats());
    }
  }
}
