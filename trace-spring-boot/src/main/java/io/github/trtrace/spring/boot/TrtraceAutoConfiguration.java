package io.github.trtrace.spring.boot;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.core.sink.Slf4jSink;
import io.github.trtrace.spring.boot.internal.EngineFingerprints;
import io.github.trtrace.spring.boot.internal.TracerLifecycle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The {@link InferenceTracer} from {@code trtrace.*} properties, with every {@link TraceListener} bean of the
 * application (trace-otel's, the Micrometer timers) and every {@link RecordSink} bean as extra sinks, closed
 * after the web server's graceful shutdown has drained ({@link TracerLifecycle}). Backs off when the
 * application defines its own {@code InferenceTracer}.
 *
 * <pre>{@code
 * @RestController
 * class Completions {
 *   Completions(InferenceTracer tracer) { ... }   // injected, configured by trtrace.* properties
 * }
 * }</pre>
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "trtrace.enabled", matchIfMissing = true)
@EnableConfigurationProperties(TrtraceProperties.class)
public final class TrtraceAutoConfiguration {
  private static final Logger log = LoggerFactory.getLogger(TrtraceAutoConfiguration.class);
  private static final String LOG_PATH = "trtrace.log.path";

  /**
   * The tracer. Its JVM shutdown hook is off: Spring's own hook closes the context, and the tracer is closed
   * by {@link TracerLifecycle} once the web server has stopped (with the hook on, SIGTERM would close it
   * while the graceful shutdown still answers requests, and their records would be dropped).
   */
  @Bean
  @ConditionalOnMissingBean
  public InferenceTracer inferenceTracer(
      TrtraceProperties properties, Environment environment, ObjectProvider<TraceListener> listeners, ObjectProvider<RecordSink> sinks,
      ObjectProvider<GpuMetricsSource> gpu) {
    TrtraceProperties.Log file = properties.getLog();
    boolean rotating = file.getMaxFileBytes() != null || file.getMaxRotatedFiles() != null || file.isGzipRotated();
    // The keys fromEnvironment() reads, as written (the typed binding of TrtraceProperties has already failed
    // start-up for a value of the wrong type); a rotating file is opened below, with its options.
    InferenceTracer.Builder b = InferenceTracer.builder()
        .fromProperties(key -> rotating && key.equals(LOG_PATH) ? null : environment.getProperty(key))
        .shutdownHook(false)
        .closeTimeout(properties.getCloseTimeout());
    if (Boolean.TRUE.equals(properties.getInput().getDigest())) {
      log.warn("trtrace: trtrace.input.digest=true: error and slow records carry up to 100 characters of the"
          + " input (after redaction); make sure the log's readers may see prompts");
    }
    listeners.orderedStream().forEach(b::listener);
    sinks.orderedStream().forEach(b::sink);
    gpu.ifAvailable(source -> b.gpuMetrics(source, properties.getGpu().getInterval()));
    if (rotating) {
      if (file.getPath() == null) {
        throw new IllegalArgumentException(
            "trtrace.log.max-file-bytes, max-rotated-files and gzip-rotated need trtrace.log.path");
      }
      b.sink(rotatingFile(file));
    } else if (file.getPath() == null && sinks.orderedStream().findAny().isEmpty()) {
      b.sink(Slf4jSink.builder().build());
    }
    return b.build();
  }

  private static RecordSink rotatingFile(TrtraceProperties.Log file) {
    JsonLinesFileSink.Builder sink = JsonLinesFileSink.builder(Path.of(file.getPath()));
    try {
      if (file.getMaxFileBytes() != null) {
        sink.maxFileBytes(file.getMaxFileBytes());
      }
      if (file.getMaxRotatedFiles() != null) {
        sink.maxRotatedFiles(file.getMaxRotatedFiles());
      }
      sink.gzipRotated(file.isGzipRotated());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("trtrace.log: " + e.getMessage(), e);
    }
    try {
      return sink.build();
    } catch (IOException e) {
      throw new UncheckedIOException("trtrace.log.path=" + file.getPath() + ": cannot open", e);
    }
  }

  /** A listener keeping the engine fingerprint last seen per model (shown by {@code /actuator/trtrace}). */
  @Bean
  EngineFingerprints trtraceEngineFingerprints() {
    return new EngineFingerprints();
  }

  /** Closes the tracer after the web server has stopped (a lower SmartLifecycle phase stops later). */
  @Bean
  TracerLifecycle trtraceTracerLifecycle(InferenceTracer tracer) {
    return new TracerLifecycle(tracer);
  }
}
