package io.github.trtrace.core;

import io.github.trtrace.core.internal.trace.TracerFactory;
import io.github.trtrace.core.internal.trace.TracerSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.internal.dispatch.Dispatcher;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.sink.CapturingSink;
import io.github.trtrace.core.sink.RecordSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The builder validates everything before it opens anything, and one file is one sink. */
class TracerBuilderTest {

  private static TracerFactory withEnvLogPath(String value) {
    return new TracerFactory()
        .fromEnvironment((p, e) -> e.equals(TracerSettings.ENV_LOG_PATH) ? value : null);
  }

  private static long linesIn(Path file) throws IOException {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    }
  }

  /** File descriptors of this JVM open on {@code file} (Linux /proc). */
  private static long openDescriptors(Path file) throws IOException {
    Path real = file.toAbsolutePath().normalize();
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.filter(fd -> {
        try {
          return Files.readSymbolicLink(fd).equals(real);
        } catch (IOException | UnsupportedOperationException e) {
          return false; // the descriptor of the listing itself is gone already
        }
      }).count();
    }
  }

  private static long dispatcherThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith(Dispatcher.THREAD_NAME))
        .count();
  }

  private static void traceOne(InferenceTracer tracer) {
    tracer.run("m", t -> t.outputTokens(1));
  }

  @Test
  void theEnvironmentsLogPathAndJsonLinesFileNamingTheSameFileAreOneSink(@TempDir Path dir) throws IOException {
    Path log = dir.resolve("logs").resolve("inference.log");
    try (InferenceTracer tracer = withEnvLogPath(log.toString()).jsonLinesFile(log).build()) {
      traceOne(tracer);
    }
    assertThat(linesIn(log)).isEqualTo(1);
  }

  @Test
  void anotherSpellingOfTheSameFileIsStillOneSink(@TempDir Path dir) throws IOException {
    Path logs = Files.createDirectories(dir.resolve("logs"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), logs);
    Path log = logs.resolve("inference.log");
    String dotted = dir.resolve("logs").resolve("..").resolve("logs").resolve(".").resolve("inference.log").toString();
    try (InferenceTracer tracer = withEnvLogPath(dotted)
        .jsonLinesFile(link.resolve("inference.log"))
        .jsonLinesFile(log)
        .build()) {
      traceOne(tracer);
    }
    assertThat(linesIn(log)).isEqualTo(1);
  }

  @Test
  void twoDifferentFilesAreTwoSinks(@TempDir Path dir) throws IOException {
    Path a = dir.resolve("a.log");
    Path b = dir.resolve("b.log");
    try (InferenceTracer tracer = withEnvLogPath(a.toString()).jsonLinesFile(b).build()) {
      traceOne(tracer);
    }
    assertThat(linesIn(a)).isEqualTo(1);
    assertThat(linesIn(b)).isEqualTo(1);
  }

  @Test
  void jsonLinesFileOpensNothingUntilBuild(@TempDir Path dir) {
    Path log = dir.resolve("sub").resolve("inference.log");
    TracerFactory b = new TracerFactory().jsonLinesFile(log);
    assertThat(log.getParent()).doesNotExist();
    try (InferenceTracer tracer = b.build()) {
      assertThat(log).exists();
    }
  }

  @Test
  void aCustomDispatcherWithSinksIsRejectedNamingWhatWouldBeIgnored(@TempDir Path dir) {
    CapturingSink own = CapturingSink.create();
    Dispatcher custom = Dispatcher.builder().sink(own).build();
    try {
      assertThatThrownBy(() -> new TracerFactory().dispatcher(custom).sink(RecordSink.named("extra", b -> {})).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("dispatcher(...)")
          .hasMessageContaining("sink(extra)");
      Path log = dir.resolve("x.log");
      assertThatThrownBy(() -> withEnvLogPath(log.toString()).dispatcher(custom).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(TracerSettings.ENV_LOG_PATH);
      assertThat(log).doesNotExist();
    } finally {
      custom.close();
    }
  }

  @Test
  void aBadGpuIntervalFailsInTheBuilderBeforeAnyFileOrThreadExists(@TempDir Path dir) throws IOException {
    Path log = dir.resolve("inference.log");
    long threadsBefore = dispatcherThreads();
    TracerFactory b = new TracerFactory().jsonLinesFile(log);
    assertThatThrownBy(() -> b.gpuMetrics(() -> GpuMetricsSource.Reading.UNKNOWN, Duration.ofMillis(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 10 ms");
    assertThat(log).doesNotExist();
    assertThat(dispatcherThreads()).isEqualTo(threadsBefore);
  }

  @Test
  void duplicateSinkNamesFailBeforeAnyFileIsOpened(@TempDir Path dir) {
    Path log = dir.resolve("inference.log");
    TracerFactory b = new TracerFactory()
        .jsonLinesFile(log)
        .sink(RecordSink.named("same", x -> {}))
        .sink(RecordSink.named("same", x -> {}));
    assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate sink name");
    assertThat(log).doesNotExist();
  }

  @Test
  void whenALaterFileCannotBeOpenedTheEarlierOneIsClosedAndNoThreadStarts(@TempDir Path dir) throws IOException {
    Path good = dir.resolve("good.log");
    Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
    Path bad = notADirectory.resolve("bad.log");
    long threadsBefore = dispatcherThreads();
    TracerFactory b = new TracerFactory().jsonLinesFile(good).jsonLinesFile(bad);
    assertThatThrownBy(b::build)
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("jsonLinesFile(" + bad + ")");
    assertThat(good).exists();
    assertThat(openDescriptors(good)).as("the file opened first was closed again").isZero();
    assertThat(dispatcherThreads()).isEqualTo(threadsBefore);
  }

  @Test
  void aSinkNameClashWithALogFileClosesTheOpenedFile(@TempDir Path dir) throws IOException {
    Path log = dir.resolve("inference.log");
    TracerFactory b =
        new TracerFactory().sink(RecordSink.named("jsonl:" + log, x -> {})).jsonLinesFile(log);
    assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate");
    assertThat(openDescriptors(log)).isZero();
  }

  @Test
  void aBuilderBuildsOneTracer() {
    TracerFactory b = new TracerFactory().sink(CapturingSink.create());
    try (InferenceTracer first = b.build()) {
      assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("already");
    }
  }

  @Test
  void theOpenFileCheckSeesAnOpenTracersFile(@TempDir Path dir) throws IOException {
    Path log = dir.resolve("inference.log");
    try (InferenceTracer tracer = new TracerFactory().jsonLinesFile(log).build()) {
      assertThat(openDescriptors(log)).as("the check used above works").isEqualTo(1);
    }
    assertThat(openDescriptors(log)).isZero();
  }
}
