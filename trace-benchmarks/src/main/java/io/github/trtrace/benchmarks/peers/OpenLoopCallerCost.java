package io.github.trtrace.benchmarks.peers;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.TracerStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The open-loop paced caller-cost harness (issue 22), beside the JMH peers: each SDK in a JVM of its
 * own, rounds interleaved in ABBA order (trtrace, Log4j2, Logback, OTel SDK, then OTel SDK, Logback,
 * Log4j2, trtrace, ...), producers that follow a fixed schedule of due times (parked until shortly
 * before each one, then spinning to it), so a call
 * that runs late delays nothing of the schedule and is charged from its due time as well (no
 * coordinated omission). Two figures per request: the caller's time around the traced call only
 * ({@code call}), and the time from its due time to the call's return ({@code due}). The record is
 * {@link RequestShape}'s, as in the JMH peers; trtrace is used in the README's callback form, {@code
 * tracer.run(model, header, t -> ...)} (the body-without-result twin of {@code call}), with every
 * default. At the end each SDK is closed and every line on disk is counted against the requests
 * offered. Last, per configuration and peer, the median of the per-round ratios trtrace ÷ peer.
 *
 * <p>Beside JMH's {@code Level.Invocation} pacing ({@code Pacer}): there a producer spins between requests
 * and never leaves its core, its schedule restarts when it falls far behind, and a sample is the call
 * alone. Here producers park between requests as a service's request threads do, and a late call is
 * also charged from its due time. {@code -Dopenloop.spinMicros=1000000} makes the producers spin
 * between requests as JMH's do (a diagnosis variant; BENCHMARKS.md §1b has what it showed).
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.trtrace.benchmarks.peers.OpenLoopCallerCost
 * [rounds] [rate:threads ...]} runs the comparison (default 2 rounds of {@code 5000:1 20000:2}); the
 * SDKs run are {@code -Dopenloop.sdks=trtrace,log4j2,logback,otel}, warm-up and measured seconds
 * {@code -Dopenloop.warmup=4 -Dopenloop.seconds=8}. One JVM per run: {@code ... OpenLoopCallerCost
 * child <sdk> <rate> <threads>} prints one {@code RESULT} line.
 */
public final class OpenLoopCallerCost {
  private static final String RESULT = "RESULT ";
  private static final double[] PERCENTILES = {50, 99, 99.9};

  private OpenLoopCallerCost() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("child")) {
      child(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
    } else {
      compare(args);
    }
  }

  // ---------------------------------------------------------------- the comparison (parent JVM)

  private static void compare(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    List<String> configs = args.length > 1 ? List.of(args).subList(1, args.length) : List.of("5000:1", "20000:2");
    List<String> sdks = List.of(System.getProperty("openloop.sdks", "trtrace,log4j2,logback,otel").split(","));
    Map<String, List<Map<String, String>>> results = new LinkedHashMap<>();
    for (String config : configs) {
      String[] rt = config.split(":");
      for (int round = 1; round <= rounds; round++) {
        // ABBA: every other round runs the SDKs in reverse order, so a drift of the machine's speed during
        // a pair of rounds falls on every SDK alike instead of on whichever runs last
        List<String> order = new ArrayList<>(sdks);
        if (round % 2 == 0) {
          java.util.Collections.reverse(order);
        }
        for (String sdk : order) {
          System.out.printf("[%s %s/s %s thread(s)] round %d, load average %s%n", sdk, rt[0], rt[1], round, loadAverage());
          Map<String, String> r = runChild(sdk, rt[0], rt[1]);
          r.put("round", String.valueOf(round));
          results.computeIfAbsent(config + " " + sdk, k -> new ArrayList<>()).add(r);
        }
      }
    }
    System.out.println();
    System.out.println("== open-loop caller cost, ns (call: around the traced call; due: from the due time to its return)");
    System.out.println("rate:threads sdk round | call p50 mean p99 p99.9 | due p50 mean p99 p99.9 | late>100us | offered written lost | load");
    for (Map.Entry<String, List<Map<String, String>>> e : results.entrySet()) {
      for (Map<String, String> r : e.getValue()) {
        System.out.printf("%s %s | %s %s %s %s | %s %s %s %s | %s | %s %s %s | %s%n", e.getKey(), r.get("round"),
            r.get("call_p50"), r.get("call_mean"), r.get("call_p99"), r.get("call_p99.9"),
            r.get("due_p50"), r.get("due_mean"), r.get("due_p99"), r.get("due_p99.9"), r.get("late100us"),
            r.get("offered"), r.get("written"), r.get("lost"), r.get("load"));
      }
    }
    System.out.println();
    System.out.println("== trtrace / peer, per round (same round's runs; < 1: trtrace cheaper)");
    for (String config : configs) {
      List<Map<String, String>> mine = results.get(config + " trtrace");
      if (mine == null) {
        continue;
      }
      for (String peer : sdks) {
        List<Map<String, String>> theirs = results.get(config + " " + peer);
        if (peer.equals("trtrace") || theirs == null) {
          continue;
        }
        for (int i = 0; i < Math.min(mine.size(), theirs.size()); i++) {
          Map<String, String> a = mine.get(i);
          Map<String, String> b = theirs.get(i);
          System.out.printf("%s trtrace/%s round %d: call p50 %s mean %s p99 %s p99.9 %s | due p50 %s mean %s p99.9 %s%n",
              config, peer, i + 1, ratio(a, b, "call_p50"), ratio(a, b, "call_mean"), ratio(a, b, "call_p99"),
              ratio(a, b, "call_p99.9"), ratio(a, b, "due_p50"), ratio(a, b, "due_mean"), ratio(a, b, "due_p99.9"));
        }
      }
    }
    summary(configs, sdks, results);
  }

  /**
   * Per configuration and peer, over the rounds: the median of the rounds' ratios, their range, and
   * in how many rounds trtrace was the cheaper. A single round can land in a slow spell of the machine
   * that its partner missed; the median of paired rounds is the figure a drift does not decide.
   */
  private static void summary(List<String> configs, List<String> sdks, Map<String, List<Map<String, String>>> results) {
    System.out.println();
    System.out.println("== trtrace / peer over the rounds: median of the per-round ratios (lowest-highest) [rounds < 1]");
    for (String config : configs) {
      List<Map<String, String>> mine = results.get(config + " trtrace");
      for (String peer : sdks) {
        List<Map<String, String>> theirs = results.get(config + " " + peer);
        if (mine == null || peer.equals("trtrace") || theirs == null) {
          continue;
        }
        StringBuilder line = new StringBuilder(config + " trtrace/" + peer + " over "
            + Math.min(mine.size(), theirs.size()) + " rounds:");
        for (String key : List.of("call_p50", "call_mean", "call_p99.9", "due_p99.9")) {
          double[] r = new double[Math.min(mine.size(), theirs.size())];
          int below = 0;
          for (int i = 0; i < r.length; i++) {
            r[i] = Double.parseDouble(mine.get(i).get(key)) / Double.parseDouble(theirs.get(i).get(key));
            below += r[i] < 1 ? 1 : 0;
          }
          Arrays.sort(r);
          double median = r.length % 2 == 1 ? r[r.length / 2] : (r[r.length / 2 - 1] + r[r.length / 2]) / 2;
          line.append(String.format(Locale.ROOT, " %s %.2f (%.2f-%.2f) [%d/%d]",
              key.replace('_', ' '), median, r[0], r[r.length - 1], below, r.length));
        }
        System.out.println(line);
      }
    }
  }

  private static String ratio(Map<String, String> a, Map<String, String> b, String key) {
    return String.format(Locale.ROOT, "%.2f", Double.parseDouble(a.get(key)) / Double.parseDouble(b.get(key)));
  }

  private static Map<String, String> runChild(String sdk, String rate, String threads) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xms1g", "-Xmx1g"));
    for (String p : List.of("openloop.warmup", "openloop.seconds", "openloop.spinMicros")) {
      if (System.getProperty(p) != null) {
        cmd.add("-D" + p + "=" + System.getProperty(p));
      }
    }
    String extra = System.getProperty("openloop.jvmArgs", "");
    if (!extra.isBlank()) {
      cmd.addAll(Arrays.asList(extra.trim().split("\\s+")));
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), OpenLoopCallerCost.class.getName(),
        "child", sdk, rate, threads));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Map<String, String> result = new LinkedHashMap<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith(RESULT)) {
          for (String kv : line.substring(RESULT.length()).trim().split(" ")) {
            int eq = kv.indexOf('=');
            result.put(kv.substring(0, eq), kv.substring(eq + 1));
          }
        }
        if (line.startsWith(RESULT) || line.startsWith("[")) {
          System.out.println("  " + line);
        }
      }
    }
    if (p.waitFor() != 0 || result.isEmpty()) {
      throw new IllegalStateException(sdk + " run failed (exit " + p.exitValue() + ")");
    }
    return result;
  }

  // ---------------------------------------------------------------- one SDK (child JVM)

  /** One SDK's traced request and its close-and-count. */
  private interface Sdk {
    void request(Producer p);

    /** Closes the SDK (drains it) and returns the lines it wrote: records, or spans for the OTel SDK. */
    long closeAndCount();

    default int linesPerRequest() {
      return 1;
    }
  }

  private static void child(String sdk, int rate, int threads) throws Exception {
    int warmup = Integer.getInteger("openloop.warmup", 4);
    int seconds = Integer.getInteger("openloop.seconds", 8);
    long spinNanos = TimeUnit.MICROSECONDS.toNanos(Integer.getInteger("openloop.spinMicros", 80));
    Sdk s = setUp(sdk);
    long interval = TimeUnit.SECONDS.toNanos(1) * threads / rate; // per producer
    int perThread = (int) (((long) rate * seconds) / threads);
    long[][] call = new long[threads][perThread];
    long[][] due = new long[threads][perThread];
    int[] late = new int[threads];
    long[] offered = new long[threads];
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
    long measureFrom = start + TimeUnit.SECONDS.toNanos(warmup);
    long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
    String loadBefore = loadAverage();
    List<Thread> producers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      int me = i;
      producers.add(new Thread(() -> {
        Producer p = new Producer();
        p.init(0, threads);
        long next = start + me * interval / threads; // producers evenly out of phase
        int n = 0;
        for (; next < end; next += interval) {
          waitUntil(next, spinNanos);
          long t0 = System.nanoTime();
          s.request(p);
          long t1 = System.nanoTime();
          offered[me]++;
          if (next >= measureFrom && n < perThread) {
            call[me][n] = t1 - t0;
            due[me][n] = t1 - next;
            if (t0 - next > 100_000) {
              late[me]++;
            }
            n++;
          }
        }
        if (n < perThread) {
          call[me] = Arrays.copyOf(call[me], n);
          due[me] = Arrays.copyOf(due[me], n);
        }
      }, "producer-" + i));
    }
    producers.forEach(Thread::start);
    for (Thread t : producers) {
      t.join();
    }
    String loadAfter = loadAverage();
    long offeredAll = Arrays.stream(offered).sum();
    long written = s.closeAndCount();
    long expected = offeredAll * s.linesPerRequest();
    StringBuilder out = new StringBuilder(RESULT);
    out.append("sdk=").append(sdk).append(" rate=").append(rate).append(" threads=").append(threads);
    stats(out, "call", flatten(call));
    stats(out, "due", flatten(due));
    out.append(" late100us=").append(Arrays.stream(late).sum());
    out.append(" offered=").append(expected).append(" written=").append(written).append(" lost=").append(expected - written);
    out.append(" load=").append(loadBefore.replace(' ', '/')).append("->").append(loadAfter.replace(' ', '/'));
    System.out.println(out);
  }

  /** Parks until {@code spinNanos} before {@code due} (the timer's slack), then spins to it. */
  private static void waitUntil(long due, long spinNanos) {
    for (long left; (left = due - System.nanoTime() - spinNanos) > 10_000; ) {
      LockSupport.parkNanos(left);
    }
    while (System.nanoTime() < due) {
      Thread.onSpinWait();
    }
  }

  private static long[] flatten(long[][] perThread) {
    return Arrays.stream(perThread).flatMapToLong(Arrays::stream).sorted().toArray();
  }

  private static void stats(StringBuilder out, String name, long[] sorted) {
    double mean = Arrays.stream(sorted).average().orElse(0);
    out.append(' ').append(name).append("_n=").append(sorted.length);
    out.append(' ').append(name).append("_mean=").append(Math.round(mean));
    for (double p : PERCENTILES) {
      long v = sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)];
      out.append(' ').append(name).append("_p").append(p == Math.rint(p) ? String.valueOf((int) p) : String.valueOf(p))
          .append('=').append(v);
    }
    out.append(' ').append(name).append("_max=").append(sorted.length == 0 ? 0 : sorted[sorted.length - 1]);
  }

  private static Sdk setUp(String sdk) {
    if (sdk.startsWith("trtrace@")) { // a diagnosis variant: trtrace@<maxWriteDelay ms>
      return trtrace(java.time.Duration.ofMillis(Long.parseLong(sdk.substring("trtrace@".length()))));
    }
    return switch (sdk) {
      case "trtrace" -> trtrace(null);
      case "trtrace-start" -> trtraceStartForm();
      case "log4j2" -> {
        System.setProperty("log4j2.contextSelector", "org.apache.logging.log4j.core.async.AsyncLoggerContextSelector");
        System.setProperty("log4j2.configurationFile", "log4j2-bench.xml");
        System.setProperty("log4j2.asyncLoggerWaitStrategy", "Timeout");
        Log4j2AsyncBenchmark b = new Log4j2AsyncBenchmark();
        b.setUp();
        yield peer(b::request, b::tearDown, () -> WrittenLines.lastWritten, 1);
      }
      case "logback" -> {
        LogbackAsyncBenchmark b = new LogbackAsyncBenchmark();
        b.setUp();
        yield peer(b::request, b::tearDown, () -> WrittenLines.lastWritten, 1);
      }
      case "otel" -> {
        OtelSdkBenchmark b = new OtelSdkBenchmark();
        b.setUp();
        yield peer(b::request, b::tearDown, () -> OtelSdkBenchmark.lastExported, 5);
      }
      default -> throw new IllegalArgumentException(
          "sdk must be trtrace, trtrace@<maxWriteDelay ms>, trtrace-start, log4j2, logback or otel: " + sdk);
    };
  }

  /** A peer SDK's benchmark state as an {@link Sdk}: its request, its tear-down, the lines it wrote. */
  private static Sdk peer(java.util.function.Consumer<Producer> request, Runnable tearDown,
      java.util.function.LongSupplier written, int linesPerRequest) {
    return new Sdk() {
      @Override
      public void request(Producer p) {
        request.accept(p);
      }

      @Override
      public long closeAndCount() {
        tearDown.run();
        return written.getAsLong();
      }

      @Override
      public int linesPerRequest() {
        return linesPerRequest;
      }
    };
  }

  /**
   * trtrace as the README shows it: every default (or, for a diagnosis run, another max write delay),
   * the request ID from the caller's header.
   */
  private static Sdk trtrace(java.time.Duration maxWriteDelay) {
    Path dir = WrittenLines.newDirectory("trtrace");
    // trtrace.* system properties apply (none by default), e.g. -Dtrtrace.batch.size=128
    InferenceTracer.Builder b = InferenceTracer.builder().jsonLinesFile(dir.resolve("inference.log"))
        .fromProperties(System::getProperty);
    if (maxWriteDelay != null) {
      b.maxWriteDelay(maxWriteDelay);
    }
    InferenceTracer tracer = b.build();
    return new Sdk() {
      @Override
      public void request(Producer p) {
        tracer.run(RequestShape.MODEL, p.nextRequestId(), TrtraceFileBenchmark::body);
      }

      @Override
      public long closeAndCount() {
        return closeTrtrace(tracer, dir);
      }
    };
  }

  /** trtrace in the JMH peer's form ({@link TrtraceFileBenchmark}: context opened, then {@code start}). */
  private static Sdk trtraceStartForm() {
    TrtraceFileBenchmark b = new TrtraceFileBenchmark();
    b.setUp();
    return new Sdk() {
      @Override
      public void request(Producer p) {
        b.request(p);
      }

      @Override
      public long closeAndCount() {
        b.tearDown();
        return WrittenLines.lastWritten;
      }
    };
  }

  private static long closeTrtrace(InferenceTracer tracer, Path dir) {
    tracer.close();
    TracerStats stats = tracer.stats();
    System.out.println("[trtrace] " + stats);
    long sinkWritten = stats.dispatcher().sinks().values().stream().mapToLong(x -> x.written()).sum();
    long onDisk = WrittenLines.count(dir);
    System.out.printf("[trtrace] sink written=%d lines on disk=%d dropped=%d%n", sinkWritten, onDisk, stats.dispatcher().dropped());
    WrittenLines.delete(dir);
    return onDisk;
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }
}
