package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.internal.shim.TensorRtObjects;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;

/**
 * Tracing overhead on the real TensorRT engine (issue 10, benchmark 3): the demo's request path (tokenize,
 * prefill + token-by-token decode through {@link TracedEngine}, output check) traced fully — JSON Lines file
 * sink, NVML poller, MDC through {@code makeCurrent}, stages, CUDA-event GPU time, roofline attributes —
 * against {@code InferenceTracer.noop()} through the same engine, and against a raw context without the SDK.
 *
 * <p>Method: interleaved blocks. Each round runs one block of {@code block} requests per mode, the modes'
 * order rotating from round to round (so drift and order effects hit every mode alike); a round's ratio is the
 * ratio of the two blocks' p50s. Reported: the median of the per-round ratios with their interquartile range,
 * and p50 / p99 / throughput over all requests of each mode. Then full against noop alone in ABBA quads
 * ({@link #quads}), which resolves a few tenths of a percent. One thread, one request at a time.
 *
 * <pre>{@code
 * java -cp ... io.github.trtrace.examples.demo.GpuOverhead out/overhead.txt 24 20 300   // rounds, block, quads
 * }</pre>
 */
final class GpuOverhead {
  private GpuOverhead() {}

  /** A request shape: prompt words and tokens to generate. */
  record Mix(String name, String prompt, int maxTokens) {}

  private interface Body {
    void run() throws Exception;
  }

  public static void main(String[] args) throws Exception {
    Path report = Path.of(args.length > 0 ? args[0] : "overhead.txt");
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 24;
    int block = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    int quads = args.length > 3 ? Integer.parseInt(args[3]) : 0;
    Files.deleteIfExists(report);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    TensorRtBackendProvider provider = new TensorRtBackendProvider();
    String why = provider.unavailableReason();
    if (why != null) {
      say(out, report, "no TensorRT backend here: " + why);
      return;
    }
    Path records = report.resolveSibling("overhead-records.jsonl");
    try (TensorRtBackend backend = (TensorRtBackend) provider.create()) {
      say(out, report, "backend: " + backend.description());
      GpuMetricsSource nvml = backend.gpuMetrics();
      InferenceTracer.Builder fb = InferenceTracer.builder().jsonLinesFile(records).inputDigest(true);
      if (nvml != null) {
        fb.gpuMetrics(nvml, Duration.ofMillis(100));
      }
      IExecutionContext raw = backend.rawContext();
      try (InferenceTracer full = fb.build(); CudaStream stream = CudaStream.createNonBlocking()) {
        InferenceTracer noop = InferenceTracer.noop();
        List<Mix> mixes = List.of(
            new Mix("short (16-token prompt, 32 tokens)", words(16, 1), 32),
            new Mix("long (2,000-token prompt, 32 tokens)", words(2000, 2), 32));
        for (Mix m : mixes) {
          int[] ids = backend.tokenizer().session().encode(m.prompt());
          Map<String, Body> modes = new LinkedHashMap<>();
          modes.put("full", () -> serve(backend, full, m));
          modes.put("noop", () -> serve(backend, noop, m));
          modes.put("raw", () -> backend.generateRaw(noop.start(TensorRtBackend.MODEL), raw, stream, ids, m.maxTokens()));
          for (int i = 0; i < 30; i++) { // warm-up (JIT, caches, clocks)
            for (Body b : modes.values()) {
              b.run();
            }
          }
          say(out, report, String.format(Locale.ROOT, "%n== %s: %d prompt tokens; %d rounds x %d requests per mode ==",
              m.name(), ids.length, rounds, block));
          say(out, report, measure(modes, rounds, block));
          if (quads > 0) {
            say(out, report, quads(modes.get("full"), modes.get("noop"), quads));
          }
        }
        full.flush().join();
      } finally {
        TensorRtObjects.destroy(raw);
      }
    }
    say(out, report, "records of the full-tracing requests: " + records + " (" + Files.lines(records).count() + " lines)");
  }

  /** The demo service's request path without HTTP: tokenize, generate, output check. */
  private static void serve(TensorRtBackend backend, InferenceTracer tracer, Mix m) {
    try (InferenceTrace t = tracer.start(backend.modelName()); TraceScope s = t.makeCurrent()) {
      t.input(m.prompt()).maxTokens(m.maxTokens());
      Tokenizer.Session session = backend.tokenizer().session();
      int[] ids = t.callStage(Stage.PREPROCESS, () -> session.encode(m.prompt()));
      t.inputTokens(ids.length);
      StringBuilder text = new StringBuilder();
      int[] generated = backend.generate(t, ids, m.maxTokens(), id -> text.append(session.decode(id)));
      t.runStage(Stage.POSTPROCESS, () -> {
        t.output(text);
        t.finishReason(generated.length < m.maxTokens() ? "stop" : "length");
      });
    }
  }

  /** Rounds of one block per mode, in rotating order; the table and the per-round ratios. */
  static String measure(Map<String, Body> modes, int rounds, int block) throws Exception {
    List<String> names = new ArrayList<>(modes.keySet());
    int k = names.size();
    double[][][] ms = new double[k][rounds][block];
    double[] wall = new double[k];
    for (int r = 0; r < rounds; r++) {
      for (int j = 0; j < k; j++) {
        int m = (j + r) % k;
        Body body = modes.get(names.get(m));
        for (int i = 0; i < block; i++) {
          long t0 = System.nanoTime();
          body.run();
          double d = (System.nanoTime() - t0) / 1e6;
          ms[m][r][i] = d;
          wall[m] += d;
        }
      }
    }
    return table(names, ms, wall);
  }

  /**
   * Full tracing against noop request by request, in ABBA quads (full, noop, noop, full, then the next quad
   * starting with noop), so neighbouring requests share the device's state and the order cancels: each quad's
   * ratio is (full + full) / (noop + noop). The median of the quad ratios with a 95 % interval for it (order
   * statistics: ranks n/2 -+ 0.98 sqrt(n)), their interquartile range, and the pooled p50 and p99.
   */
  static String quads(Body full, Body noop, int n) throws Exception {
    double[] ratio = new double[n];
    double[] a = new double[2 * n];
    double[] b = new double[2 * n];
    for (int q = 0; q < n; q++) {
      Body[] order = q % 2 == 0 ? new Body[] {full, noop, noop, full} : new Body[] {noop, full, full, noop};
      double[] t = new double[4];
      for (int i = 0; i < 4; i++) {
        long t0 = System.nanoTime();
        order[i].run();
        t[i] = (System.nanoTime() - t0) / 1e6;
      }
      double fullMs = q % 2 == 0 ? t[0] + t[3] : t[1] + t[2];
      double noopMs = q % 2 == 0 ? t[1] + t[2] : t[0] + t[3];
      ratio[q] = fullMs / noopMs;
      a[2 * q] = q % 2 == 0 ? t[0] : t[1];
      a[2 * q + 1] = q % 2 == 0 ? t[3] : t[2];
      b[2 * q] = q % 2 == 0 ? t[1] : t[0];
      b[2 * q + 1] = q % 2 == 0 ? t[2] : t[3];
    }
    double[] s = sorted(ratio);
    int lo = (int) Math.max(0, Math.floor(n / 2.0 - 0.98 * Math.sqrt(n)));
    int hi = (int) Math.min(n - 1, Math.ceil(n / 2.0 + 0.98 * Math.sqrt(n)));
    double[] sa = sorted(a);
    double[] sb = sorted(b);
    return String.format(Locale.ROOT,
        "full/noop in ABBA quads: median quad ratio %.4f (95%% interval %.4f..%.4f; IQR %.4f..%.4f; %d quads,"
            + " %d requests per mode); pooled p50 %.3f / %.3f ms = %.4f, p99 %.3f / %.3f ms = %.4f,"
            + " throughput %.4f%n",
        percentile(s, 0.5), s[lo], s[hi], percentile(s, 0.25), percentile(s, 0.75), n, 2 * n,
        percentile(sa, 0.5), percentile(sb, 0.5), percentile(sa, 0.5) / percentile(sb, 0.5),
        percentile(sa, 0.99), percentile(sb, 0.99), percentile(sa, 0.99) / percentile(sb, 0.99),
        Arrays.stream(b).sum() / Arrays.stream(a).sum());
  }

  static String table(List<String> names, double[][][] ms, double[] wall) {
    StringBuilder sb = new StringBuilder();
    int k = names.size();
    int rounds = ms[0].length;
    int block = ms[0][0].length;
    double[][] p50 = new double[k][];
    double[][] p99 = new double[k][];
    for (int m = 0; m < k; m++) {
      double[] all = Arrays.stream(ms[m]).flatMapToDouble(Arrays::stream).sorted().toArray();
      p50[m] = new double[] {percentile(all, 0.50)};
      p99[m] = new double[] {percentile(all, 0.99)};
      sb.append(String.format(Locale.ROOT, "%-5s p50 %8.3f ms  p99 %8.3f ms  mean %8.3f ms  %7.2f req/s  (%d requests)%n",
          names.get(m), p50[m][0], p99[m][0], wall[m] / all.length, all.length / (wall[m] / 1e3), all.length));
    }
    for (int[] pair : new int[][] {{0, 1}, {1, 2}, {0, 2}}) {
      if (pair[1] >= k) {
        continue;
      }
      int a = pair[0];
      int b = pair[1];
      double[] ratios = new double[rounds];
      double[] tails = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        ratios[r] = percentile(sorted(ms[a][r]), 0.5) / percentile(sorted(ms[b][r]), 0.5);
        tails[r] = mean(ms[a][r]) / mean(ms[b][r]);
      }
      double[] s = ratios.clone();
      Arrays.sort(s);
      double[] ts = tails.clone();
      Arrays.sort(ts);
      sb.append(String.format(Locale.ROOT,
          "%s/%s: per-round p50 ratio median %.4f (IQR %.4f..%.4f, min %.4f, max %.4f, %d rounds of %d);"
              + " per-round mean ratio median %.4f; pooled p50 %.4f, p99 %.4f, throughput %.4f%n",
          names.get(a), names.get(b), percentile(s, 0.5), percentile(s, 0.25), percentile(s, 0.75), s[0],
          s[s.length - 1], rounds, block, percentile(ts, 0.5), p50[a][0] / p50[b][0], p99[a][0] / p99[b][0],
          (wall[b] / wall[a])));
    }
    return sb.toString();
  }

  static double percentile(double[] sorted, double q) {
    double pos = q * (sorted.length - 1);
    int lo = (int) Math.floor(pos);
    int hi = Math.min(sorted.length - 1, lo + 1);
    return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
  }

  private static double[] sorted(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s;
  }

  private static double mean(double[] v) {
    return Arrays.stream(v).average().orElse(Double.NaN);
  }

  /** A prompt of {@code n} vocabulary words (deterministic for {@code variant}). */
  static String words(int n, int variant) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : " ").append(Words.VOCABULARY.get((int) ((variant * 7919L + i * 104729L) % Words.VOCABULARY.size())));
    }
    return sb.toString();
  }

  private static void say(PrintStream out, Path report, String text) throws IOException {
    out.println(text);
    Files.writeString(report, text + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
