package io.github.trtrace.benchmarks;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Issue 22: what the file sink's compression of rotated files costs, per byte of log, and how small it
 * makes them. The sink (default settings but 64 MiB files) writes about 200 MiB of records in 512-record
 * batches on this thread, rotating three times; closing it waits for the last compression. The CPU of
 * the whole process minus this thread's is the compressor's (plus some JIT and GC: read rounds 2-4). Two
 * kinds of record: {@code pool}, the caller-cost benchmarks' shape (request IDs from a pool of 1,024, one
 * trace context, the same figures), and {@code random}, random trace and span IDs, UUID request IDs and
 * varying figures, as a service's log has them. A plain main, one JVM per build and kind, so that two
 * builds can be compared with the same class.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.trtrace.benchmarks.RotatedGzipCost pool|random [label]}
 */
public final class RotatedGzipCost {
  private static final long FILE_BYTES = 64L << 20;

  private RotatedGzipCost() {}

  public static void main(String[] args) throws Exception {
    boolean random = args.length > 0 && args[0].equals("random");
    String label = args.length > 1 ? args[1] : "trtrace";
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    List<InferenceRecord> batch = new ArrayList<>(512);
    SplittableRandom rnd = new SplittableRandom(42);
    for (int round = 1; round <= 4; round++) {
      Path dir = Files.createTempDirectory("trtrace-gzip-cost");
      Path log = dir.resolve("inference.log");
      long process0 = os.getProcessCpuTime();
      long own0 = threads.getCurrentThreadCpuTime();
      long written = 0;
      try (JsonLinesFileSink sink = JsonLinesFileSink.builder(log).maxFileBytes(FILE_BYTES).build()) {
        for (int i = 0; written < 3 * FILE_BYTES + FILE_BYTES / 8; i++) {
          InferenceRecord r = random ? randomRecord(rnd, i) : poolRecord(i);
          written += RecordConvention.toJson(r).length() + 1; // ASCII records: one byte a char, and the line feed
          batch.add(r);
          if (batch.size() == 512) {
            sink.write(batch);
            batch.clear();
          }
        }
        sink.write(batch);
        batch.clear();
      }
      long compressCpu = (os.getProcessCpuTime() - process0) - (threads.getCurrentThreadCpuTime() - own0);
      long plainLeft = Files.size(log);
      long gzBytes = 0;
      long rotatedPlain = 0;
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          if (f.getFileName().toString().endsWith(".gz")) {
            gzBytes += Files.size(f);
          } else if (!f.equals(log)) {
            rotatedPlain += Files.size(f); // a rotated file left uncompressed (would be a failure)
          }
        }
      }
      long compressedInput = written - plainLeft - rotatedPlain;
      System.out.printf("%s %s round %d: compressor %.2f cpu-ns/byte of log, %.1f:1 (%d MiB into %d KiB)%n", label,
          random ? "random" : "pool", round, (double) compressCpu / compressedInput, (double) compressedInput / gzBytes,
          compressedInput >> 20, gzBytes >> 10);
      delete(dir);
    }
  }

  private static InferenceRecord poolRecord(int i) {
    return InferenceRecord.builder("req-bench-" + (i & 1023), "llama-8b")
        .timestamp(Instant.ofEpochSecond(1_765_000_000L + i / 400_000, (i % 400_000) * 2_500L))
        .status(Status.SUCCESS).latencyMs(0.0).traceId("4bf92f3577b34da6a3ce929d0e0e4736")
        .spanId("00f067aa0ba902b7").inputTokens(128).outputTokens(64).queueMs(0).preprocessMs(0).inferMs(0)
        .gpuMs(4.25).decodeMs(0).ttftMs(0).tpotMs(0).engineFingerprint("sha256:0f1e2d").sampledReason("sampled")
        .attribute("tenant", "acme").attribute("route", "/v1/chat").build();
  }

  private static InferenceRecord randomRecord(SplittableRandom r, int i) {
    double latency = 50 + r.nextDouble() * 3000;
    return InferenceRecord.builder(new UUID(r.nextLong(), r.nextLong()).toString(), "llama-8b")
        .timestamp(Instant.ofEpochSecond(1_765_000_000L + i / 2_000, (i % 2_000) * 500_000L + r.nextInt(1000) * 1000L))
        .status(Status.SUCCESS).latencyMs(latency)
        .traceId(String.format("%016x%016x", r.nextLong(), r.nextLong())).spanId(String.format("%016x", r.nextLong()))
        .inputTokens(r.nextInt(4000)).outputTokens(r.nextInt(800)).queueMs(r.nextDouble() * 40)
        .preprocessMs(r.nextDouble() * 3).inferMs(latency * 0.8).gpuMs(latency * 0.7).decodeMs(latency * 0.6)
        .ttftMs(latency * 0.1).tpotMs(r.nextDouble() * 20).engineFingerprint("sha256:0f1e2d").sampledReason("sampled")
        .attribute("tenant", "t" + r.nextInt(50)).attribute("route", "/v1/chat").build();
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.delete(f);
      }
    }
    Files.delete(dir);
  }
}
