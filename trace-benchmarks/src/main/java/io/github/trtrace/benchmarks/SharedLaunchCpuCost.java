package io.github.trtrace.benchmarks;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@link SharedLaunchBenchmark}'s two operations timed in the benchmark thread's own CPU time (and its
 * allocated bytes), which other processes on the machine do not stretch as they stretch JMH's wall-clock
 * scores on a shared machine. For 1, 8, 64 and 256 members: blocks of a shared launch and of the unbatched
 * path for the same requests alternate (A, B, A, B, ...; the first 20 pairs warm up), each block's CPU ns and
 * bytes per operation are kept, and the medians are printed, with the median of the pairs' ratios.
 *
 * <pre>{@code
 * java -cp trace-benchmarks/target/benchmarks.jar io.github.trtrace.benchmarks.SharedLaunchCpuCost
 * }</pre>
 */
public final class SharedLaunchCpuCost {
  static final int WARM_PAIRS = 20;
  static final int PAIRS = 21;

  private SharedLaunchCpuCost() {}

  public static void main(String[] args) {
    com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    mx.setThreadAllocatedMemoryEnabled(true);
    System.out.println("members | shared launch: CPU ns/launch, ns/member, B/launch | unbatched: CPU ns for the"
        + " members, ns/member, B | launch / unbatched (median of pairs, range)");
    for (int members : new int[] {1, 8, 64, 256}) {
      try (InferenceTracer tracer = InferenceTracer.builder().sink(RecordSink.named("discard", batch -> {}))
          .garbageFree(true).shutdownHook(false).build()) {
        InferenceTrace[] ts = new InferenceTrace[members];
        for (int i = 0; i < members; i++) {
          ts[i] = tracer.start("llama-8b", "req-bench-" + i);
        }
        int ops = 50_000 / members + 100;
        double[][] a = new double[2][PAIRS];
        double[][] b = new double[2][PAIRS];
        double[] ratio = new double[PAIRS];
        long sink = 0;
        for (int p = -WARM_PAIRS; p < PAIRS; p++) {
          long c0 = mx.getCurrentThreadCpuTime();
          long b0 = mx.getCurrentThreadAllocatedBytes();
          for (int k = 0; k < ops; k++) {
            sink += SharedLaunchBenchmark.launch(tracer, ts);
          }
          long c1 = mx.getCurrentThreadCpuTime();
          long b1 = mx.getCurrentThreadAllocatedBytes();
          for (int k = 0; k < ops; k++) {
            sink += SharedLaunchBenchmark.unbatched(ts).hashCode();
          }
          long c2 = mx.getCurrentThreadCpuTime();
          long b2 = mx.getCurrentThreadAllocatedBytes();
          if (p >= 0) {
            a[0][p] = (c1 - c0) / (double) ops;
            a[1][p] = (b1 - b0) / (double) ops;
            b[0][p] = (c2 - c1) / (double) ops;
            b[1][p] = (b2 - b1) / (double) ops;
            ratio[p] = a[0][p] / b[0][p];
          }
        }
        for (InferenceTrace t : ts) {
          t.close();
        }
        double la = median(a[0]);
        double ub = median(b[0]);
        System.out.printf(Locale.ROOT, "%7d | %,10.0f  %,7.0f  %6.2f | %,10.0f  %,7.0f  %6.2f | %.2f (%.2f-%.2f)%s%n",
            members, la, la / members, median(a[1]), ub, ub / members, median(b[1]), median(ratio),
            Arrays.stream(ratio).min().orElseThrow(), Arrays.stream(ratio).max().orElseThrow(),
            sink == 42 ? " " : "");
      }
    }
  }

  private static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
