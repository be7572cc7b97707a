package io.github.trtrace.benchmarks;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue 19 §6: where the time of a whole traced call ({@code tracer.run}) goes when the sinks cannot keep
 * up. A plain harness, not a timed test: four producers trace requests as fast as they can, and each
 * call's wall time is split into the caller thread's CPU time and the rest (off CPU: parked in the
 * offer's BLOCK wait, descheduled, or stopped at a safepoint). The same load runs in variants that
 * take one cause away at a time:
 *
 * <ul>
 *   <li>{@code noop}: {@code InferenceTracer.noop()}, the body only: what the machine alone does to a
 *       call (descheduling of 4 producers on the cores, GC, safepoints);
 *   <li>{@code drop}: a slow sink (20 µs a record) with the DROP policy: tracing without any wait;
 *   <li>{@code block}: the same sink with BLOCK and a block timeout of 5 ms (the default until issue 22, now 1 s);
 *   <li>{@code disk-full}: BLOCK, the default JSON Lines file sink on a full file system (the first
 *       argument: a file on a filled tmpfs).
 * </ul>
 *
 * <pre>{@code
 * java -cp trace-benchmarks/target/benchmarks.jar io.github.trtrace.benchmarks.CallerBound [log-on-full-disk] [calls-per-producer]
 * }</pre>
 */
public final class CallerBound {
  private static final int PRODUCERS = 4;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private CallerBound() {}

  public static void main(String[] args) throws Exception {
    Path fullDisk = args.length > 0 && !args[0].equals("-") ? Path.of(args[0]) : null;
    int calls = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    System.out.printf("CallerBound: %d producers x %d calls, %d cores, %s %s%n", PRODUCERS, calls,
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"), System.getProperty("java.version"));
    for (int round = 0; round < 2; round++) { // round 0 warms up
      boolean print = round == 1;
      run("noop", InferenceTracer.noop(), calls, print);
      run("drop", slowSinkTracer(InferenceTracer.QueueFullPolicy.DROP), calls, print);
      run("block", slowSinkTracer(InferenceTracer.QueueFullPolicy.BLOCK), calls, print);
      if (fullDisk != null) {
        run("disk-full", InferenceTracer.builder().jsonLinesFile(fullDisk).shutdownHook(false).build(), calls, print);
      }
    }
  }

  /** A sink that spends 20 µs a record (parked, as a network or disk write would). */
  private static InferenceTracer slowSinkTracer(InferenceTracer.QueueFullPolicy policy) {
    RecordSink slow = RecordSink.named("slow", records -> LockSupport.parkNanos(20_000L * records.size()));
    return InferenceTracer.builder().sink(slow).queueFullPolicy(policy).blockTimeout(Duration.ofMillis(5))
        .shutdownHook(false).build();
  }

  private static void run(String label, InferenceTracer tracer, int calls, boolean print) throws Exception {
    long[][] wall = new long[PRODUCERS][calls];
    long[][] cpu = new long[PRODUCERS][calls];
    long[][] queued = new long[PRODUCERS][calls];
    long gcBefore = gcMillis();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      int producer = p;
      Thread t = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        SchedStat sched = SchedStat.ofThisThread();
        for (int i = 0; i < calls; i++) {
          long q0 = sched.runQueueNanos();
          long c0 = THREADS.getCurrentThreadCpuTime();
          long t0 = System.nanoTime();
          tracer.run("bound-model", "req-" + producer + "-" + i, tr -> {
            tr.inputTokens(128);
            tr.stage(Stage.INFER).close();
            tr.outputTokens(64);
          });
          long t1 = System.nanoTime();
          long c1 = THREADS.getCurrentThreadCpuTime();
          queued[producer][i] = sched.runQueueNanos() - q0;
          wall[producer][i] = t1 - t0;
          cpu[producer][i] = c1 - c0;
        }
      }, "producer-" + p);
      producers.add(t);
      t.start();
    }
    long began = System.nanoTime();
    start.countDown();
    for (Thread t : producers) {
      t.join();
    }
    long elapsed = System.nanoTime() - began;
    long gc = gcMillis() - gcBefore;
    TracerStats stats = tracer.stats();
    tracer.close();
    if (!print) {
      return;
    }
    int n = PRODUCERS * calls;
    long[] w = new long[n];
    int slowest = 0;
    long slowestCpu = 0;
    long slowestQueued = 0;
    long over5Queued = 0;
    long over5 = 0;
    long over5Cpu = 0;
    for (int p = 0, k = 0; p < PRODUCERS; p++) {
      for (int i = 0; i < calls; i++, k++) {
        w[k] = wall[p][i];
        if (w[k] > w[slowest]) {
          slowest = k;
          slowestCpu = cpu[p][i];
          slowestQueued = queued[p][i];
        }
        if (w[k] > 5_000_000) {
          over5++;
          over5Cpu += cpu[p][i];
          over5Queued += queued[p][i];
        }
      }
    }
    long slowestWall = w[slowest];
    Arrays.sort(w);
    System.out.printf("%-9s calls/s %,9.0f | whole call µs: p50 %7.1f p99 %8.1f p99.9 %8.1f max %9.1f"
            + " | slowest: cpu %7.1f µs, runnable-waiting %9.1f µs, parked %9.1f µs | calls > 5 ms: %d (mean cpu %.1f µs,"
            + " runnable-waiting %.1f µs)"
            + " | GC %d ms | accepted %d, dropped %d (block timeout %d)%n",
        label, n / (elapsed / 1e9), us(w, 0.50), us(w, 0.99), us(w, 0.999), w[n - 1] / 1e3,
        slowestCpu / 1e3, slowestQueued / 1e3, Math.max(0, slowestWall - slowestCpu - slowestQueued) / 1e3,
        over5, over5 == 0 ? 0.0 : over5Cpu / 1e3 / over5, over5 == 0 ? 0.0 : over5Queued / 1e3 / over5, gc,
        stats.dispatcher().accepted(), stats.dispatcher().dropped(), stats.dispatcher().droppedBlockTimeout());
  }

  /**
   * The calling thread's time waiting on a run queue (runnable, no CPU), from {@code
   * /proc/thread-self/schedstat} (Linux; its second field), kept open and re-read; 0 elsewhere.
   */
  private static final class SchedStat {
    private final java.io.RandomAccessFile file;
    private final byte[] buf = new byte[128];

    private SchedStat(java.io.RandomAccessFile file) {
      this.file = file;
    }

    static SchedStat ofThisThread() {
      try {
        return new SchedStat(new java.io.RandomAccessFile("/proc/thread-self/schedstat", "r"));
      } catch (java.io.IOException e) {
        return new SchedStat(null);
      }
    }

    long runQueueNanos() {
      if (file == null) {
        return 0;
      }
      try {
        file.seek(0);
        int n = file.read(buf);
        int i = 0;
        while (i < n && buf[i] != ' ') {
          i++;
        }
        long v = 0;
        for (i++; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) {
          v = v * 10 + (buf[i] - '0');
        }
        return v;
      } catch (java.io.IOException e) {
        return 0;
      }
    }
  }

  private static double us(long[] sorted, double q) {
    return sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))] / 1e3;
  }

  private static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ms += Math.max(0, gc.getCollectionTime());
    }
    return ms;
  }
}
