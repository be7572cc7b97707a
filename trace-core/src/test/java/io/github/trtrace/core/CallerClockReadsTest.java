package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.core.sink.CapturingSink;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The monotonic clock reads on the caller's path of one traced request (issue 22: each costs about
 * 30 ns on the kvm-clock machines measured): one per instant the record keeps, and none more. The
 * sampler decides with the trace's end reading when it reads the tracer's clock, and still reads its
 * own clock when it has another.
 */
class CallerClockReadsTest {
  private static final Clock WALL = Clock.fixed(Instant.parse("2026-12-02T10:00:00Z"), ZoneOffset.UTC);

  /** A clock that moves 1 ms forward at every read, and counts the reads. */
  private static final class SteppingClock implements LongSupplier {
    final AtomicLong now = new AtomicLong(5_000_000_000L);
    final AtomicLong reads = new AtomicLong();

    @Override
    public long getAsLong() {
      reads.incrementAndGet();
      return now.addAndGet(1_000_000L);
    }
  }

  /** The README's callback form with §1's body: four stages, two tokens. */
  private static String request(InferenceTracer tracer, String id) {
    return tracer.call("llama-8b", id, t -> {
      t.stage(Stage.QUEUE).close();
      t.callStage(Stage.PREPROCESS, () -> t.inputTokens(128));
      t.runStage(Stage.INFER, () -> t.addGpuMs(4.25));
      t.runStage(Stage.DECODE, () -> {
        t.token();
        t.token();
      });
      return t.requestId();
    });
  }

  @Test
  void oneRequestReadsTheClockOncePerRecordedInstantAndItsTimesStayExact() {
    SteppingClock clock = new SteppingClock();
    CapturingSink sink = CapturingSink.create();
    try (InferenceTracer tracer = new TracerFactory().sink(sink).clocks(WALL, clock)
        .sampler(Sampler.builder().nanoClock(clock).build()).build()) {
      request(tracer, "req-clock-warm");
      long before = clock.reads.get();
      request(tracer, "req-clock-1");
      // start, 4 stage openings, 4 stage ends, 2 tokens, end: 12 instants. The sampler, which reads
      // the same clock, decides with the end's reading instead of a 13th read.
      assertThat(clock.reads.get() - before).isEqualTo(12);
      tracer.flush().join();
    }
    InferenceRecord r = sink.records().get(1);
    assertThat(r.requestId()).isEqualTo("req-clock-1");
    // reads 0 (start) .. 11 (end), 1 ms apart
    assertThat(r.latencyMs()).isEqualTo(11.0);
    assertThat(r.queueMs()).isEqualTo(1.0);
    assertThat(r.preprocessMs()).isEqualTo(1.0);
    assertThat(r.inferMs()).isEqualTo(1.0);
    assertThat(r.decodeMs()).isEqualTo(3.0);
    assertThat(r.ttftMs()).isEqualTo(8.0);
    assertThat(r.tpotMs()).isEqualTo(1.0);
    assertThat(r.outputTokens()).isEqualTo(2);
    assertThat(r.sampledReason()).isEqualTo(Sampler.SAMPLED);
  }

  @Test
  void aSamplerWithAClockOfItsOwnStillReadsItOncePerDecision() {
    SteppingClock tracerClock = new SteppingClock();
    SteppingClock samplerClock = new SteppingClock();
    CapturingSink sink = CapturingSink.create();
    try (InferenceTracer tracer = new TracerFactory().sink(sink).clocks(WALL, tracerClock)
        .sampler(Sampler.builder().nanoClock(samplerClock).build()).build()) {
      request(tracer, "req-own-warm");
      long tracerBefore = tracerClock.reads.get();
      long samplerBefore = samplerClock.reads.get();
      request(tracer, "req-own-1");
      assertThat(tracerClock.reads.get() - tracerBefore).isEqualTo(12);
      assertThat(samplerClock.reads.get() - samplerBefore).isEqualTo(1);
      tracer.flush().join();
    }
    assertThat(sink.records().get(1).latencyMs()).isEqualTo(11.0);
  }

  /**
   * The end reading the sampler gets is the trace's end on the sampler's own time line: its sliding
   * window forgets the fast requests once the clock has moved past the window, so a slow request is
   * judged against an empty window (no verdict) rather than against them.
   */
  @Test
  void theSamplersWindowMovesWithTheTracesEndReadings() {
    AtomicLong nanos = new AtomicLong(7_000_000_000L);
    LongSupplier clock = nanos::get;
    CapturingSink sink = CapturingSink.create();
    Sampler shared = Sampler.builder().window(Duration.ofSeconds(6)).minSamples(20).nanoClock(clock).build();
    try (InferenceTracer tracer = new TracerFactory().sink(sink).clocks(WALL, clock).sampler(shared).build()) {
      for (int i = 0; i < 100; i++) {
        timed(tracer, nanos, "req-fast-" + i, 1);
      }
      timed(tracer, nanos, "req-slow-1", 50);
      nanos.addAndGet(Duration.ofSeconds(30).toNanos()); // past the window: the fast ones are forgotten
      timed(tracer, nanos, "req-slow-2", 50);
      tracer.flush().join();
    }
    assertThat(sink.records()).hasSize(102);
    assertThat(sink.records().get(100).sampledReason()).isEqualTo(Sampler.SLOW_P99);
    assertThat(sink.records().get(101).sampledReason()).isEqualTo(Sampler.SAMPLED);
  }

  private static void timed(InferenceTracer tracer, AtomicLong nanos, String id, long ms) {
    tracer.run("llama-8b", id, t -> nanos.addAndGet(ms * 1_000_000L));
  }
}
