package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17's "no per-member allocation per launch": the bytes the scheduler thread allocates
 * ({@code ThreadMXBean#getCurrentThreadAllocatedBytes}, as {@code GarbageFreeTest}) for launches of
 * 1 to 256 members after a warm-up, with the launch log on (a real file). Best of three rounds: a
 * one-off JIT event may allocate once; an allocation on the launch path shows in every round.
 */
class LaunchAllocationTest {
  static final int CHUNK = 250;
  static final int CHUNKS = 8;

  @TempDir Path dir;

  @Test
  void aLaunchAllocatesNothingOnTheSchedulerThreadInSteadyState() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    threads.setThreadAllocatedMemoryEnabled(true);
    try (InferenceTracer tracer = InferenceTracer.builder().sink(RecordSink.named("none", b -> {}))
        .launchLog(dir.resolve("launches.log")).garbageFree(true).shutdownHook(false).build()) {
      InferenceTrace[] members = new InferenceTrace[256];
      for (int i = 0; i < members.length; i++) {
        members[i] = tracer.start("m", "req-" + i);
      }
      for (int w = 0; w < 10; w++) {
        launches(tracer, members);
      }
      double best = Double.MAX_VALUE;
      for (int round = 0; round < 3; round++) {
        long bytes = launches(tracer, members);
        best = Math.min(best, bytes / (double) (CHUNK * CHUNKS));
        System.out.printf("LaunchAllocationTest round %d: %.3f bytes per launch%n", round, bytes / (double) (CHUNK * CHUNKS));
      }
      assertThat(best).as("scheduler-thread bytes per launch (1..256 members)").isLessThan(1.0);
      assertThat(tracer.launchStats().dropped()).isZero();
      assertThat(tracer.stats().misuse()).isZero();
      for (InferenceTrace t : members) {
        t.close();
      }
    }
  }

  /** CHUNKS x CHUNK launches of 1..256 members; returns the bytes allocated inside the chunks (flushes apart). */
  private static long launches(InferenceTracer tracer, InferenceTrace[] members) {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long total = 0;
    for (int c = 0; c < CHUNKS; c++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int k = 0; k < CHUNK; k++) {
        int size = 1 << (k % 9); // 1, 2, 4, ..., 256
        try (SharedLaunch l = tracer.launch("fp")) {
          l.prefill(members[0], 512);
          for (int i = 1; i < size; i++) {
            l.decode(members[i]);
          }
          l.gpuMs(size * 0.01);
        }
      }
      total += threads.getCurrentThreadAllocatedBytes() - before;
      tracer.flush().join(); // outside the measurement: keeps the launch log's queue from filling
    }
    return total;
  }
}
