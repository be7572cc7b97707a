package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.testing.InMemorySink;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CpuBackendTest {
  private final CpuBackend backend = new CpuBackend(Tokenizer.standard());

  private int[] prompt(int words) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < words; i++) {
      b.append(Words.VOCABULARY.get((i * 7919) % Words.VOCABULARY.size())).append(' ');
    }
    return backend.tokenizer().session().encode(b.toString());
  }

  @Test
  void generationIsDeterministicAndNeverRepeatsAWord() {
    int[] p = prompt(40);
    int[] a = backend.generate(InferenceTracer.noop().start("m"), p, 24, id -> {});
    int[] b = backend.generate(InferenceTracer.noop().start("m"), p, 24, id -> {});
    assertThat(a).isEqualTo(b).hasSizeGreaterThanOrEqualTo(4);
    assertThat(Arrays.stream(a).distinct().count()).isEqualTo(a.length);
    assertThat(Arrays.stream(a)).allMatch(t -> t > Tokenizer.EOS); // words only
  }

  @Test
  void aBatchedPassGivesEachChunkWhatItGetsAloneAndSharesThatAddUpToItsCpuTime() {
    List<int[]> prompts = List.of(prompt(5), prompt(300), prompt(1200), prompt(41));
    List<float[]> alone = new ArrayList<>();
    for (int[] p : prompts) {
      alone.add(backend.forward(List.of(new CpuBackend.Chunk(backend.sequence(p.length), p, 0)), null)[0]);
    }
    List<CpuBackend.Chunk> batch = new ArrayList<>();
    for (int[] p : prompts) {
      batch.add(new CpuBackend.Chunk(backend.sequence(p.length), p, 0));
    }
    long[] shares = new long[prompts.size()];
    float[][] batched = backend.forward(batch, shares);
    for (int i = 0; i < prompts.size(); i++) {
      assertThat(batched[i]).as("chunk %d", i).isEqualTo(alone.get(i)); // bit for bit
    }
    assertThat(java.util.Arrays.stream(shares)).allMatch(s -> s >= 0);
    assertThat(shares[2]).as("the 1,200-token prompt's share").isGreaterThan(shares[0]);
  }

  @Test
  void differentPromptsGiveDifferentAnswers() {
    int[] a = backend.generate(InferenceTracer.noop().start("m"), prompt(30), 16, id -> {});
    int[] b = backend.generate(InferenceTracer.noop().start("m"), prompt(31), 16, id -> {});
    assertThat(a).isNotEqualTo(b);
  }

  @Test
  void prefillAndEachDecodeStepAreInferInsideDecodeAndEveryTokenIsMarked() {
    InMemorySink sink = InMemorySink.create();
    List<Integer> streamed = new ArrayList<>();
    int[] out;
    try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).build()) {
      try (InferenceTrace t = tracer.start(CpuBackend.MODEL)) {
        out = backend.generate(t, prompt(200), 16, streamed::add);
      }
      tracer.flush().orTimeout(10, TimeUnit.SECONDS).join();
    }
    InferenceRecord r = sink.records().get(0);
    assertThat(streamed).hasSize(out.length);
    assertThat(r.outputTokens()).isEqualTo(out.length);
    assertThat(r.inferMs()).isPositive();
    assertThat(r.decodeMs()).isPositive();
    assertThat(r.ttftMs()).isPositive();
  }
}
