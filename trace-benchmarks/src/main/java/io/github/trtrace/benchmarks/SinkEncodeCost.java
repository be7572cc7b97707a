package io.github.trtrace.benchmarks;

import com.sun.management.ThreadMXBean;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Issue 22: the file sink's own CPU per record, the work its thread does for each line (encode, buffer,
 * write), apart from the dispatcher and the producers: {@code JsonLinesFileSink.write} of 512-record
 * batches of {@link RecordJsonBenchmark}'s full record into {@code /dev/null} (rotation off), for one
 * second per round, timed by the thread's CPU clock, so other processes on a shared machine move it
 * less than a wall-clock figure. Prints CPU ns per record for rounds 4-8 (1-3 warm up). A plain main,
 * run in a JVM per variant, so that two builds (before and after an encoder change) can be compared
 * with the same class.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.trtrace.benchmarks.SinkEncodeCost [label]}
 */
public final class SinkEncodeCost {
  private SinkEncodeCost() {}

  public static void main(String[] args) throws Exception {
    String label = args.length > 0 ? args[0] : "trtrace";
    InferenceRecord full =
        InferenceRecord.builder("req-01hq3k5w8x9y2z3a4b5c6d7e8f", "llama-3.1-8b-instruct")
            .timestamp(Instant.parse("2026-11-30T08:00:00.123456Z"))
            .status(Status.SUCCESS)
            .latencyMs(412.337)
            .traceId("4bf92f3577b34da6a3ce929d0e0e4736")
            .spanId("00f067aa0ba902b7")
            .inputTokens(512)
            .outputTokens(128)
            .queueMs(12.5)
            .preprocessMs(1.75)
            .inferMs(380.25)
            .gpuMs(371.125)
            .decodeMs(390.5)
            .postprocessMs(0.5)
            .ttftMs(45.25)
            .tpotMs(2.75)
            .gpuUtil(87)
            .gpuMemUsedMb(61_440)
            .engineFingerprint("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
            .sampledReason("sampled")
            .attribute("tenant", "acme")
            .attribute("route", "/v1/chat/completions")
            .build();
    List<InferenceRecord> batch = new ArrayList<>();
    for (int i = 0; i < 512; i++) {
      batch.add(full);
    }
    ThreadMXBean cpu = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (JsonLinesFileSink sink = JsonLinesFileSink.builder(Path.of("/dev/null")).maxFileBytes(0).build()) {
      for (int round = 1; round <= 8; round++) {
        long cpu0 = cpu.getCurrentThreadCpuTime();
        long records = 0;
        long end = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() - end < 0) {
          sink.write(batch);
          records += batch.size();
        }
        double nsPerRecord = (double) (cpu.getCurrentThreadCpuTime() - cpu0) / records;
        if (round > 3) {
          System.out.printf("%s round %d: %.1f cpu-ns/record%n", label, round, nsPerRecord);
        }
      }
    }
  }
}
