package io.github.trtrace.cli.internal;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs written by the real tracer: a small continuous-batching scheduler drives trace-core's {@link
 * SharedLaunch} API on a hand-driven clock and writes records ({@code inference.log}) and the launch log
 * ({@code launches.log}). The known culprit pattern: eight fast requests decode alone; {@link #VICTIM}
 * waits for a slot behind them, then decodes while {@link #LONG_1} (2,048 prompt tokens) and later
 * {@link #LONG_2} (1,024) prefill in 64-token chunks beside it; it is preempted once ("KV cache full").
 * A step takes {@link #STEP_MS} plus {@link #MS_PER_PREFILL_TOKEN} per prefill token in it. What the
 * victim went through is tallied here as the schedule runs, independently of the tracer and the CLI.
 */
final class BatchedLog {
  static final String VICTIM = "req-victim";
  static final String LONG_1 = "req-long-1";
  static final String LONG_2 = "req-long-2";
  static final String FAST = "req-fast-3";
  static final double STEP_MS = 10;
  static final double MS_PER_PREFILL_TOKEN = 0.25;
  static final int CHUNK = 64;
  static final int MAX_BATCH = 8;
  static final String PREEMPT_REASON = "KV cache full";

  /** One request of the schedule. */
  static final class Req {
    final String id;
    final int arrivalStep;
    final int prompt;
    final int outputTokens;
    InferenceTrace trace;
    int prefilled;
    int generated;
    boolean done;
    boolean firstTokenMarked;

    Req(String id, int arrivalStep, int prompt, int outputTokens) {
      this.id = id;
      this.arrivalStep = arrivalStep;
      this.prompt = prompt;
      this.outputTokens = outputTokens;
    }
  }

  final Path records;
  final Path launches;
  /** The victim's tally: decode steps, and per neighbour the decode steps it prefilled in and its tokens there. */
  int victimLaunches;
  int victimDecodeSteps;
  int victimDecodeStepsWithPrefill;
  final Map<String, int[]> victimNeighbours = new TreeMap<>();
  double victimSlotWaitMs;
  double victimPreemptedMs;
  double victimMixedStepMsSum;
  double victimDecodeOnlyStepMsSum;
  int launchCount;

  static final Instant START = Instant.parse("2026-12-01T10:00:00Z");
  private static final long START_NANOS = 5_000_000_000L;
  private final AtomicLong nanos = new AtomicLong(START_NANOS);
  /** The wall clock follows the hand-driven monotonic one, so that timestamps move with the schedule. */
  private final Clock wall = new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return START.plusNanos(nanos.get() - START_NANOS);
    }
  };

  /** Writes both logs into {@code dir}; {@code rotateBytes} > 0 rotates both files (gzipped) at that size. */
  BatchedLog(Path dir, long rotateBytes) throws IOException {
    records = dir.resolve("inference.log");
    launches = dir.resolve("launches.log");
    // TracerFactory (trace-core's internal builder behind InferenceTracer.Builder) takes test clocks
    TracerFactory b = new TracerFactory()
        .clocks(wall, nanos::get)
        .shutdownHook(false);
    if (rotateBytes > 0) {
      b.sink(JsonLinesFileSink.builder(records).maxFileBytes(rotateBytes).maxRotatedFiles(20).gzipRotated(true).build())
          .launchLog(JsonLinesFileSink.builder(launches).maxFileBytes(rotateBytes).maxRotatedFiles(50).gzipRotated(true).build());
    } else {
      b.jsonLinesFile(records).launchLog(launches);
    }
    try (InferenceTracer tracer = b.build()) {
      run(tracer, schedule());
      tracer.flush().join();
    }
  }

  static List<Req> schedule() {
    List<Req> l = new ArrayList<>();
    for (int i = 0; i < MAX_BATCH; i++) {
      l.add(new Req("req-fast-" + i, 0, 64, 40));
    }
    l.add(new Req(VICTIM, 2, 128, 65));
    for (int i = 0; i < 3; i++) {
      l.add(new Req("req-bg-" + i, 30, 32, 48));
    }
    l.add(new Req(LONG_1, 52, 2048, 8));
    l.add(new Req(LONG_2, 100, 1024, 8));
    return l;
  }

  private void run(InferenceTracer tracer, List<Req> all) {
    Deque<Req> waiting = new ArrayDeque<>();
    List<Req> running = new ArrayList<>();
    Map<Req, Integer> preemptedUntil = new LinkedHashMap<>();
    Req victim = all.stream().filter(r -> r.id.equals(VICTIM)).findFirst().orElseThrow();
    int victimDecodes = 0;
    for (int step = 0; all.stream().anyMatch(r -> !r.done); step++) {
      for (Req r : all) {
        if (r.arrivalStep == step) {
          r.trace = tracer.start("tiny-llm", r.id);
          r.trace.inputTokens(r.prompt);
          r.trace.waitingForSlot();
          waiting.add(r);
        }
      }
      for (var it = preemptedUntil.entrySet().iterator(); it.hasNext(); ) {
        var e = it.next();
        if (e.getValue() <= step) {
          waiting.addFirst(e.getKey());
          it.remove();
        }
      }
      while (running.size() < MAX_BATCH && !waiting.isEmpty()) {
        running.add(waiting.poll());
      }
      if (running.isEmpty()) {
        advance(STEP_MS);
        continue;
      }
      boolean victimWaits = victim.trace != null && !victim.done && !running.contains(victim);
      int prefillTokens = 0;
      Map<Req, Integer> chunks = new LinkedHashMap<>();
      for (Req r : running) {
        if (r.prefilled < r.prompt) {
          int c = Math.min(CHUNK, r.prompt - r.prefilled);
          chunks.put(r, c);
          prefillTokens += c;
        }
      }
      double stepMs = STEP_MS + MS_PER_PREFILL_TOKEN * prefillTokens;
      try (SharedLaunch l = tracer.launch("sha256:tiny-llm-e1")) {
        for (Req r : running) {
          Integer c = chunks.get(r);
          if (c != null) {
            l.prefill(r.trace, c);
          } else {
            l.decode(r.trace);
          }
        }
        if (!chunks.isEmpty() && chunks.size() < running.size()) {
          l.passes(2); // as an engine runs a mixed step: the decode rows in one enqueue, the prefill chunk in another
        }
        l.gpuMs(stepMs * 0.9);
        advance(stepMs);
      }
      launchCount++;
      if (running.contains(victim)) {
        victimLaunches++;
      }
      if (victimWaits) {
        if (victim.prefilled == 0 && preemptedUntil.isEmpty()) {
          victimSlotWaitMs += stepMs;
        } else {
          victimPreemptedMs += stepMs;
        }
      }
      if (running.contains(victim) && !chunks.containsKey(victim)) {
        victimDecodeSteps++;
        victimDecodes++;
        boolean mixed = false;
        for (Map.Entry<Req, Integer> e : chunks.entrySet()) {
          int[] n = victimNeighbours.computeIfAbsent(e.getKey().id, k -> new int[2]);
          n[0]++;
          n[1] += e.getValue();
          mixed = true;
        }
        if (mixed) {
          victimDecodeStepsWithPrefill++;
          victimMixedStepMsSum += stepMs;
        } else {
          victimDecodeOnlyStepMsSum += stepMs;
        }
      }
      for (var it = running.iterator(); it.hasNext(); ) {
        Req r = it.next();
        Integer c = chunks.get(r);
        if (c != null) {
          r.prefilled += c;
          if (r.prefilled == r.prompt) {
            r.trace.token(); // the prefill's last chunk yields the first token
            r.generated++;
          }
        } else {
          r.trace.token();
          r.generated++;
        }
        if (r.generated >= r.outputTokens) {
          r.trace.close();
          r.done = true;
          it.remove();
        }
      }
      if (victimDecodes == 30 && running.contains(victim)) {
        running.remove(victim);
        victim.trace.preempted(PREEMPT_REASON);
        preemptedUntil.put(victim, step + 4);
        victimDecodes++; // preempt once
      }
    }
  }

  private void advance(double ms) {
    nanos.addAndGet((long) (ms * 1_000_000));
  }
}
