package io.github.trtrace.benchmarks;

import com.sun.management.ThreadMXBean;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
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
    InferenceRecord full = RecordJsonBenchmark.sampleRecord();
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
