package io.github.trtrace.benchmarks.peers;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time per thread of this JVM: Java threads from {@code ThreadMXBean} (full names), the JVM's own
 * (GC, JIT compiler, VM thread) from {@code /proc/self/task/<tid>/stat} (Linux only; the kernel cuts
 * names to 15 characters, so Java threads are not read from there). Threads of one kind ({@code GC
 * Thread#0}, {@code GC Thread#1}, ...) are summed under one name. In ticks of 10 ms.
 */
final class ThreadCpu {
  private ThreadCpu() {}

  private static final String[] JVM_THREADS = {"GC Thread", "G1 ", "C1 Comp", "C2 Comp", "VM Thread", "VM Periodic"};

  /** Thread name (numbered suffixes folded) to user + system CPU, in ticks of 10 ms. */
  static Map<String, Long> ticks() {
    Map<String, Long> byName = new TreeMap<>();
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (info != null) {
        long nanos = mx.getThreadCpuTime(info.getThreadId());
        if (nanos > 0) {
          byName.merge(fold(info.getThreadName()), nanos / 10_000_000, Long::sum);
        }
      }
    }
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return byName;
    }
    try (Stream<Path> list = Files.list(tasks)) {
      for (Path t : (Iterable<Path>) list::iterator) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          String name = stat.substring(open + 1, close);
          if (!isJvmThread(name)) {
            continue;
          }
          name = fold(name);
          String[] f = stat.substring(close + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
          byName.merge(name, ticks, Long::sum);
        } catch (IOException | RuntimeException threadGone) {
          // the thread ended while we looked
        }
      }
    } catch (IOException e) {
      return byName;
    }
    return byName;
  }

  private static boolean isJvmThread(String name) {
    for (String prefix : JVM_THREADS) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private static String fold(String name) {
    return name.replaceAll("#?\\d+$", "#");
  }

  /** One line per thread kind that used CPU between the two readings, in CPU seconds (100 ticks/s). */
  static String between(Map<String, Long> before, Map<String, Long> after) {
    StringBuilder b = new StringBuilder();
    long total = 0;
    Map<String, Long> used = new TreeMap<>();
    after.forEach((name, t) -> {
      long d = t - before.getOrDefault(name, 0L);
      if (d > 0) {
        used.put(name, d);
      }
    });
    for (long d : used.values()) {
      total += d;
    }
    final long all = Math.max(1, total);
    used.entrySet().stream()
        .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
        .forEach(e -> b.append(String.format("  %-32s %6.2f cpu-s %5.1f%%%n",
            e.getKey(), e.getValue() / 100.0, 100.0 * e.getValue() / all)));
    b.append(String.format("  %-32s %6.2f cpu-s%n", "total", total / 100.0));
    return b.toString();
  }
}
