package io.github.trtrace.core.internal.batch;

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
 * 1 to 256 members after a warm-up, with the launch log on (a real file). The launch path's only
 * allocations are the pool's ({@link Launches#poolAllocations()}): a launch object made when more
 * launches are in flight than ever before (the launch log's writer starved of CPU by other threads keeps
 * closed launches queued: on a loaded machine this happens after any warm-up), or grown when it first meets
 * a larger batch. Those are bounded by the pool; every round in which the pool did not grow must allocate
 * nothing, and one such round is required.
 */
class LaunchAllocationTest {
  static final int CHUNK = 250;
  static final int CHUNKS = 8;
  static final int MAX_ROUNDS = 12;
  /**
   * Past the tracer's once-a-second wall-clock check, twice: until that rarely taken branch is first taken, C2
   * compiles it as a trap, and the deoptimisation rematerialises objects that escape analysis had removed
   * (JDK 17: 2,248 B in one round after a 1.3 s warm-up, none with -XX:-EliminateAllocations); a later
   * compilation of a caller can trap once more.
   */
  static final long WARM_UP_NANOS = 2_500_000_000L;

  @TempDir Path dir;

  @Test
  void aLaunchAllocatesNothingOnTheSchedulerThreadUnlessThePoolGrows() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    threads.setThreadAllocatedMemoryEnabled(true);
    try (InferenceTracer tracer = InferenceTracer.builder().sink(RecordSink.named("none", b -> {}))
        .launchLog(dir.resolve("launches.log")).garbageFree(true).shutdownHook(false).build()) {
      InferenceTrace[] members = new InferenceTrace[256];
      for (int i = 0; i < members.length; i++) {
        members[i] = tracer.start("m", "req-" + i);
      }
      Launches pool = owner(tracer);
      long warmUntil = System.nanoTime() + WARM_UP_NANOS;
      for (int w = 0; w < 10 || System.nanoTime() < warmUntil; w++) {
        launches(tracer, members);
      }
      int steady = 0;
      for (int round = 0; round < MAX_ROUNDS && steady < 3; round++) {
        long poolBefore = pool.poolAllocations();
        long bytes = launches(tracer, members);
        long grown = pool.poolAllocations() - poolBefore;
        double perLaunch = bytes / (double) (CHUNK * CHUNKS);
        System.out.printf("LaunchAllocationTest round %d: %.3f bytes per launch, %d pool allocations%n", round,
            perLaunch, grown);
        if (grown == 0) {
          steady++;
          assertThat(perLaunch).as("round %d: scheduler-thread bytes per launch (1..256 members), pool unchanged", round)
              .isLessThan(1.0);
        }
      }
      assertThat(steady).as("rounds in which the pool did not grow").isPositive();
      assertThat(tracer.launchStats().dropped()).isZero();
      assertThat(tracer.stats().misuse()).isZero();
      for (InferenceTrace t : members) {
        t.close();
      }
    }
  }

  /**
   * The tracer derives wall-clock times from {@code nanoTime()} and checks its offset once a second on the
   * calling thread; that check allocated a calibration object and an {@code Instant} (56 B) on the
   * scheduler's thread each second.
   */
  @Test
  void launchesAcrossTheOnceASecondClockCheckAllocateNothing() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    threads.setThreadAllocatedMemoryEnabled(true);
    try (InferenceTracer tracer = InferenceTracer.builder().sink(RecordSink.named("none", b -> {}))
        .garbageFree(true).shutdownHook(false).build()) {
      InferenceTrace member = tracer.start("m", "req-1");
      Launches pool = owner(tracer);
      long until = System.nanoTime() + WARM_UP_NANOS;
      while (System.nanoTime() < until) {
        oneMemberLaunches(tracer, member, 1_000);
      }
      long grownBefore = pool.poolAllocations();
      long before = threads.getCurrentThreadAllocatedBytes();
      long end = System.nanoTime() + 2_300_000_000L; // two checks or more
      long launches = 0;
      while (System.nanoTime() < end) {
        launches += oneMemberLaunches(tracer, member, 1_000);
      }
      long bytes = threads.getCurrentThreadAllocatedBytes() - before;
      assertThat(pool.poolAllocations()).isEqualTo(grownBefore);
      assertThat(bytes).as("bytes for %d launches over 2.3 s", launches).isZero();
      member.close();
    }
  }

  private static long oneMemberLaunches(InferenceTracer tracer, InferenceTrace member, int n) {
    for (int k = 0; k < n; k++) {
      try (SharedLaunch l = tracer.launch("fp")) {
        l.decode(member);
        l.gpuMs(0.01);
      }
    }
    return n;
  }

  @Test
  void aLaunchObjectMadeAfterALargeBatchTakesItsSizeAtOnce() {
    try (InferenceTracer tracer = InferenceTracer.builder().sink(RecordSink.named("none", b -> {}))
        .garbageFree(true).shutdownHook(false).build()) {
      InferenceTrace[] members = new InferenceTrace[100];
      for (int i = 0; i < members.length; i++) {
        members[i] = tracer.start("m", "req-" + i);
      }
      try (SharedLaunch big = tracer.launch("fp")) { // grows 8 -> 16 -> ... -> 128
        for (InferenceTrace t : members) {
          big.decode(t);
        }
      }
      Launches pool = owner(tracer);
      try (SharedLaunch outer = tracer.launch("fp"); SharedLaunch inner = tracer.launch("fp")) {
        assertThat(((LaunchImpl) outer).states).hasSize(128); // the pooled one
        long before = pool.poolAllocations();
        for (InferenceTrace t : members) { // the new one: no growth on the way to 100 members
          inner.decode(t);
        }
        assertThat(((LaunchImpl) inner).states).hasSize(128);
        assertThat(pool.poolAllocations()).isEqualTo(before);
      }
      for (InferenceTrace t : members) {
        t.close();
      }
    }
  }

  private static Launches owner(InferenceTracer tracer) {
    try (SharedLaunch l = tracer.launch("fp")) {
      return ((LaunchImpl) l).owner;
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
