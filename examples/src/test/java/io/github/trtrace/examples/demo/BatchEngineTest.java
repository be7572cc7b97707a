package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.testing.InMemorySink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The continuous-batching engine: same answers as alone, launches that add up, and the neighbours named. */
class BatchEngineTest {
  private final CpuBackend cpu = new CpuBackend(Tokenizer.standard());
  private static final ObjectMapper JSON = new ObjectMapper();
  private final AtomicLong ids = new AtomicLong();

  private int[] prompt(int words, int seed) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < words; i++) {
      b.append(Words.VOCABULARY.get((i * 7919 + seed * 31) % Words.VOCABULARY.size())).append(' ');
    }
    return cpu.tokenizer().session().encode(b.toString());
  }

  /** What one engine served through a real tracer: answers, records, and the launch log's lines. */
  private record Served(List<int[]> answers, List<InferenceRecord> records, List<JsonNode> launches) {
    InferenceRecord record(String id) {
      List<InferenceRecord> r = records.stream().filter(x -> x.requestId().equals(id)).toList();
      assertThat(r).as(id).hasSize(1);
      return r.get(0);
    }
  }

  private Served serve(BatchEngine.Settings settings, List<int[]> prompts, int maxTokens, Path dir) throws Exception {
    InMemorySink memory = InMemorySink.create();
    Path launchLog = dir.resolve("launches-" + ids.incrementAndGet() + ".log");
    List<int[]> answers;
    try (InferenceTracer tracer = InferenceTracer.builder().sink(memory).launchLog(launchLog).build()) {
      BatchEngine engine = BatchEngine.start(cpu, settings, 0, tracer);
      try {
        List<CompletableFuture<int[]>> done = new ArrayList<>();
        for (int i = 0; i < prompts.size(); i++) {
          done.add(submit(engine, tracer, "req-" + i, prompts.get(i), maxTokens, id -> {}));
        }
        answers = done.stream().map(f -> f.orTimeout(120, TimeUnit.SECONDS).join()).toList();
      } finally {
        engine.close();
      }
      tracer.flush().orTimeout(30, TimeUnit.SECONDS).join();
    }
    return new Served(answers, memory.records(), launchLines(launchLog));
  }

  static List<JsonNode> launchLines(Path launchLog) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(launchLog)) {
      out.add(JSON.readTree(line));
    }
    return out;
  }

  @Test
  void aRequestsAnswerDoesNotDependOnItsBatchNeighboursNorOnBeingPreempted(@TempDir Path dir) throws Exception {
    List<int[]> prompts = List.of(prompt(30, 1), prompt(600, 2), prompt(1500, 3), prompt(12, 4), prompt(200, 5));
    List<int[]> alone = new ArrayList<>();
    for (int[] p : prompts) {
      alone.add(cpu.generate(InferenceTracer.noop().start("m"), p, 24, id -> {}));
    }
    Served batched = serve(BatchEngine.Settings.continuous(), prompts, 24, dir);
    assertThat(batched.answers()).containsExactlyElementsOf(alone);
    assertThat(batched.launches()).anyMatch(l -> l.path("batch_size").asInt() >= 3
        && "mixed".equals(l.path("phase").asText()));

    // A cache budget that holds the long prompt and little more: the decoders' growth forces preemptions.
    int longest = prompts.stream().mapToInt(p -> p.length).max().orElseThrow();
    Served tight = serve(new BatchEngine.Settings(8, 64, longest + 40), prompts, 24, dir);
    assertThat(tight.answers()).containsExactlyElementsOf(alone);
    assertThat(tight.records()).anyMatch(r -> r.batching() != null && r.batching().preemptions() > 0);
    assertThat(tight.records()).filteredOn(r -> r.batching() != null && r.batching().preemptions() > 0)
        .allMatch(r -> r.events().stream().anyMatch(e -> e.toString().contains("kv_cache_full")));
  }

  @Test
  void everyLaunchRespectsTheLimitsAndItsMembersSharesAddUpToItsCpuTime(@TempDir Path dir) throws Exception {
    List<int[]> prompts = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      prompts.add(prompt(i % 3 == 0 ? 900 : 20 + 10 * i, i));
    }
    BatchEngine.Settings s = new BatchEngine.Settings(6, 128, 100_000);
    Served served = serve(s, prompts, 16, dir);
    assertThat(served.launches()).isNotEmpty();
    long previous = 0;
    for (JsonNode l : served.launches()) {
      assertThat(l.path("launch_id").asLong()).isGreaterThan(previous);
      previous = l.path("launch_id").asLong();
      assertThat(l.path("batch_size").asInt()).isBetween(1, s.maxBatch());
      assertThat(l.path("prefill_tokens").asInt() + l.path("decode_rows").asInt()).isBetween(1, s.stepTokens());
      assertThat(l.path("share_method").asText()).isEqualTo("weighted");
      double sum = 0;
      for (JsonNode m : l.path("members")) {
        assertThat(m.path("share_ms").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(m.path("prefill_tokens").asInt() > 0).isNotEqualTo(m.path("decode_rows").asInt() > 0);
        sum += m.path("share_ms").asDouble();
      }
      // the log writes milliseconds to 3 decimals: each share and the total within half a microsecond
      assertThat(sum).isCloseTo(l.path("gpu_ms").asDouble(), within(0.0005 * (l.path("members").size() + 1) + 1e-9));
    }
    // 12 requests, at most 6 at once: some waited for a slot
    assertThat(served.launches().stream().mapToInt(l -> l.path("batch_size").asInt()).max().orElseThrow())
        .isEqualTo(6);
    assertThat(served.records()).anyMatch(r -> r.batching().slotWaitMs() > 0);
    assertThat(served.records()).allMatch(r -> "weighted".equals(r.batching().shareMethod()) && r.gpuMs() > 0);
  }

  @Test
  void aLongPromptArrivingWhileOthersDecodeIsNamedOnTheirRecordsAndInTheFindings(@TempDir Path dir)
      throws Exception {
    Path log = dir.resolve("inference.log");
    int[] document = prompt(2000, 9);
    InMemorySink memory = InMemorySink.create();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(memory)
        .sink(JsonLinesFileSink.builder(log).build()).launchLog(DemoService.launchLog(log)).build()) {
      BatchEngine engine = BatchEngine.start(cpu, BatchEngine.Settings.continuous(), 0, tracer);
      try {
        List<CompletableFuture<int[]>> done = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 4; i++) { // chats decoding with no prefill beside them
          done.add(submit(engine, tracer, "api-calm-" + i, prompt(20 + i, i), 40, id -> {}));
        }
        done.forEach(CompletableFuture::join);
        done.clear();
        int[] tokens = {0};
        for (int i = 0; i < 3; i++) { // chats decoding when the document arrives (at the last chat's 3rd token)
          IntConsumer arrives = i < 2 ? id -> {} : id -> {
            if (++tokens[0] == 3) {
              done.add(submit(engine, tracer, "api-document", document, 8, x -> {}));
            }
          };
          done.add(submit(engine, tracer, "api-chat-" + i, prompt(24 + i, 10 + i), 40, arrives));
        }
        while (done.size() < 4) {
          Thread.onSpinWait();
        }
        done.forEach(f -> f.orTimeout(120, TimeUnit.SECONDS).join());
      } finally {
        engine.close();
      }
      tracer.flush().orTimeout(30, TimeUnit.SECONDS).join();
    }
    for (int i = 0; i < 3; i++) {
      SharedLaunch.Summary b = record(memory, "api-chat-" + i).batching();
      assertThat(b.slowedBy()).first().extracting(SharedLaunch.Neighbour::requestId).isEqualTo("api-document");
      assertThat(b.neighbourPrefillLaunches()).isPositive();
    }
    for (int i = 0; i < 4; i++) { // served before the document came: never beside it
      assertThat(record(memory, "api-calm-" + i).batching().slowedBy())
          .noneMatch(n -> n.requestId().equals("api-document"));
    }
    assertThat(record(memory, "api-document").gpuMs()).isPositive();

    BatchFindings f = BatchFindings.read(log);
    for (BatchFindings.Req r : f.requests()) {
      if (r.id().startsWith("api-chat-")) { // from the launch log: its steps beside the prompt took longer
        assertThat(r.decodeStepsWithPrefill()).as(r.id()).isPositive();
        assertThat(r.stepCpuMsWithPrefill()).as(r.id()).isGreaterThan(r.stepCpuMsAlone());
      }
    }
    assertThat(f.victims()).extracting(v -> v.req().id()).containsExactlyInAnyOrder("api-chat-0", "api-chat-1",
        "api-chat-2");
    assertThat(f.victims()).allMatch(v -> v.culprit().equals("api-document") && v.culpritTokens() > 256);
    assertThat(f.culprits()).first().isEqualTo(new BatchFindings.Culprit("api-document", document.length, 3));
  }

  /** The CPU model held to a smaller step (3 rows, 32-token chunks), failing every step that carries api-bad. */
  private static final class SmallSteps implements StepModel {
    final CpuBackend cpu;
    final AtomicLong opened = new AtomicLong();
    final AtomicLong released = new AtomicLong();

    SmallSteps(CpuBackend cpu) {
      this.cpu = cpu;
    }

    @Override public String modelName() { return cpu.modelName(); }

    @Override public int vocabularySize() { return cpu.vocabularySize(); }

    @Override public int maxRows() { return 3; }

    @Override public int maxChunkTokens() { return 32; }

    @Override
    public Sequence sequence(int capacity) {
      opened.incrementAndGet();
      CpuBackend.Sequence own = cpu.sequence(capacity);
      return new Wrapped(own, released);
    }

    @Override
    public float[][] step(SharedLaunch launch, List<Chunk> chunks) {
      List<Chunk> own = new ArrayList<>();
      for (Chunk c : chunks) {
        if (c.trace().requestId().equals("api-bad")) {
          launch.error("test.step_failed");
          throw new IllegalStateException("step refused");
        }
        own.add(new Chunk(c.trace(), ((Wrapped) c.seq()).own, c.tokens(), c.start()));
      }
      return cpu.step(launch, own);
    }

    @Override
    public int[] next(float[][] last, boolean[][] used, int[] steps) {
      return cpu.next(last, used, steps);
    }

    private record Wrapped(CpuBackend.Sequence own, AtomicLong released) implements Sequence {
      @Override
      public void release() {
        released.incrementAndGet();
      }
    }
  }

  @Test
  void aFailedStepFailsItsMembersOnlyAndTheStepsKeepToTheModelsLimits(@TempDir Path dir) throws Exception {
    SmallSteps model = new SmallSteps(cpu);
    InMemorySink memory = InMemorySink.create();
    Path launchLog = dir.resolve("launches.log");
    List<int[]> answers = new ArrayList<>();
    List<int[]> prompts = List.of(prompt(100, 1), prompt(20, 2), prompt(70, 3), prompt(12, 4), prompt(40, 5));
    try (InferenceTracer tracer = InferenceTracer.builder().sink(memory).launchLog(launchLog).build()) {
      BatchEngine engine = BatchEngine.start(model, BatchEngine.Settings.continuous(), 0, tracer);
      try {
        CompletableFuture<int[]> bad = submit(engine, tracer, "api-bad", prompt(50, 9), 8, id -> {});
        assertThat(bad).failsWithin(120, TimeUnit.SECONDS).withThrowableOfType(Exception.class)
            .withMessageContaining("step refused");
        List<CompletableFuture<int[]>> done = new ArrayList<>();
        for (int i = 0; i < prompts.size(); i++) {
          done.add(submit(engine, tracer, "api-" + i, prompts.get(i), 12, id -> {}));
        }
        for (CompletableFuture<int[]> f : done) {
          answers.add(f.orTimeout(120, TimeUnit.SECONDS).join());
        }
      } finally {
        engine.close();
      }
      tracer.flush().orTimeout(30, TimeUnit.SECONDS).join();
    }
    Served alone = serve(BatchEngine.Settings.onePerWorker(), prompts, 12, dir);
    for (int i = 0; i < prompts.size(); i++) {
      assertThat(answers.get(i)).as("api-%d", i).containsExactly(alone.answers().get(i));
    }
    assertThat(record(memory, "api-bad").errorType()).isEqualTo("test.step_failed");
    for (JsonNode l : launchLines(launchLog)) {
      assertThat(l.path("batch_size").asInt()).isBetween(1, 3);
      for (JsonNode m : l.path("members")) {
        assertThat(m.path("prefill_tokens").asInt()).isLessThanOrEqualTo(32);
      }
    }
    assertThat(model.released.get()).as("every key/value cache given back").isEqualTo(model.opened.get());
  }

  private static CompletableFuture<int[]> submit(BatchEngine e, InferenceTracer tracer, String id, int[] prompt,
      int maxTokens, IntConsumer onToken) {
    InferenceTrace t = tracer.start("m", id);
    t.inputTokens(prompt.length);
    return e.submit(new BatchEngine.Request(t, prompt, maxTokens, onToken)).whenComplete((out, x) -> t.close());
  }

  private static InferenceRecord record(InMemorySink sink, String id) {
    List<InferenceRecord> r = sink.records().stream().filter(x -> x.requestId().equals(id)).toList();
    assertThat(r).as(id).hasSize(1);
    return r.get(0);
  }
}
