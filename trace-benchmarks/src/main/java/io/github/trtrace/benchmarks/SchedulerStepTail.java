package io.github.trtrace.benchmarks;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The GPU check's launch loop ({@code LaunchProfile}: B members, each shared launch declares them, gives its GPU time
 * and closes, every member marks a token; every 32 steps the members are closed and new ones started) without the
 * engine, each step timed on the scheduler thread, the steps that close and start members apart from the others. A
 * launch's wait on the device is stood in for by a busy gap between steps. With {@code warm} steps first (untimed),
 * the request paths run compiled as in a long-lived server; without, they run as in a short check, where they have
 * run only a few hundred times.
 *
 * <pre>{@code
 * java -Dwarm=400000 -Dsteps=20000 -DgapNanos=500000 -cp trace-benchmarks/target/benchmarks.jar \
 *     io.github.trtrace.benchmarks.SchedulerStepTail 1 full     # B = 1; full | file | noop
 * }</pre>
 */
public final class SchedulerStepTail {
  private SchedulerStepTail() {}

  public static void main(String[] args) throws Exception {
    int b = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    String mode = args.length > 1 ? args[1] : "full";
    int warm = Integer.getInteger("warm", 0);
    int steps = Integer.getInteger("steps", 20_000);
    long gapNanos = Long.getLong("gapNanos", 500_000L);
    Path dir = Files.createTempDirectory("trtrace-steps");
    InferenceTracer tracer = switch (mode) {
      case "full" -> InferenceTracer.builder().jsonLinesFile(dir.resolve("records.jsonl"))
          .launchLog(dir.resolve("launches.jsonl")).shutdownHook(false).build();
      case "file" -> InferenceTracer.builder().jsonLinesFile(dir.resolve("records.jsonl")).shutdownHook(false).build();
      case "noop" -> InferenceTracer.noop();
      default -> throw new IllegalArgumentException("mode: full, file or noop, not " + mode);
    };
    InferenceTrace[] members = new InferenceTrace[b];
    long[] closing = new long[steps / 32 + 1];
    long[] other = new long[steps];
    int nc = 0;
    int no = 0;
    try (tracer) {
      for (int s = 0; s < warm; s++) {
        step(tracer, members, s, "warm-");
      }
      for (int s = 0; s < steps; s++) {
        long t0 = System.nanoTime();
        boolean closes = step(tracer, members, s, "req-");
        long d = System.nanoTime() - t0;
        if (closes) {
          closing[nc++] = d;
        } else {
          other[no++] = d;
        }
        long until = System.nanoTime() + gapNanos;
        while (System.nanoTime() - until < 0) {
          Thread.onSpinWait();
        }
      }
      for (InferenceTrace t : members) {
        t.close();
      }
    }
    System.out.printf(Locale.ROOT, "B=%d %s, warm-up %d steps, gap %d us:%n", b, mode, warm, gapNanos / 1000);
    print("steps that close and start members", closing, nc);
    print("other steps", other, no);
  }

  /** One step; true when it closed and started the members. */
  private static boolean step(InferenceTracer tracer, InferenceTrace[] members, int s, String prefix) {
    boolean closes = s % 32 == 0;
    if (closes) {
      for (InferenceTrace t : members) {
        if (t != null) {
          t.close();
        }
      }
      for (int i = 0; i < members.length; i++) {
        members[i] = tracer.start("llama-8b", prefix + s + "-" + i);
      }
    }
    try (SharedLaunch launch = tracer.launch("engine-fp")) {
      for (InferenceTrace t : members) {
        launch.decode(t);
      }
      launch.gpuMs(0.5);
    }
    for (InferenceTrace t : members) {
      t.token();
    }
    return closes;
  }

  private static void print(String name, long[] v, int n) {
    long[] s = Arrays.copyOf(v, n);
    Arrays.sort(s);
    System.out.printf(Locale.ROOT, "  %-36s n=%d p50 %.1f us, p90 %.1f, p99 %.1f%n", name, n, s[n / 2] / 1e3,
        s[n * 9 / 10] / 1e3, s[n * 99 / 100] / 1e3);
  }
}
