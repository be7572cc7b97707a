package io.github.trtrace.examples.demo;

import io.github.trtrace.cli.internal.LogAnalysis;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.context.RequestIds;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The README's demo: starts the demo inference service on loopback, measures what it can serve, drives it
 * with open-loop load (Poisson below capacity, one burst above it), then reads the records back and prints
 * what an operator concludes, with the commands that show one example of each finding.
 *
 * <pre>{@code
 * mvn -B -q -Pdemo -DskipTests -pl examples -am verify
 * java -cp ... io.github.trtrace.examples.demo.Demo --log logs/inference.log
 * }</pre>
 */
public final class Demo {

  /**
   * @param log the JSON Lines record file
   * @param poisson Poisson arrivals (0: as many as about {@code seconds} take at the chosen rate)
   * @param seconds the longest the Poisson phases may last: on a machine too slow for {@code poisson} requests
   *     at {@code loadFraction} of its capacity in that time, the rate is raised (and the run says so)
   * @param loadFraction the Poisson rate as a fraction of the measured capacity
   * @param maxTokens tokens generated per request
   * @param seed makes the plan (prompts, IDs, arrival times) repeatable
   * @param mix prompt lengths: production-like, or even over 8..2,400 tokens (the end-to-end test's smaller load)
   */
  public record Options(Path log, int poisson, double seconds, double loadFraction, int maxTokens, long seed,
      int port, int workers, int queue, LoadGenerator.Mix mix) {
    static Options defaults() {
      return new Options(Path.of("logs/inference.log"), 0, 30, 0.25, 32, 7L, 0,
          Math.max(1, Runtime.getRuntime().availableProcessors()), 16, LoadGenerator.Mix.PRODUCTION);
    }

    Options with(String option, String v) {
      return switch (option) {
        case "--log" -> new Options(Path.of(v), poisson, seconds, loadFraction, maxTokens, seed, port, workers,
            queue, mix);
        case "--requests" -> new Options(log, Integer.parseInt(v), seconds, loadFraction, maxTokens, seed, port,
            workers, queue, mix);
        case "--seconds" -> new Options(log, poisson, Double.parseDouble(v), loadFraction, maxTokens, seed, port,
            workers, queue, mix);
        case "--port" -> new Options(log, poisson, seconds, loadFraction, maxTokens, seed, Integer.parseInt(v),
            workers, queue, mix);
        default -> throw new IllegalArgumentException("unknown option " + option
            + " (known: --log PATH, --requests N, --seconds S, --port P)");
      };
    }
  }

  /** What a run produced. */
  public record Result(LoadGenerator.Plan plan, List<LoadGenerator.Outcome> outcomes, LogAnalysis analysis,
      double capacity) {}

  static final Duration BURST_WINDOW = Duration.ofMillis(100);
  /**
   * The most a slow machine's Poisson rate is raised to, as a fraction of capacity: above it the service would
   * be overloaded all along and reject outside the burst too (the run lasts longer instead).
   */
  static final double MAX_LOAD = 0.6;

  private Demo() {}

  public static void main(String[] args) throws Exception {
    Options o = Options.defaults();
    for (int i = 0; i + 1 < args.length; i += 2) {
      o = o.with(args[i], args[i + 1]);
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    run(o, out);
  }

  public static Result run(Options o, PrintStream out) throws IOException {
    long t0 = System.nanoTime();
    out.println("== trtrace demo: an inference service over HTTP, traced per request ==");
    Backend backend = Backend.choose(out::println);
    int workers = Math.min(o.workers(), backend.maxConcurrency());
    int places = workers + o.queue();
    int burst = 3 * places;

    // Capacity: serve a sample of the plan's own prompts in-process (after a JIT warm-up), untraced.
    LoadGenerator.Plan shape = LoadGenerator.plan(o.seed(), Math.max(o.poisson(), 120), 1, burst,
        BURST_WINDOW, o.maxTokens(), o.mix());
    double serviceMs;
    String how = "";
    if (backend.stepModel(0) != null) { // the service batches: its capacity is the engines', batched
      List<LoadGenerator.Planned> sample = shape.requests().stream().filter(p -> !p.burst()).limit(32).toList();
      double alone = measureEngines(backend, sample, o.maxTokens(), workers, BatchEngine.Settings.onePerWorker());
      double batched = measureEngines(backend, sample, o.maxTokens(), workers, BatchEngine.Settings.continuous());
      out.printf(Locale.ROOT, "batching: %d requests of this mix sent at once to %d engine%s took %.0f ms one"
          + " request at a time, %.0f ms with continuous batching: %.2fx the throughput (one sample, this"
          + " machine's load at the time%s)%n", sample.size(), workers, workers == 1 ? "" : "s", alone, batched,
          alone / batched, backend instanceof CpuBackend ? "; BENCHMARKS.md §7" : "");
      serviceMs = batched * workers / sample.size();
      how = ", batched";
    } else {
      serviceMs = measure(backend, shape.requests(), o.maxTokens(), workers);
    }
    double capacity = workers * 1000 / serviceMs;
    double rate = o.loadFraction() * capacity;
    int poisson = o.poisson() > 0 ? o.poisson() : (int) Math.max(150, Math.min(450, Math.round(rate * o.seconds())));
    String raised = "";
    if (poisson / rate > o.seconds()) { // a slow (or busy) machine: keep the run within its time, below capacity
      double fit = Math.min(poisson / o.seconds(), MAX_LOAD * capacity);
      raised = String.format(Locale.ROOT, " (raised from %.0f%% of capacity to %.0f%%%s)", 100 * o.loadFraction(),
          100 * fit / capacity, fit < poisson / o.seconds()
              ? String.format(Locale.ROOT, ", at most %.0f%%: the run takes %.0f s, not %.0f", 100 * MAX_LOAD,
                  poisson / fit, o.seconds())
              : String.format(Locale.ROOT, " to fit %.0f s", o.seconds()));
      rate = fit;
    }
    out.printf(Locale.ROOT, "capacity: %.1f ms per request on this prompt mix -> about %.0f requests/s on %d"
        + " %s%s; load: Poisson at %.1f/s%s, %d requests, plus a burst of %d within %d ms%n",
        serviceMs, capacity, workers, how.isEmpty() ? "workers" : "engines", how, rate, raised, poisson, burst,
        BURST_WINDOW.toMillis());
    LoadGenerator.Plan plan = LoadGenerator.plan(o.seed(), poisson, rate, burst, BURST_WINDOW,
        o.maxTokens(), o.mix());

    List<LoadGenerator.Outcome> outcomes;
    DemoService.Config config = new DemoService.Config(o.port(), workers, o.queue(), o.log());
    try (DemoService service = DemoService.start(config, backend, out::println)) {
      outcomes = LoadGenerator.run(service.uri(), plan, backend.modelName());
    }
    summarize(outcomes, out);

    LogAnalysis analysis = Analysis.run(o.log(), outcomes, backend instanceof CpuBackend ? "CPU" : "GPU", out);
    out.printf(Locale.ROOT, "%n(demo took %.1f s)%n", (System.nanoTime() - t0) / 1e9);
    return new Result(plan, outcomes, analysis, capacity);
  }

  /**
   * Untraced service time per request over a sample of the plan's requests, served on {@code workers}
   * threads at once as the service will (after a few to warm up the JIT): wall time divided by requests.
   */
  static double measure(Backend backend, List<LoadGenerator.Planned> requests, int maxTokens, int workers) {
    InferenceTracer noop = InferenceTracer.noop();
    List<LoadGenerator.Planned> sample = requests.stream().filter(p -> !p.burst()).limit(32).toList();
    for (int i = 0; i < 16; i++) {
      serveOnce(backend, noop, sample.get(i % sample.size()).prompt(), maxTokens);
    }
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(workers);
    try {
      long start = System.nanoTime();
      List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (LoadGenerator.Planned p : sample) {
        done.add(pool.submit(() -> serveOnce(backend, noop, p.prompt(), maxTokens)));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get();
      }
      return (System.nanoTime() - start) / 1e6 * workers / sample.size();
    } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("capacity measurement failed", e);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Wall milliseconds for {@code engines} engines with {@code settings} to serve all of {@code sample}, sent
   * at once to the least loaded (untraced; after a quarter of it to warm up the JIT).
   */
  static double measureEngines(Backend backend, List<LoadGenerator.Planned> sample, int maxTokens, int engines,
      BatchEngine.Settings settings) {
    InferenceTracer noop = InferenceTracer.noop();
    List<BatchEngine> all = new java.util.ArrayList<>();
    for (int i = 0; i < engines; i++) {
      all.add(BatchEngine.start(java.util.Objects.requireNonNull(backend.stepModel(i), "the backend does not step"),
          settings, i, noop));
    }
    try {
      long elapsed = 0;
      for (int round = 0; round < 2; round++) { // a quarter of the sample to warm up, then the sample
        long start = System.nanoTime();
        List<java.util.concurrent.CompletableFuture<int[]>> done = new java.util.ArrayList<>();
        for (LoadGenerator.Planned p : round == 0 ? sample.subList(0, Math.max(1, sample.size() / 4)) : sample) {
          BatchEngine e = all.stream().min(java.util.Comparator.comparingInt(BatchEngine::load)).orElseThrow();
          done.add(e.submit(new BatchEngine.Request(noop.start(backend.modelName()),
              backend.tokenizer().session().encode(p.prompt()), maxTokens, id -> {})));
        }
        done.forEach(java.util.concurrent.CompletableFuture::join);
        elapsed = System.nanoTime() - start;
      }
      return elapsed / 1e6;
    } finally {
      all.forEach(BatchEngine::close);
    }
  }

  private static void serveOnce(Backend backend, InferenceTracer tracer, String prompt, int maxTokens) {
    try (InferenceTrace t = tracer.start(backend.modelName())) {
      Tokenizer.Session s = backend.tokenizer().session();
      StringBuilder text = new StringBuilder();
      backend.generate(t, s.encode(prompt), maxTokens, id -> text.append(s.decode(id)));
    }
  }

  private static void summarize(List<LoadGenerator.Outcome> outcomes, PrintStream out) {
    Map<Integer, Long> byStatus = outcomes.stream()
        .collect(Collectors.groupingBy(LoadGenerator.Outcome::status, TreeMap::new, Collectors.counting()));
    long echoed = outcomes.stream().filter(o -> !o.planned().hostileHeader())
        .filter(o -> o.planned().header().equals(o.echoedId())).count();
    long valid = outcomes.stream().filter(o -> !o.planned().hostileHeader()).count();
    long replaced = outcomes.stream().filter(o -> o.planned().hostileHeader())
        .filter(o -> o.echoedId() != null && RequestIds.isValid(o.echoedId())
            && !o.echoedId().equals(o.planned().header()))
        .count();
    long hostile = outcomes.stream().filter(o -> o.planned().hostileHeader()).count();
    out.printf(Locale.ROOT, "load done: %d requests, HTTP status %s; X-Request-ID echoed for %d/%d callers' IDs,"
        + " replaced by a generated one for %d/%d hostile ones%n",
        outcomes.size(), byStatus, echoed, valid, replaced, hostile);
  }
}
