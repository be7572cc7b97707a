package io.github.trtrace.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Stage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Issue 17's conservation: over random batches and random join/leave patterns (requests arriving,
 * waiting for a slot, prefilled whole or in chunks, decoding, preempted, failing, ending at any step),
 * every launch's member shares add up to its measured GPU time, every request's {@code gpu_ms} is the
 * sum of its shares ({@code weighted} ones in proportion to the weights given), and its stage sums, slot wait and preemption time stay within {@code latency_ms}.
 */
class ConservationPropertiesTest {
  private static final Stage[] STAGES = Stage.values();

  @Property(tries = 60)
  void sharesAddUpToEachLaunchsGpuTimeAndStagesStayWithinLatency(
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed,
      @ForAll @IntRange(min = 1, max = 60) int steps,
      @ForAll @IntRange(min = 1, max = 48) int maxBatch) {
    Random rnd = new Random(seed);
    Map<String, Double> expectedGpu = new HashMap<>();
    Map<String, Integer> expectedLaunches = new HashMap<>();
    try (BatchFixture f = new BatchFixture(null, rnd.nextBoolean())) {
      List<InferenceTrace> running = new ArrayList<>();
      int next = 0;
      for (int step = 0; step < steps; step++) {
        int arrivals = rnd.nextInt(4);
        for (int i = 0; i < arrivals; i++) {
          InferenceTrace t = f.tracer.start("m", "req-" + next++);
          if (rnd.nextBoolean()) {
            t.runStage(STAGES[rnd.nextInt(STAGES.length)], () -> f.advanceMs(rnd.nextInt(3)));
          }
          t.waitingForSlot();
          running.add(t);
        }
        f.advanceMs(rnd.nextDouble() * 2);
        SharedLaunch l = f.tracer.launch("fp");
        List<InferenceTrace> members = new ArrayList<>();
        for (InferenceTrace t : running) {
          if (members.size() >= maxBatch || rnd.nextInt(5) == 0) {
            continue; // not scheduled this step
          }
          switch (rnd.nextInt(4)) {
            case 0 -> l.prefill(t, rnd.nextInt(4097));
            case 1 -> l.prefill(t, rnd.nextInt(512)).decode(t); // last chunk and its first token
            case 2 -> l.rows(t, rnd.nextInt(8));
            default -> l.decode(t);
          }
          members.add(t);
        }
        if (rnd.nextInt(8) > 0) {
          l.gpuMs(rnd.nextInt(10) == 0 ? 0 : rnd.nextDouble() * 40);
        }
        SharedLaunch.ShareMethod method = SharedLaunch.ShareMethod.values()[rnd.nextInt(4)];
        l.shareBy(method);
        double[] weights = new double[members.size()];
        if (method == SharedLaunch.ShareMethod.WEIGHTED && rnd.nextInt(10) > 0) { // else: none given, equal shares
          for (int i = 0; i < weights.length; i++) {
            weights[i] = rnd.nextInt(5) == 0 ? 0 : rnd.nextDouble() * Math.pow(10, rnd.nextInt(12) - 3);
            l.weight(members.get(i), weights[i]);
          }
        }
        if (rnd.nextInt(30) == 0) {
          l.error("tensorrt.enqueue_failed");
        }
        f.advanceMs(rnd.nextDouble() * 20);
        l.close();
        BatchFixture.Launch closed = f.launches.get(f.launches.size() - 1);
        double weightSum = java.util.Arrays.stream(weights).sum();
        if (method == SharedLaunch.ShareMethod.WEIGHTED && weightSum > 0 && !Double.isNaN(closed.gpuMs())) {
          for (int i = 0; i < closed.batchSize(); i++) { // members are in the order they joined
            assertThat(closed.shares().get(i)).as("weighted share %d of launch %d", i, closed.id())
                .isCloseTo(closed.gpuMs() * weights[i] / weightSum,
                    org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, closed.gpuMs())));
          }
        }
        for (int i = 0; i < closed.batchSize(); i++) {
          expectedLaunches.merge(closed.members().get(i), 1, Integer::sum);
          if (!Double.isNaN(closed.gpuMs())) {
            expectedGpu.merge(closed.members().get(i), closed.shares().get(i), Double::sum);
          }
        }
        for (InferenceTrace t : new ArrayList<>(running)) {
          int r = rnd.nextInt(10);
          if (r == 0) {
            t.close();
            running.remove(t);
          } else if (r == 1 && !members.contains(t)) {
            t.preempted("kv_cache_full");
          }
        }
      }
      running.forEach(InferenceTrace::close);

      for (BatchFixture.Launch l : f.launches) {
        if (!Double.isNaN(l.gpuMs()) && l.batchSize() > 0) {
          assertThat(l.shareSum()).as("launch %d shares", l.id()).isCloseTo(l.gpuMs(), org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, l.gpuMs())));
          assertThat(l.shares()).allMatch(s -> s >= 0);
        }
      }
      Map<String, InferenceRecord> records = f.byId();
      assertThat(records).hasSize(next);
      for (InferenceRecord r : records.values()) {
        double stages = 0;
        for (Stage s : STAGES) {
          double ms = r.stageMs(s);
          stages += Double.isNaN(ms) ? 0 : ms;
        }
        assertThat(stages).as("stage sum of %s", r.requestId()).isLessThanOrEqualTo(r.latencyMs() + 1e-9);
        SharedLaunch.Summary b = r.batching();
        int launches = expectedLaunches.getOrDefault(r.requestId(), 0);
        if (b == null) {
          assertThat(launches).isZero();
          continue;
        }
        assertThat(b.launchCount()).isEqualTo(launches);
        assertThat(b.slotWaitMs() + b.preemptedMs()).isLessThanOrEqualTo(r.latencyMs() + 1e-9);
        Double gpu = expectedGpu.get(r.requestId());
        if (gpu == null) {
          assertThat(r.gpuMs()).isNaN();
        } else {
          assertThat(r.gpuMs()).isCloseTo(gpu, org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, gpu)));
        }
      }
    }
  }
}
