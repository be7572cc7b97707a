package io.github.trtrace.benchmarks;

import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.cli.TrtraceCli;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.Status;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A plain timed harness (not JMH: one long pass over a file is the workload) for {@code trtrace
 * stats}: writes a log of N records with trace-core's own {@link RecordConvention#appendJsonLine} (once; reused when the
 * file is there), then runs {@code stats --json} in this JVM and prints lines/s, the peak heap used
 * (sum of the heap pools' peaks, reset after generation) and the heap limit. Run it with a small
 * heap to show that memory does not grow with the log:
 *
 * <pre>{@code
 * mvn -B -ntp -pl trace-benchmarks -am -DskipTests package
 * java -Xmx64m -cp trace-benchmarks/target/benchmarks.jar io.github.trtrace.benchmarks.CliStatsThroughput 10000000 /tmp/trtrace-10m.log
 * }</pre>
 */
public final class CliStatsThroughput {
  private CliStatsThroughput() {}

  public static void main(String[] args) throws IOException {
    long lines = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
    Path file = Path.of(args.length > 1 ? args[1] : "target/cli-bench/inference.log");
    if (!Files.exists(file)) {
      long t0 = System.nanoTime();
      generate(file, lines);
      System.out.printf(Locale.ROOT, "generated %,d records (%,d bytes) in %.1f s%n", lines, Files.size(file),
          (System.nanoTime() - t0) / 1e9);
    }
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      pool.resetPeakUsage();
    }
    PrintStream sink = new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8);
    long t0 = System.nanoTime();
    int code = TrtraceCli.run(sink, System.err, "stats", "--json", "--no-progress", file.toString());
    double secs = (System.nanoTime() - t0) / 1e9;
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    long count = countLines(file);
    System.out.printf(Locale.ROOT, "trtrace stats: exit %d, %,d lines (%,d bytes) in %.2f s = %,.0f lines/s, %.0f MB/s;"
            + " peak heap used %.1f MiB of max %.0f MiB (java %s)%n", code, count, Files.size(file), secs, count / secs,
        Files.size(file) / secs / 1e6, peak / 1048576.0, Runtime.getRuntime().maxMemory() / 1048576.0,
        System.getProperty("java.version"));
    if (code != 0) {
      System.exit(code);
    }
  }

  private static long countLines(Path file) throws IOException {
    try (var in = Files.newInputStream(file)) {
      byte[] b = new byte[1 << 16];
      long n = 0;
      int r;
      while ((r = in.read(b)) > 0) {
        for (int i = 0; i < r; i++) {
          if (b[i] == '\n') {
            n++;
          }
        }
      }
      return n;
    }
  }

  /** Records like the demo's: 80 % short prompts, a knee at 1,024 tokens, some bidi inputs and errors. */
  static void generate(Path file, long lines) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    SplittableRandom r = new SplittableRandom(1);
    Instant start = Instant.parse("2026-12-01T08:00:00Z");
    StringBuilder sb = new StringBuilder(512);
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (long i = 0; i < lines; i++) {
        int tokens = r.nextDouble() < 0.8 ? 16 + r.nextInt(1000) : 1024 + r.nextInt(1600);
        double compute = (300 + 0.2 * tokens + 1.5 * Math.max(0, tokens - 1024)) * (0.95 + 0.1 * r.nextDouble());
        double queue = -Math.log(1 - r.nextDouble()) * 15;
        boolean error = i % 53 == 11;
        InferenceRecord.Builder b = InferenceRecord.builder("req-" + Long.toHexString(0x1000_0000_0000L + i), "tiny-llm")
            .timestamp(start.plusNanos(i * 1_000_000L))
            .status(error ? Status.ERROR : Status.SUCCESS)
            .errorType(error ? "CudaError" : null)
            .latencyMs(compute + queue)
            .inputTokens(tokens)
            .outputTokens(64)
            .queueMs(queue)
            .preprocessMs(1.25)
            .inferMs(compute * 0.4)
            .gpuMs(compute * 0.35)
            .decodeMs(compute * 0.6 - 1.75)
            .postprocessMs(0.5)
            .ttftMs(queue + compute * 0.42)
            .gpuUtil(70 + r.nextInt(30));
        if (i % 37 == 7) {
          b.inputFlags(EnumSet.of(InputFlag.BIDI_CONTROL));
        }
        sb.setLength(0);
        RecordConvention.appendJsonLine(b.build(), sb);
        w.append(sb);
      }
    }
  }
}
