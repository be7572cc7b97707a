package io.github.trtrace.examples.demo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The demo's throughput with continuous batching against one request at a time per engine, on the same
 * machine and the same requests: {@code requests} of the demo's production prompt mix sent at once to
 * {@code engines} engines, untraced, alternating the two settings {@code rounds} times (after a warm-up
 * of each), printing each round's wall time and the process's CPU time and their ratios. On a machine that
 * other processes load, wall time follows their load from one round to the next; CPU time per request
 * (the work the machine did for the same requests) does not, and is the steadier comparison.
 *
 * <pre>{@code
 * java -cp ... io.github.trtrace.examples.demo.BatchingThroughput 48 5 32          # the demo's mix
 * java -cp ... io.github.trtrace.examples.demo.BatchingThroughput 48 5 128 chats   # short prompts only
 * }</pre>
 */
public final class BatchingThroughput {
  private BatchingThroughput() {}

  /** CPU time of the whole process (the engine threads, the JIT and GC alike for both settings). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  public static void main(String[] args) {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 96;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int maxTokens = args.length > 2 ? Integer.parseInt(args[2]) : 32;
    boolean chats = args.length > 3 && args[3].equals("chats");
    int engines = Math.max(1, Runtime.getRuntime().availableProcessors());
    CpuBackend cpu = new CpuBackend(Tokenizer.standard());
    List<LoadGenerator.Planned> sample = LoadGenerator.plan(7L, chats ? 4 * requests : requests, 1, 0,
            Duration.ofMillis(100), maxTokens)
        .requests().stream().filter(p -> !p.burst() && (!chats || p.kind() == LoadGenerator.Kind.SHORT))
        .limit(requests).toList();
    long promptTokens = sample.stream().mapToLong(p -> cpu.tokenizer().session().encode(p.prompt()).length).sum();
    System.out.printf(Locale.ROOT, "%d requests (%,d prompt tokens, up to %d generated each), %d engines; %s%n",
        sample.size(), promptTokens, maxTokens, engines, BatchEngine.Settings.continuous().describe());
    double[] wall = new double[rounds];
    double[] cpuRatio = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      long c0 = processCpuNanos();
      double alone = Demo.measureEngines(cpu, sample, maxTokens, engines, BatchEngine.Settings.onePerWorker());
      long c1 = processCpuNanos();
      double batched = Demo.measureEngines(cpu, sample, maxTokens, engines, BatchEngine.Settings.continuous());
      long c2 = processCpuNanos();
      wall[round] = alone / batched;
      cpuRatio[round] = (double) (c1 - c0) / (c2 - c1);
      System.out.printf(Locale.ROOT, "round %d: one request at a time %.0f ms (%.1f requests/s, %.1f CPU ms a"
          + " request), continuous batching %.0f ms (%.1f requests/s, %.1f CPU ms a request): wall %.2fx, CPU"
          + " %.2fx%n", round + 1, alone, sample.size() * 1000 / alone, (c1 - c0) / 1e6 / sample.size(), batched,
          sample.size() * 1000 / batched, (c2 - c1) / 1e6 / sample.size(), wall[round], cpuRatio[round]);
    }
    java.util.Arrays.sort(wall);
    java.util.Arrays.sort(cpuRatio);
    System.out.printf(Locale.ROOT, "median over %d rounds: throughput by the clock %.2fx (range %.2f-%.2f), per"
        + " CPU-second %.2fx (range %.2f-%.2f); load average now %s%n", rounds, wall[rounds / 2], wall[0],
        wall[rounds - 1], cpuRatio[rounds / 2], cpuRatio[0], cpuRatio[rounds - 1],
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }
}
