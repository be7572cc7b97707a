package io.github.trtrace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.spring.boot.internal.GenAiServerTimers;
import io.github.trtrace.spring.boot.internal.TracerLifecycle;
import io.github.trtrace.testing.InMemorySink;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;

@ExtendWith(OutputCaptureExtension.class)
class AutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(
          TrtraceAutoConfiguration.class, TrtraceMetricsAutoConfiguration.class,
          TrtraceActuatorAutoConfiguration.class, TrtraceServletAutoConfiguration.class));

  @Test
  void theTracerWritesToTheConfiguredFileAndIsClosedWithTheContext(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("logs/inference.log");
    runner.withPropertyValues("trtrace.log.path=" + log).run(ctx -> {
      InferenceTracer tracer = ctx.getBean(InferenceTracer.class);
      tracer.run("m", t -> { });
      tracer.flush().get();
      assertThat(Files.readAllLines(log)).hasSize(1);
      assertThat(ctx.getBean(TracerLifecycle.class).getPhase())
          .isLessThan(SmartLifecycle.DEFAULT_PHASE - 2048); // Boot's web server stop phase
    });
  }

  @Test
  void withoutAPathRecordsGoToSlf4j() {
    runner.run(ctx -> assertThat(ctx.getBean(InferenceTracer.class).stats().sinks())
        .containsOnlyKeys("slf4j:io.github.trtrace.records"));
  }

  @Test
  void aSinkBeanReceivesTheRecordsInsteadOfSlf4j() {
    runner.withBean(InMemorySink.class, InMemorySink::create).run(ctx -> {
      InferenceTracer tracer = ctx.getBean(InferenceTracer.class);
      assertThat(tracer.stats().sinks()).hasSize(1).doesNotContainKey("slf4j:io.github.trtrace.records");
      tracer.run("m", t -> { });
      tracer.flush().get();
      assertThat(ctx.getBean(InMemorySink.class).count()).isEqualTo(1);
    });
  }

  @Test
  void theApplicationsOwnTracerWins() {
    InferenceTracer own = InferenceTracer.builder().sink(InMemorySink.create()).shutdownHook(false).build();
    runner.withBean(InferenceTracer.class, () -> own).run(ctx -> {
      assertThat(ctx.getBean(InferenceTracer.class)).isSameAs(own);
      assertThat(ctx).hasSingleBean(InferenceTracer.class);
    });
    own.close();
  }

  @Test
  void anInvalidValueFailsStartUpNamingTheKey() {
    runner.withPropertyValues("trtrace.sample.rate=2").run(ctx -> assertThat(ctx).hasFailed()
        .getFailure().rootCause()
        .hasMessage("TRTRACE_SAMPLE_RATE (trtrace.sample.rate)=2: must be between 0 and 1"));
    runner.withPropertyValues("trtrace.queue.size=0").run(ctx -> assertThat(ctx).hasFailed()
        .getFailure().rootCause().hasMessageStartingWith("TRTRACE_QUEUE_SIZE (trtrace.queue.size)=0"));
    runner.withPropertyValues("trtrace.queue.policy=sometimes").run(ctx -> assertThat(ctx).hasFailed()
        .getFailure().hasStackTraceContaining("trtrace.queue.policy"));
    runner.withPropertyValues("trtrace.slow.ms=fast").run(ctx -> assertThat(ctx).hasFailed()
        .getFailure().hasStackTraceContaining("trtrace.slow.ms"));
  }

  @Test
  void inputCaptureIsOffByDefaultAndWarnsWhenOn(CapturedOutput output) {
    runner.run(ctx -> assertThat(output.getOut()).doesNotContain("trtrace.input.digest=true"));
    runner.withPropertyValues("trtrace.input.digest=true").run(ctx -> {
      assertThat(ctx).hasNotFailed();
      assertThat(output.getOut()).contains("trtrace: trtrace.input.digest=true");
    });
  }

  @Test
  void disabledMeansNoTracer() {
    runner.withPropertyValues("trtrace.enabled=false").run(ctx -> assertThat(ctx).doesNotHaveBean(InferenceTracer.class));
  }

  @Test
  void withoutOpenTelemetryTheGenAiTimersAreConfigured() {
    runner.run(ctx -> assertThat(ctx).hasSingleBean(GenAiServerTimers.class).doesNotHaveBean(RecordSink.class));
  }
}
