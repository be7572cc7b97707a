package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.IntToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * What serves the model: the demo's {@link CpuBackend} by default; a TensorRT backend when one is on the
 * class path (a {@link Provider} registered in {@code META-INF/services}) and says it can run here (a GPU
 * and TensorRT present). The choice is made once at start-up and stated.
 *
 * <pre>{@code
 * try (Backend backend = Backend.choose(System.out::println)) {
 *   int[] out = backend.generate(trace, promptTokens, 32, id -> stream(id));
 * }
 * }</pre>
 */
interface Backend extends AutoCloseable {

  /** The model name written to records. */
  String modelName();

  /** One line for the start-up statement: what runs and why. */
  String description();

  /** The longest prompt plus output it accepts, in tokens. */
  int maxContext();

  /** The tokenizer matching the model's vocabulary. */
  Tokenizer tokenizer();

  /**
   * The most workers the service runs: threads serving one request each through {@link #generate}, or, for a
   * backend that batches, engine replicas ({@link BatchEngine}s, each serving many requests a step).
   */
  default int maxConcurrency() {
    return Integer.MAX_VALUE;
  }

  /**
   * What the service's engine replica {@code replica} steps by continuous batching ({@link BatchEngine}), the
   * same object for the same replica on every call; null when this backend serves one request per worker
   * through {@link #generate}. One scheduler at a time may step it.
   */
  default @Nullable StepModel stepModel(int replica) {
    return null;
  }

  /** The GPU's utilisation for the tracer's poller ({@code gpu_util}, {@code gpu_mem_util}); null on the CPU. */
  default @Nullable GpuMetricsSource gpuMetrics() {
    return null;
  }

  /**
   * Generates up to {@code maxTokens} tokens after {@code prompt}: prefill under {@code Stage.INFER}, then the
   * decode loop under {@code Stage.DECODE} (each step's engine launch an {@code INFER} inside it), marking
   * {@code trace.token()} and calling {@code onToken} for each generated token. Returns the generated IDs (fewer than {@code maxTokens} when the model stopped).
   */
  int[] generate(InferenceTrace trace, int[] prompt, int maxTokens, IntConsumer onToken);

  @Override
  void close();

  /**
   * Greedy choice among {@code candidates} by {@code logit}, as both backends sample: tokens already produced
   * ({@code used}) are penalised, and end of sequence is not chosen in the first 4 steps.
   */
  static int greedy(int[] candidates, IntToDoubleFunction logit, boolean[] used, int step) {
    int best = -1;
    double bestLogit = Double.NEGATIVE_INFINITY;
    for (int t : candidates) {
      if (t == Tokenizer.EOS && step < 4) {
        continue;
      }
      double l = logit.applyAsDouble(t);
      if (used[t]) {
        l -= 1e4;
      }
      if (l > bestLogit) {
        bestLogit = l;
        best = t;
      }
    }
    return best;
  }

  /** A backend that may be available on this machine. */
  interface Provider {
    /** Short name, e.g. {@code "tensorrt"}. */
    String name();

    /** Null when this backend can run here; otherwise why not (no GPU, no TensorRT, ...). */
    @Nullable String unavailableReason();

    Backend create();
  }

  /**
   * The first available {@link Provider} (TensorRT when present), otherwise the CPU backend; says which and
   * why through {@code say}.
   */
  static Backend choose(Consumer<String> say) {
    return choose(ServiceLoader.load(Provider.class), say);
  }

  /**
   * The first of {@code providers} that is available and starts, otherwise the CPU backend; the line said
   * names the chosen one and, for the CPU, why each provider was passed over (unavailable, or failed to start).
   */
  static Backend choose(Iterable<Provider> providers, Consumer<String> say) {
    List<String> skipped = new ArrayList<>();
    for (Provider p : providers) {
      String reason;
      try {
        reason = p.unavailableReason();
      } catch (RuntimeException | LinkageError e) {
        reason = e.toString();
      }
      if (reason == null) {
        try {
          Backend b = p.create();
          say.accept("backend: " + p.name() + " - " + b.description());
          return b;
        } catch (RuntimeException | LinkageError e) {
          reason = "failed to start: " + e;
        }
      }
      skipped.add(p.name() + ": " + reason);
    }
    Backend cpu = new CpuBackend(Tokenizer.standard());
    say.accept("backend: cpu - " + cpu.description() + " ("
        + (skipped.isEmpty() ? "no TensorRT backend on the class path" : String.join("; ", skipped)) + ")");
    return cpu;
  }
}
