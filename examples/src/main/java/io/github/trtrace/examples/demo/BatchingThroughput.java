package io.github.trtrace.examples.demo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The demo's throughput with continuous batching against one request at a time per engine, on the same
 * machine and the same requests: {@code requests} of the demo's production prompt mix sent at once to
 * {@code engines} engines, untraced, alternating the two settings {@code rounds} times (after a warm-up
 * of each), printing each round's wall time and the ratio.
 *
 * <pre>{@code
 * java -cp ... io.github.trtrace.examples.demo.BatchingThroughput 96 3
 * }</pre>
 */
public final class BatchingThroughput {
  private BatchingThroughput() {}

  public static void main(String[] args) {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 96;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int maxTokens = args.length > 2 ? Integer.parseInt(args[2]) : 32;
    int engines = Math.max(1, Runtime.getRuntime().availableProcessors());
    CpuBackend cpu = new CpuBackend(Tokenizer.standard());
    List<LoadGenerator.Planned> sample = LoadGenerator.plan(7L, requests, 1, 0, Duration.ofMillis(100), maxTokens)
        .requests().stream().filter(p -> !p.burst()).limit(requests).toList();
    long promptTokens = sample.stream().mapToLong(p -> cpu.tokenizer().session().encode(p.prompt()).length).sum();
    System.out.printf(Locale.ROOT, "%d requests (%,d prompt tokens, up to %d generated each), %d engines; %s%n",
        sample.size(), promptTokens, maxTokens, engines, BatchEngine.Settings.continuous().describe());
    double sumRatio = 0;
    for (int round = 1; round <= rounds; round++) {
      double alone = Demo.measureEngines(cpu, sample, maxTokens, engines, BatchEngine.Settings.onePerWorker());
      double batched = Demo.measureEngines(cpu, sample, maxTokens, engines, BatchEngine.Settings.continuous());
      sumRatio += alone / batched;
      System.out.printf(Locale.ROOT, "round %d: one request at a time %.0f ms (%.1f requests/s), continuous"
          + " batching %.0f ms (%.1f requests/s): %.2fx%n", round, alone, sample.size() * 1000 / alone, batched,
          sample.size() * 1000 / batched, alone / batched);
    }
    System.out.printf(Locale.ROOT, "mean ratio %.2fx over %d rounds%n", sumRatio / rounds, rounds);
  }
}
