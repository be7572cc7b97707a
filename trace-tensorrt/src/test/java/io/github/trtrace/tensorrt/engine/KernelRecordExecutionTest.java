package io.github.trtrace.tensorrt.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.tensorrt.internal.cupti.ActivityRow;
import io.github.trtrace.tensorrt.internal.cupti.Calls;
import io.github.trtrace.tensorrt.internal.cupti.KernelJoiner;
import io.github.trtrace.tensorrt.internal.cupti.LaunchRecorder;
import io.github.trtrace.tensorrt.internal.cupti.RecorderStats;
import io.github.trtrace.testing.InMemorySink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kernel records through the execution path, with a recorder standing in for CUPTI: which launches are
 * recorded, that the correlation brackets exactly the enqueue on the launching thread, and that the rows a
 * recorder joins end up on a kernels line of the launch log joined to the launch line by its id.
 */
class KernelRecordExecutionTest {
  static final ObjectMapper MAPPER = new ObjectMapper();
  @TempDir Path dir;
  private InferenceTracer tracer;
  private final List<String> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    if (tracer != null) {
      tracer.close();
    }
  }

  private InferenceTracer tracer() {
    tracer = new TracerFactory().sink(InMemorySink.create()).launchLog(dir.resolve("launches.jsonl")).build();
    return tracer;
  }

  /** A slot that notes its enqueue among the recorder's calls. */
  final class NotingSlot extends TracedExecutionTest.ScriptedSlot {
    NotingSlot() {
      super("ctx0");
    }

    @Override
    public boolean enqueue(boolean profiled) {
      events.add("enqueue on " + Thread.currentThread().getName());
      return super.enqueue(profiled);
    }
  }

  /**
   * A recorder doing what CuptiRecorder does with what CUPTI would deliver: each completed launch made one call
   * that ran two kernels (one mangled) and a copy, then the recorder's marker, joined by the real {@link
   * KernelJoiner}.
   */
  final class FakeRecorder implements LaunchRecorder {
    final KernelJoiner joiner = new KernelJoiner(16, 64, 0, Calls.CALLS, a -> a == 1 ? "_Z6kernelPf" : "gelu_kernel",
        s -> "kernel(float*)");
    int correlation;

    @Override
    public boolean begin(long launchId) {
      events.add("begin " + launchId + " on " + Thread.currentThread().getName());
      return true;
    }

    @Override
    public void end(long launchId) {
      events.add("end " + launchId + " on " + Thread.currentThread().getName());
    }

    @Override
    public synchronized void completed(long launchId, SharedLaunch.ActivityLog log) {
      events.add("completed " + launchId);
      long t = 1_000_000L * (launchId % 1000);
      int c = ++correlation;
      int m = ++correlation;
      joiner.rows(List.of(ActivityRow.external(c, launchId), Calls.runtime(c, Calls.LAUNCH_KERNEL, 10, 20),
          ActivityRow.external(m, launchId), Calls.marker(m, 30), ActivityRow.memcpy(c, t, t + 1_000, 8, 256),
          ActivityRow.kernel(c, t + 2_000, t + 12_000, 1, 4, 1, 1, 128, 1, 1),
          ActivityRow.kernel(c, t + 13_000, t + 43_000, 2, 8, 1, 1, 256, 1, 1)), 0);
      joiner.completed(launchId, log, 0);
    }

    @Override
    public synchronized CompletableFuture<Void> flush() {
      joiner.round(0, true);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public RecorderStats stats() {
      return joiner.stats(0, 0, 0);
    }
  }

  @Test
  void offByDefaultTheRecorderIsNeverStartedAndNothingIsCorrelated() throws Exception {
    InferenceTracer tr = tracer();
    AtomicInteger started = new AtomicInteger();
    TracedExecution<String> exec = new TracedExecution<>(List.of(new NotingSlot()), ProfilingPolicy.never(), null,
        Duration.ofSeconds(1), 64, null, KernelRecordPolicy.off(), () -> {
          started.incrementAndGet();
          return new FakeRecorder();
        });
    InferenceTrace a = tr.start("m", "req-a");
    for (int i = 0; i < 3; i++) {
      try (SharedLaunch l = tr.launch(null)) {
        l.decode(a);
        exec.launch(l, ctx -> {});
      }
    }
    a.close();
    assertThat(started).hasValue(0);
    assertThat(events).allMatch(e -> e.startsWith("enqueue"));
    assertThat(exec.flushKernelRecords()).isCompleted();
  }

  @Test
  void aRecordedLaunchIsCorrelatedAroundItsEnqueueOnTheLaunchingThreadAndItsKernelsJoinItsLaunchLine()
      throws Exception {
    InferenceTracer tr = tracer();
    FakeRecorder rec = new FakeRecorder();
    AtomicInteger started = new AtomicInteger();
    TracedExecution<String> exec = new TracedExecution<>(List.of(new NotingSlot()), ProfilingPolicy.never(), "fp",
        Duration.ofSeconds(1), 64, null, KernelRecordPolicy.builder().sampleRate(1.0).build(), () -> {
          started.incrementAndGet();
          return rec;
        });
    InferenceTrace a = tr.start("m", "req-a");
    InferenceTrace b = tr.start("m", "req-b");
    long id;
    try (SharedLaunch l = tr.launch("fp")) {
      l.decode(a).decode(b);
      id = l.id();
      assertThat(exec.launch(l, ctx -> {})).isTrue();
    }
    a.close();
    b.close();
    String me = Thread.currentThread().getName();
    assertThat(events).containsExactly("begin " + id + " on " + me, "enqueue on " + me, "end " + id + " on " + me,
        "completed " + id);
    exec.flushKernelRecords().join();
    tr.flush().join();
    List<JsonNode> lines = new ArrayList<>();
    for (String s : Files.readAllLines(dir.resolve("launches.jsonl"))) {
      lines.add(MAPPER.readTree(s));
    }
    assertThat(lines).hasSize(2);
    JsonNode launch = lines.get(0);
    JsonNode kernels = lines.get(1);
    assertThat(kernels.get("launch_id").asLong()).isEqualTo(launch.get("launch_id").asLong()).isEqualTo(id);
    assertThat(kernels.get("kernel_count").asInt()).isEqualTo(2);
    assertThat(kernels.get("kernels").get(1).get("name").asText()).isEqualTo("kernel(float*)");
    assertThat(kernels.get("kernels").get(2).get("name").asText()).isEqualTo("gelu_kernel");
    assertThat(kernels.get("kernels").get(0).get("name").asText()).isEqualTo("DtoD");
    assertThat(kernels.get("kernel_ms").asDouble()).isEqualTo(0.040);
    assertThat(kernels.get("complete").asBoolean()).isTrue();
    assertThat(started).hasValue(1);
  }

  @Test
  void oneRequestIdRecordsExactlyTheLaunchesThatCarryIt() throws Exception {
    InferenceTracer tr = tracer();
    FakeRecorder rec = new FakeRecorder();
    TracedExecution<String> exec = new TracedExecution<>(List.of(new NotingSlot()), ProfilingPolicy.never(), null,
        Duration.ofSeconds(1), 64, null, KernelRecordPolicy.builder().requestId("req-b").build(), () -> rec);
    InferenceTrace a = tr.start("m", "req-a");
    InferenceTrace b = tr.start("m", "req-b");
    List<Long> withB = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      try (SharedLaunch l = tr.launch(null)) {
        l.decode(a);
        if (i % 2 == 1) {
          l.decode(b);
          withB.add(l.id());
        }
        exec.launch(l, ctx -> {});
      }
    }
    a.close();
    b.close();
    assertThat(events).filteredOn(e -> e.startsWith("completed"))
        .containsExactlyElementsOf(withB.stream().map(id -> "completed " + id).toList());
  }

  @Test
  void aRecorderThatCannotCorrelateLeavesTheLaunchUnrecordedAndTheLaunchSucceeds() throws Exception {
    InferenceTracer tr = tracer();
    TracedExecution<String> exec = new TracedExecution<>(List.of(new NotingSlot()), ProfilingPolicy.never(), null,
        Duration.ofSeconds(1), 64, null, KernelRecordPolicy.builder().sampleRate(1).build(), () -> LaunchRecorder.OFF);
    InferenceTrace a = tr.start("m", "req-a");
    try (SharedLaunch l = tr.launch(null)) {
      l.decode(a);
      assertThat(exec.launch(l, ctx -> {})).isTrue();
    }
    a.close();
    tr.flush().join();
    assertThat(Files.readAllLines(dir.resolve("launches.jsonl"))).singleElement()
        .satisfies(s -> assertThat(s).doesNotContain("\"kernels\""));
  }

  @Test
  void thePolicyComesFromSystemPropertiesAndRejectsBadValuesByName() {
    assertThat(KernelRecordPolicy.fromProperties(null, null).enabled()).isFalse();
    assertThat(KernelRecordPolicy.fromProperties("0.25", null).enabled()).isTrue();
    KernelRecordPolicy byId = KernelRecordPolicy.fromProperties(null, " req-7 ");
    assertThat(byId.requestId()).isEqualTo("req-7");
    assertThatThrownBy(() -> KernelRecordPolicy.fromProperties("2", null))
        .hasMessageContaining(KernelRecordPolicy.SAMPLE_PROPERTY);
    assertThatThrownBy(() -> KernelRecordPolicy.fromProperties("lots", null))
        .hasMessageContaining(KernelRecordPolicy.SAMPLE_PROPERTY);
  }

  @Test
  void aSampledShareOfLaunchesIsRecorded() throws Exception {
    InferenceTracer tr = tracer();
    double[] draws = {0.05, 0.5, 0.09, 0.95};
    AtomicInteger n = new AtomicInteger();
    KernelRecordPolicy p = KernelRecordPolicy.builder().sampleRate(0.1).random(() -> draws[n.getAndIncrement() % 4]).build();
    List<Boolean> picked = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      try (SharedLaunch l = tr.launch(null)) {
        picked.add(p.shouldRecord(l));
      }
    }
    assertThat(picked).containsExactly(true, false, true, false);
    assertThat(KernelRecordPolicy.off().enabled()).isFalse();
  }
}
