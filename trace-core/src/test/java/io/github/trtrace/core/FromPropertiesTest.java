package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.sink.RecordSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FromPropertiesTest {

  @Test
  void settingsAreReadByPropertyNameWithTheEnvironmentsValidation(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("inference.log");
    Map<String, String> props = Map.of("trtrace.log.path", log.toString(), "trtrace.queue.policy", "drop");
    try (InferenceTracer tracer = InferenceTracer.builder().fromProperties(props::get).build()) {
      tracer.run("m", t -> { });
      tracer.flush().get();
    }
    assertThat(Files.readAllLines(log)).hasSize(1);
    assertThatThrownBy(() -> InferenceTracer.builder().fromProperties(Map.of("trtrace.sample.rate", "2")::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("TRTRACE_SAMPLE_RATE (trtrace.sample.rate)=2: must be between 0 and 1");
  }

  @Test
  void theBatchSizeBoundsWhatOneSinkWriteGetsFromCodeAndFromTheEnvironment() throws Exception {
    for (InferenceTracer.Builder builder : List.of(InferenceTracer.builder().batchSize(3),
        InferenceTracer.builder().fromProperties(Map.of("trtrace.batch.size", " 3 ")::get))) {
      List<Integer> writes = new CopyOnWriteArrayList<>();
      try (InferenceTracer tracer = builder.sink(RecordSink.named("sizes", batch -> writes.add(batch.size())))
          .maxWriteDelay(Duration.ofSeconds(10)).build()) {
        for (int i = 0; i < 10; i++) {
          tracer.run("m", t -> { });
        }
        tracer.flush().get();
      }
      assertThat(writes).allSatisfy(n -> assertThat(n).isBetween(1, 3));
      assertThat(writes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(10);
    }
  }

  @Test
  void aBadBatchSizeSaysWhichSettingAndWhyBeforeAnythingIsApplied() {
    assertThatThrownBy(() -> InferenceTracer.builder().fromProperties(Map.of("trtrace.batch.size", "lots")::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("TRTRACE_BATCH_SIZE (trtrace.batch.size)=lots: must be an integer");
    assertThatThrownBy(() -> InferenceTracer.builder().fromProperties(Map.of("trtrace.batch.size", "0")::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("TRTRACE_BATCH_SIZE (trtrace.batch.size)=0: must be between 1 and 1048576");
    assertThatThrownBy(() -> InferenceTracer.builder().batchSize(1 << 21))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batchSize must be between 1 and 1048576");
  }

  @Test
  void theShutdownDrainIsAWholeNumberOfMillisecondsUpToAnHour() {
    InferenceTracer.builder().fromProperties(Map.of("trtrace.shutdown.drain.ms", "0")::get);
    InferenceTracer.builder().fromProperties(Map.of("trtrace.shutdown.drain.ms", "3600000")::get);
    assertThatThrownBy(() -> InferenceTracer.builder().fromProperties(Map.of("trtrace.shutdown.drain.ms", "2.5")::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("TRTRACE_SHUTDOWN_DRAIN_MS (trtrace.shutdown.drain.ms)=2.5: must be a whole number of milliseconds");
    assertThatThrownBy(() -> InferenceTracer.builder().fromProperties(Map.of("trtrace.shutdown.drain.ms", "-1")::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("TRTRACE_SHUTDOWN_DRAIN_MS (trtrace.shutdown.drain.ms)=-1: must be between 0 and 3600000 (1 h)");
    assertThatThrownBy(() -> InferenceTracer.builder().shutdownDrain(java.time.Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anInvalidSettingLeavesNoOtherSettingApplied() throws Exception {
    InferenceTracer.Builder builder = InferenceTracer.builder();
    assertThatThrownBy(() -> builder.fromProperties(Map.of("trtrace.sample.rate", "0", "trtrace.queue.size", "0")::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TRTRACE_QUEUE_SIZE");
    List<Object> written = new CopyOnWriteArrayList<>();
    try (InferenceTracer tracer = builder.sink(RecordSink.named("mem", written::addAll)).shutdownHook(false).build()) {
      tracer.run("m", t -> { });
      tracer.flush().get();
      assertThat(tracer.stats().sampledOut()).as("sample rate 0 of the rejected settings applied").isZero();
    }
    assertThat(written).hasSize(1);
  }

  @Test
  void anAbsurdlyLongSlowThresholdIsRejectedByItsSetterOrWorks() {
    io.github.trtrace.core.sampling.Sampler.Builder sampler =
        io.github.trtrace.core.sampling.Sampler.builder().slowThreshold(Duration.ofDays(365L * 300));
    assertThat(sampler.build().decide("m", Status.SUCCESS, 1e9)).isEqualTo("sampled");
  }
}
