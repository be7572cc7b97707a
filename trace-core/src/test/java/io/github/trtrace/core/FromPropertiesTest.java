package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
}
