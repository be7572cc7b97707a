package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.testing.InMemorySink;
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
  private final AtomicLong ids = new AtomicLong();

  private int[] prompt(int words, int seed) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < words; i++) {
      b.append(Words.VOCABULARY.get((i * 7919 + seed * 31) % Words.VOCABULARY.size())).append(' ');
    }
    return cpu.tokenizer().session().encode(b.toString());
  }

  /** Captures launches and preemptions, and records attributes as the demo does. */
  private static final class Capture implements LaunchRecorder {
    final BatchRecorder attributes = BatchRecorder.attributesOnly();
    final List<Launch> launches = new CopyOnWriteArrayList<>();
    final List<String> preempted = new CopyOnWriteArrayList<>();

    @Override public void launched(Launch l) {
      launches.add(l);
      attributes.launched(l);
    }
    @Override public void waited(InferenceTrace t, long nanos) {
      attributes.waited(t, nanos);
    }
    @Override public void preempted(InferenceTrace t, long lost) {
      preempted.add(t.requestId());
      attributes.preempted(t, lost);
    }
    @Override public void finished(InferenceTrace t) {
      attributes.finished(t);
    }
    @Override public void close() {}
  }

  private List<int[]> serve(BatchEngine.Settings settings, List<int[]> prompts, int maxTokens, Capture capture) {
    InferenceTracer noop = InferenceTracer.noop();
    BatchEngine engine = BatchEngine.start(cpu, settings, 0, ids::incrementAndGet, capture);
    try {
      List<CompletableFuture<int[]>> done = new ArrayList<>();
      for (int[] p : prompts) {
        done.add(engine.submit(new BatchEngine.Request(noop.start("m"), p, maxTokens, id -> {})));
      }
      return done.stream().map(f -> f.orTimeout(120, TimeUnit.SECONDS).join()).toList();
    } finally {
      engine.close();
    }
  }

  @Test
  void aRequestsAnswerDoesNotDependOnItsBatchNeighboursNorOnBeingPreempted() {
    List<int[]> prompts = List.of(prompt(30, 1), prompt(600, 2), prompt(1500, 3), prompt(12, 4), prompt(200, 5));
    List<int[]> alone = new ArrayList<>();
    for (int[] p : prompts) {
      alone.add(cpu.generate(InferenceTracer.noop().start("m"), p, 24, id -> {}));
    }
    Capture batched = new Capture();
    assertThat(serve(BatchEngine.Settings.continuous(), prompts, 24, batched)).containsExactlyElementsOf(alone);
    assertThat(batched.launches).anyMatch(l -> l.members().size() >= 3 && l.prefillTokens() > 0 && l.decodeRows() > 0);

    // A cache budget that holds the long prompt and little more: the decoders' growth forces preemptions.
    Capture tight = new Capture();
    int longest = prompts.stream().mapToInt(p -> p.length).max().orElseThrow();
    assertThat(serve(new BatchEngine.Settings(8, 64, longest + 40), prompts, 24, tight))
        .containsExactlyElementsOf(alone);
    assertThat(tight.preempted).isNotEmpty();
  }

  @Test
  void everyLaunchRespectsTheLimitsAndItsMembersSharesAddUpToItsCpuTime() {
    List<int[]> prompts = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      prompts.add(prompt(i % 3 == 0 ? 900 : 20 + 10 * i, i));
    }
    Capture c = new Capture();
    BatchEngine.Settings s = new BatchEngine.Settings(6, 128, 100_000);
    serve(s, prompts, 16, c);
    assertThat(c.launches).isNotEmpty();
    long previous = 0;
    for (LaunchRecorder.Launch l : c.launches) {
      assertThat(l.id()).isGreaterThan(previous);
      previous = l.id();
      assertThat(l.members()).hasSizeBetween(1, s.maxBatch());
      assertThat(l.prefillTokens() + l.decodeRows()).isBetween(1, s.stepTokens());
      assertThat(l.members().stream().mapToLong(LaunchRecorder.Member::cpuShareNanos).sum()).isEqualTo(l.cpuNanos());
      assertThat(l.members()).allMatch(m -> m.cpuShareNanos() >= 0 && (m.prefillTokens() > 0) != (m.decodeRows() > 0));
    }
    // 12 requests, at most 6 at once: some waited for a slot
    assertThat(c.launches.stream().mapToInt(l -> l.members().size()).max().orElseThrow()).isEqualTo(6);
  }

  @Test
  void aLongPromptArrivingWhileOthersDecodeIsNamedOnTheirRecordsAndInTheFindings(@TempDir Path dir)
      throws Exception {
    Path log = dir.resolve("inference.log");
    int[] document = prompt(2000, 9);
    InMemorySink memory = InMemorySink.create();
    Capture c = new Capture();
    try (InferenceTracer tracer = InferenceTracer.builder().sink(memory)
        .sink(JsonLinesFileSink.builder(log).build()).build()) {
      BatchEngine engine = BatchEngine.start(cpu, BatchEngine.Settings.continuous(), 0, ids::incrementAndGet, c);
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
      InferenceRecord r = record(memory, "api-chat-" + i);
      assertThat(r.attributes().get("batch.slowed_by")).startsWith("api-document:");
      assertThat(Long.parseLong(r.attributes().get("batch.decode_steps_with_prefill"))).isPositive();
      assertThat(Double.parseDouble(r.attributes().get("batch.decode_step_ms_with_prefill")))
          .isGreaterThan(Double.parseDouble(r.attributes().get("batch.decode_step_ms_alone")));
    }
    for (int i = 0; i < 4; i++) { // served before the document came: never beside it
      assertThat(record(memory, "api-calm-" + i).attributes().getOrDefault("batch.slowed_by", ""))
          .doesNotContain("api-document");
    }
    assertThat(record(memory, "api-document").attributes().get("batch.compute_ms")).isNotBlank();

    BatchFindings f = BatchFindings.read(log);
    assertThat(f.victims()).extracting(v -> v.req().id()).containsExactlyInAnyOrder("api-chat-0", "api-chat-1",
        "api-chat-2");
    assertThat(f.victims()).allMatch(v -> v.culprit().equals("api-document") && v.culpritTokens() > 256);
    assertThat(f.culprits()).first().isEqualTo(new BatchFindings.Culprit("api-document", document.length, 3));
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
