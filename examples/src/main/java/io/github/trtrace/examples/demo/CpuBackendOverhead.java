package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.examples.stats.Ratios;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

/**
 * Benchmark 3 of issue 10 on the demo's CPU backend: the demo's own {@link CpuBackend} (a real, if small,
 * transformer computed on the CPU) serving the demo's prompt mix ({@link LoadGenerator}: mostly short prompts,
 * about one in six 1,024+ tokens, some with bidirectional controls, a few hostile request IDs), each request
 * served as {@code DemoService} serves it (queue, preprocess, prefill, token-by-token decode, output check),
 * with tracing fully on (the demo's tracer: JSON Lines file sink with its default settings, default sampling
 * and redaction, input digest and input/output inspection, stages, tokens) against {@link
 * InferenceTracer#noop()}, in one JVM.
 *
 * <p>The two modes take turns so that drift of a shared machine (other builds, frequency, the JIT) lands
 * on both alike:
 *
 * <ul>
 *   <li><b>latency</b>, one serving thread: every round serves one prompt of the mix in both modes, back to
 *       back, the order alternating (full then noop, noop then full). Reported: p50 and p99 of each mode and
 *       their ratio, and the median of the per-prompt ratios (the same prompt, adjacent in time: the most
 *       precise estimate of the per-request overhead), each with a 95 % bootstrap interval over rounds; the
 *       same median for short, medium and long prompts, and for the serving thread's CPU time (what tracing
 *       costs on the CPU, without the time the thread spent descheduled);
 *   <li><b>throughput</b>, one serving thread per core (as the demo's workers): a block serves a fixed set of
 *       prompts (the longest first) from a shared index on every thread, timed until the last answer (the
 *       tracer's background writer encodes, compresses and writes meanwhile, competing with the workers for
 *       the cores; every block ends with an untimed flush); blocks of the two modes alternate ABBA. Reported:
 *       requests/s of each mode and their ratio with its bootstrap interval over block pairs.
 * </ul>
 *
 * <p>It lives in the demo's package, in the examples module (a plain main, no JMH: JMH cannot interleave two
 * benchmarks' invocations), because the backend, tokenizer and load generator are the demo's package-private
 * classes; it uses them unchanged. trace-benchmarks does not depend on examples (issue 16).
 *
 * <p>{@code -Dcpu.overhead.full=noop} runs the A/A check (noop against noop: every ratio must come out 1
 * within its interval); {@code =discard} traces fully but discards the records (no file I/O).
 *
 * <pre>{@code
 * mvn -B -q -pl examples -am package -DskipTests \
 *     org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
 *     -Dmdep.outputFile=target/runtime.classpath -Dmdep.includeScope=runtime
 * java -cp "examples/target/classes:$(cat examples/target/runtime.classpath)" \
 *     io.github.trtrace.examples.demo.CpuBackendOverhead \
 *     [rounds, default 600] [block pairs, default 10] [threads, default: cores]
 * }</pre>
 */
public final class CpuBackendOverhead {
  private static final int MAX_TOKENS = 32;
  private static final int BOOTSTRAP = 2000;

  private final CpuBackend backend = new CpuBackend(Tokenizer.standard());
  private final List<LoadGenerator.Planned> prompts;

  private CpuBackendOverhead(List<LoadGenerator.Planned> prompts) {
    this.prompts = prompts;
  }

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 600;
    int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : Runtime.getRuntime().availableProcessors();
    // The demo's plan (seed 7, its production mix); arrival times unused: requests are served back to back.
    List<LoadGenerator.Planned> plan =
        LoadGenerator.plan(7L, 240, 1, 0, Duration.ZERO, MAX_TOKENS, LoadGenerator.Mix.PRODUCTION).requests();
    Path dir = Files.createTempDirectory("trtrace-cpu-overhead");
    CpuBackendOverhead b = new CpuBackendOverhead(plan);
    // -Dcpu.overhead.full=noop is the A/A check (both modes noop: every ratio must come out 1 within its
    // interval); =discard keeps full tracing but drops the records instead of writing them (where is the cost).
    String variant = System.getProperty("cpu.overhead.full", "file");
    InferenceTracer full = switch (variant) {
      case "noop" -> InferenceTracer.noop();
      case "discard" -> InferenceTracer.builder().sink(RecordSink.named("discard", batch -> {})).inputDigest(true)
          .build();
      default -> InferenceTracer.builder()
          .sink(JsonLinesFileSink.builder(dir.resolve("inference.log")).build())
          .inputDigest(true)
          .build();
    };
    InferenceTracer noop = InferenceTracer.noop();
    try {
      long counts = plan.stream().filter(p -> p.kind() == LoadGenerator.Kind.LONG).count();
      System.out.printf(Locale.ROOT, "[cpu-overhead] %s; %d prompts (%d of 1,024+ tokens), %d tokens each,"
          + " %d latency rounds, %d throughput block pairs on %d threads; full = %s%n", b.backend.description(),
          plan.size(), counts, MAX_TOKENS, rounds, pairs, threads, variant);
      b.latency(full, noop, rounds);
      b.throughput(full, noop, pairs, threads);
    } finally {
      full.close();
      System.out.println("[cpu-overhead] " + full.stats());
      long lines;
      try (Stream<Path> files = Files.list(dir)) {
        lines = 0;
        for (Path f : files.toList()) {
          if (f.getFileName().toString().endsWith(".log")) {
            try (Stream<String> l = Files.lines(f)) {
              lines += l.count();
            }
          }
        }
      }
      System.out.println("[cpu-overhead] records on disk (uncompressed files): " + lines);
      deleteRecursively(dir);
    }
  }

  /** Generates for a request: the backend, or the same trace calls without the model (warm-up). */
  @FunctionalInterface
  private interface Generation {
    int[] generate(InferenceTrace trace, int[] prompt, int maxTokens, IntConsumer onToken);
  }

  /**
   * What {@link CpuBackend#generate} does to the trace (prefill under INFER, then DECODE with an INFER per
   * step and a token mark each), without the model: brings the tracing path to the state of a service that
   * has served many requests (compiled by the JIT's last tier) in seconds instead of an hour.
   */
  private int[] generateWithoutModel(InferenceTrace t, int[] prompt, int maxTokens, IntConsumer onToken) {
    int[] words = backend.tokenizer().outputTokens();
    int[] out = new int[maxTokens];
    t.callStage(Stage.INFER, () -> prompt.length);
    t.runStage(Stage.DECODE, () -> {
      for (int step = 0; step < maxTokens; step++) {
        out[step] = words[1 + (prompt.length + step) % (words.length - 1)]; // never EOS (index 0)
        onToken.accept(out[step]);
        t.token();
        if (step + 1 < maxTokens) {
          t.callStage(Stage.INFER, () -> out.length);
        }
      }
    });
    return out;
  }

  /** One request as {@code DemoService} serves it; returns its latency in nanoseconds. */
  private long serve(InferenceTracer tracer, LoadGenerator.Planned p) {
    return serve(tracer, p, backend::generate);
  }

  private long serve(InferenceTracer tracer, LoadGenerator.Planned p, Generation generation) {
    long t0 = System.nanoTime();
    InferenceTrace t = tracer.start(backend.modelName(), p.header());
    t.stage(Stage.QUEUE).close(); // a worker takes it at once: the harness has no admission queue
    try (t; TraceScope current = t.makeCurrent()) {
      t.input(p.prompt()).maxTokens(MAX_TOKENS);
      Tokenizer.Session session = backend.tokenizer().session();
      int[] ids = t.callStage(Stage.PREPROCESS, () -> session.encode(p.prompt()));
      t.inputTokens(ids.length);
      StringBuilder text = new StringBuilder();
      int[] out = generation.generate(t, ids, MAX_TOKENS, id -> text.append(session.decode(id)));
      t.runStage(Stage.POSTPROCESS, () -> {
        t.output(text.toString()); // as DemoService: the response's text (a String), in both modes
        t.finishReason(out.length < MAX_TOKENS ? "stop" : "length");
      });
    }
    return System.nanoTime() - t0;
  }

  private void latency(InferenceTracer full, InferenceTracer noop, int rounds) {
    // A service that has run a while has its per-request tracing code compiled by C2; a JVM that served
    // only the few hundred requests of this run would still run it at C1 (about 2-3 % on short prompts in
    // such a run, against under 1 % warm). -Dcpu.overhead.warmup=0 measures that cold state instead.
    int warm = Integer.getInteger("cpu.overhead.warmup", 20_000);
    for (int i = 0; i < warm; i++) {
      LoadGenerator.Planned p = prompts.get(i % prompts.size());
      serve(full, p, this::generateWithoutModel);
      serve(noop, p, this::generateWithoutModel);
    }
    System.out.printf(Locale.ROOT, "[cpu-overhead] tracing path warmed with %d requests per mode without the"
        + " model%n", warm);
    for (int i = 0; i < Math.min(rounds, 120); i++) { // JIT warm-up of both paths, not recorded
      LoadGenerator.Planned p = prompts.get(i % prompts.size());
      serve(full, p);
      serve(noop, p);
    }
    long[] f = new long[rounds];
    long[] n = new long[rounds];
    long[] fCpu = new long[rounds];
    long[] nCpu = new long[rounds];
    for (int round = 0; round < rounds; round++) {
      int r = round;
      LoadGenerator.Planned p = prompts.get(r % prompts.size());
      if ((r & 1) == 0) {
        fCpu[r] = cpu(() -> f[r] = serve(full, p));
        nCpu[r] = cpu(() -> n[r] = serve(noop, p));
      } else {
        nCpu[r] = cpu(() -> n[r] = serve(noop, p));
        fCpu[r] = cpu(() -> f[r] = serve(full, p));
      }
    }
    SplittableRandom random = new SplittableRandom(1);
    double[] p50 = new double[BOOTSTRAP];
    double[] p99 = new double[BOOTSTRAP];
    double[] paired = new double[BOOTSTRAP];
    long[] bf = new long[rounds];
    long[] bn = new long[rounds];
    double[] br = new double[rounds];
    for (int k = 0; k < BOOTSTRAP; k++) {
      for (int i = 0; i < rounds; i++) {
        int j = random.nextInt(rounds);
        bf[i] = f[j];
        bn[i] = n[j];
        br[i] = (double) f[j] / n[j];
      }
      p50[k] = quantile(bf, 0.5) / quantile(bn, 0.5);
      p99[k] = quantile(bf, 0.99) / quantile(bn, 0.99);
      paired[k] = Ratios.median(br);
    }
    double[] ratios = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      ratios[i] = (double) f[i] / n[i];
    }
    System.out.printf(Locale.ROOT, "[cpu-overhead] latency, 1 thread, %d rounds: p50 full %.3f ms, noop %.3f ms;"
        + " p99 full %.3f ms, noop %.3f ms%n", rounds, quantile(f, 0.5) / 1e6, quantile(n, 0.5) / 1e6,
        quantile(f, 0.99) / 1e6, quantile(n, 0.99) / 1e6);
    double[] cpuRatios = new double[rounds];
    for (int i = 0; i < rounds; i++) {
      cpuRatios[i] = (double) fCpu[i] / nCpu[i];
    }
    // On-CPU time of the serving thread: what tracing costs in instructions; the wall-clock ratio adds
    // what it costs off the CPU (the thread descheduled for the tracer's writer or for other processes).
    System.out.printf(Locale.ROOT, "[cpu-overhead] serving thread's CPU time: paired median ratio %.4f%n",
        Ratios.median(cpuRatios));
    for (LoadGenerator.Kind kind : LoadGenerator.Kind.values()) {
      double[] k = new double[rounds];
      int m = 0;
      for (int i = 0; i < rounds; i++) {
        if (prompts.get(i % prompts.size()).kind() == kind) {
          k[m++] = ratios[i];
        }
      }
      if (m > 0) {
        System.out.printf(Locale.ROOT, "[cpu-overhead] %s prompts: %d rounds, paired median ratio %.4f%n",
            kind.name().toLowerCase(Locale.ROOT), m, Ratios.median(Arrays.copyOf(k, m)));
      }
    }
    System.out.printf(Locale.ROOT, "[cpu-overhead] RESULT latency_p50_ratio=%.4f (95%% %s)%n",
        quantile(f, 0.5) / quantile(n, 0.5), interval(p50));
    System.out.printf(Locale.ROOT, "[cpu-overhead] RESULT latency_p99_ratio=%.4f (95%% %s)%n",
        quantile(f, 0.99) / quantile(n, 0.99), interval(p99));
    System.out.printf(Locale.ROOT, "[cpu-overhead] RESULT latency_paired_median_ratio=%.4f (95%% %s)%n",
        Ratios.median(ratios), interval(paired));
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /** CPU time of the calling thread while {@code work} runs, in nanoseconds. */
  private static long cpu(Runnable work) {
    long c0 = THREADS.getCurrentThreadCpuTime();
    work.run();
    return THREADS.getCurrentThreadCpuTime() - c0;
  }

  private void throughput(InferenceTracer full, InferenceTracer noop, int pairs, int threads) throws Exception {
    // The longest first, so that no thread is left alone with a long prompt at the end of a block.
    List<LoadGenerator.Planned> block = new ArrayList<>(prompts.subList(0, Math.min(prompts.size(), 24 * threads)));
    block.sort(Comparator.comparingInt((LoadGenerator.Planned p) -> p.prompt().length()).reversed());
    runBlock(full, block, threads); // warm-up
    runBlock(noop, block, threads);
    double[] fullRate = new double[pairs];
    double[] noopRate = new double[pairs];
    for (int i = 0; i < pairs; i++) {
      if ((i & 1) == 0) {
        fullRate[i] = runBlock(full, block, threads);
        noopRate[i] = runBlock(noop, block, threads);
      } else {
        noopRate[i] = runBlock(noop, block, threads);
        fullRate[i] = runBlock(full, block, threads);
      }
    }
    SplittableRandom random = new SplittableRandom(2);
    double[] boot = new double[BOOTSTRAP];
    for (int k = 0; k < BOOTSTRAP; k++) {
      double sf = 0;
      double sn = 0;
      for (int i = 0; i < pairs; i++) {
        int j = random.nextInt(pairs);
        sf += 1 / fullRate[j];
        sn += 1 / noopRate[j];
      }
      boot[k] = sn / sf; // rate ratio = ratio of the total times the same work took
    }
    double sf = 0;
    double sn = 0;
    for (int i = 0; i < pairs; i++) {
      sf += 1 / fullRate[i];
      sn += 1 / noopRate[i];
    }
    System.out.printf(Locale.ROOT, "[cpu-overhead] throughput, %d threads, %d requests a block: full %.1f req/s,"
        + " noop %.1f req/s (per block: full %s, noop %s)%n", threads, block.size(), pairs / sf, pairs / sn,
        Arrays.toString(round(fullRate)), Arrays.toString(round(noopRate)));
    System.out.printf(Locale.ROOT, "[cpu-overhead] RESULT throughput_ratio=%.4f (95%% %s)%n", sn / sf,
        interval(boot));
  }

  /** Serves {@code block} on {@code threads} threads; requests per second until the last answer. */
  private double runBlock(InferenceTracer tracer, List<LoadGenerator.Planned> block, int threads)
      throws Exception {
    AtomicInteger next = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < threads; w++) {
      Thread t = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i; (i = next.getAndIncrement()) < block.size(); ) {
          serve(tracer, block.get(i));
        }
      }, "inference-" + w);
      workers.add(t);
      t.start();
    }
    long t0 = System.nanoTime();
    go.countDown();
    for (Thread t : workers) {
      t.join();
    }
    double rate = block.size() / ((System.nanoTime() - t0) / 1e9);
    // Untimed: the writer's work during the block competed with the workers (that counts); the wait for
    // the last batch's write and fsync (milliseconds, sometimes tens) is no CPU taken from serving.
    tracer.flush().get(60, TimeUnit.SECONDS);
    return rate;
  }

  private static double quantile(long[] values, double q) {
    long[] s = values.clone();
    Arrays.sort(s);
    return s[Math.min(s.length - 1, (int) Math.ceil(q * s.length) - 1)];
  }

  private static String interval(double[] boot) {
    double[] ci = Ratios.central95(boot);
    return String.format(Locale.ROOT, "%.4f..%.4f", ci[0], ci[1]);
  }

  private static long[] round(double[] v) {
    long[] out = new long[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = Math.round(v[i]);
    }
    return out;
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
