package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service batches on any backend that steps (as the TensorRT one does on a GPU), not only on the CPU backend:
 * its requests are served by the backend's step model, never one at a time through {@code generate}.
 */
class SteppingBackendServiceTest {

  /** Another backend that steps: the CPU model under its own name, two rows a step, {@code generate} refused. */
  private static final class TwoRows implements Backend, StepModel {
    final CpuBackend cpu = new CpuBackend(Tokenizer.standard());

    @Override public String modelName() { return "two-rows"; }

    @Override public String description() { return "the CPU model, two rows a step"; }

    @Override public int maxContext() { return cpu.maxContext(); }

    @Override public Tokenizer tokenizer() { return cpu.tokenizer(); }

    @Override public int maxConcurrency() { return 1; }

    @Override public StepModel stepModel(int replica) { return this; }

    @Override
    public int[] generate(InferenceTrace trace, int[] prompt, int maxTokens, IntConsumer onToken) {
      throw new AssertionError("a backend that steps is served by its step model");
    }

    @Override public int vocabularySize() { return cpu.vocabularySize(); }

    @Override public int maxRows() { return 2; }

    @Override public Sequence sequence(int capacity) { return cpu.sequence(capacity); }

    /**
     * Each step also takes 25 ms, so that a request's 24 tokens take over half a second: the other four requests
     * reach the engine while the first still decodes, even on a loaded machine (without it the tiny model could
     * finish one before the next arrived: 3 failures in 10 runs at load 4-6, no launch of two rows).
     */
    @Override
    public float[][] step(SharedLaunch launch, List<Chunk> chunks) {
      try {
        Thread.sleep(25);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return cpu.step(launch, chunks);
    }

    @Override public int[] next(float[][] last, boolean[][] used, int[] steps) { return cpu.next(last, used, steps); }

    @Override public void close() {}
  }

  @Test
  void aBackendThatStepsIsServedByContinuousBatchingWithinItsRows(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("logs/inference.log");
    List<String> said = new ArrayList<>();
    List<HttpResponse<String>> answers = new ArrayList<>();
    try (DemoService service = DemoService.start(new DemoService.Config(0, 1, 8, log), new TwoRows(), said::add,
        null)) {
      URI uri = service.uri().resolve(DemoService.PATH);
      HttpClient client = HttpClient.newHttpClient();
      List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        sent.add(client.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"why is the sky blue " + i + "\",\"max_tokens\":24}"))
            .build(), HttpResponse.BodyHandlers.ofString()));
      }
      for (CompletableFuture<HttpResponse<String>> f : sent) {
        answers.add(f.join());
      }
    }
    assertThat(answers).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));
    assertThat(said).anySatisfy(l -> assertThat(l).startsWith("listening on ").contains("continuous batching"));
    List<JsonNode> launches = BatchEngineTest.launchLines(DemoService.launchLog(log));
    assertThat(launches).isNotEmpty().allSatisfy(l -> assertThat(l.path("batch_size").asInt()).isBetween(1, 2));
    assertThat(launches).anySatisfy(l -> assertThat(l.path("batch_size").asInt()).isEqualTo(2));
  }

  @Test
  void theTensorRtPlanCacheKeyChangesWithTheBatchExtentsTheOptimisationLevelAndTheAuxiliaryStreams() {
    TransformerNetwork.Config c = TensorRtBackend.config(633, "small");
    TransformerNetwork.Slots b = TensorRtBackend.extents();
    assertThat(b).isEqualTo(new TransformerNetwork.Slots(BatchEngine.Settings.continuous().maxBatch(),
        BatchEngine.Settings.continuous().stepTokens()));
    String key = TensorRtBackend.cacheKey(c, b, 1, -1, 7, "10.6.0", "NVIDIA H200", "9.0");
    assertThat(TensorRtBackend.cacheKey(c, b, 1, -1, 7, "10.6.0", "NVIDIA H200", "9.0")).isEqualTo(key);
    assertThat(TensorRtBackend.cacheKey(c, b, 0, -1, 7, "10.6.0", "NVIDIA H200", "9.0")).isNotEqualTo(key);
    assertThat(TensorRtBackend.cacheKey(c, new TransformerNetwork.Slots(8, 256), 1, -1, 7, "10.6.0", "NVIDIA H200",
        "9.0")).isNotEqualTo(key);
    // a cap on the auxiliary streams is another plan
    assertThat(TensorRtBackend.cacheKey(c, b, 1, 0, 7, "10.6.0", "NVIDIA H200", "9.0")).isNotEqualTo(key);
  }
}
