package io.github.trtrace.spring.boot;

import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code trtrace.*} settings of the auto-configured tracer. The keys shared with
 * {@code InferenceTracer.Builder.fromEnvironment()} ({@code trtrace.log.path}, {@code trtrace.sample.rate},
 * {@code trtrace.slow.ms}, {@code trtrace.queue.size}, {@code trtrace.queue.policy},
 * {@code trtrace.input.digest}) are validated by the same code with the same messages, and resolved with
 * Spring's precedence, in which system properties and then environment variables ({@code TRTRACE_LOG_PATH})
 * win over {@code application.properties}, as in {@code fromEnvironment()}.
 *
 * <pre>{@code
 * # application.properties
 * trtrace.log.path=logs/inference.log
 * trtrace.sample.rate=0.1
 * trtrace.slow.ms=2000
 * }</pre>
 */
@ConfigurationProperties(prefix = "trtrace")
public class TrtraceProperties {

  /** Whether the tracer and everything built on it are auto-configured. */
  private boolean enabled = true;

  private final Log log = new Log();
  private final Sample sample = new Sample();
  private final Slow slow = new Slow();
  private final Queue queue = new Queue();
  private final Input input = new Input();
  private final Web web = new Web();
  private final Otel otel = new Otel();
  private final Gpu gpu = new Gpu();

  /**
   * How long closing the tracer may take to write what is still queued, after the web server's graceful
   * shutdown has drained.
   */
  private Duration closeTimeout = Duration.ofSeconds(5);

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Log getLog() {
    return log;
  }

  public Sample getSample() {
    return sample;
  }

  public Slow getSlow() {
    return slow;
  }

  public Queue getQueue() {
    return queue;
  }

  public Input getInput() {
    return input;
  }

  public Web getWeb() {
    return web;
  }

  public Otel getOtel() {
    return otel;
  }

  public Gpu getGpu() {
    return gpu;
  }

  public Duration getCloseTimeout() {
    return closeTimeout;
  }

  public void setCloseTimeout(Duration closeTimeout) {
    this.closeTimeout = closeTimeout;
  }

  /** Where records are written. */
  public static class Log {
    /**
     * JSON Lines file the records are appended to (directories created). Unset: records go to the SLF4J
     * logger {@code io.github.trtrace.records}.
     */
    private @Nullable String path;

    /** Rotate the file when it reaches this many bytes; unset: never rotate. */
    private @Nullable Long maxFileBytes;

    /** How many rotated files to keep (with {@code max-file-bytes}). */
    private @Nullable Integer maxRotatedFiles;

    /** Whether rotated files are gzipped (with {@code max-file-bytes}). */
    private boolean gzipRotated;

    public @Nullable String getPath() {
      return path;
    }

    public void setPath(@Nullable String path) {
      this.path = path;
    }

    public @Nullable Long getMaxFileBytes() {
      return maxFileBytes;
    }

    public void setMaxFileBytes(@Nullable Long maxFileBytes) {
      this.maxFileBytes = maxFileBytes;
    }

    public @Nullable Integer getMaxRotatedFiles() {
      return maxRotatedFiles;
    }

    public void setMaxRotatedFiles(@Nullable Integer maxRotatedFiles) {
      this.maxRotatedFiles = maxRotatedFiles;
    }

    public boolean isGzipRotated() {
      return gzipRotated;
    }

    public void setGzipRotated(boolean gzipRotated) {
      this.gzipRotated = gzipRotated;
    }
  }

  /** Head sampling. */
  public static class Sample {
    /**
     * Fraction of successful, fast requests whose record is kept (0..1); errors and slow requests are
     * always kept. Unset: every record is kept.
     */
    private @Nullable Double rate;

    public @Nullable Double getRate() {
      return rate;
    }

    public void setRate(@Nullable Double rate) {
      this.rate = rate;
    }
  }

  /** What counts as slow (always kept). */
  public static class Slow {
    /** Fixed slow threshold in milliseconds; unset: the model's own p99 over a sliding window. */
    private @Nullable Double ms;

    public @Nullable Double getMs() {
      return ms;
    }

    public void setMs(@Nullable Double ms) {
      this.ms = ms;
    }
  }

  /** The bounded queue between request threads and sinks. */
  public static class Queue {
    /** Queue capacity in records; unset: the SDK's default. */
    private @Nullable Integer size;

    /**
     * What a request thread does when the queue is full: {@code block} (wait up to the block timeout, then
     * drop and count) or {@code drop} (drop and count at once). Unset: the SDK's default.
     */
    private @Nullable QueueFullPolicy policy;

    public @Nullable Integer getSize() {
      return size;
    }

    public void setSize(@Nullable Integer size) {
      this.size = size;
    }

    public @Nullable QueueFullPolicy getPolicy() {
      return policy;
    }

    public void setPolicy(@Nullable QueueFullPolicy policy) {
      this.policy = policy;
    }
  }

  /** Recording of request input. */
  public static class Input {
    /**
     * Whether error and slow records carry {@code input_digest} (at most 100 characters of the prompt, after
     * redaction). Off by default; a WARN line at start-up says when it is on.
     */
    private @Nullable Boolean digest;

    public @Nullable Boolean getDigest() {
      return digest;
    }

    public void setDigest(@Nullable Boolean digest) {
      this.digest = digest;
    }
  }

  /** The HTTP filters (servlet and WebFlux). */
  public static class Web {
    /** Whether the filter accepting or generating and echoing {@code X-Request-ID} is registered. */
    private boolean enabled = true;

    /**
     * Order of the servlet filter and WebFlux filter. The default runs right after Spring's HTTP observation
     * filter and before Spring Security's, so that a rejected request or a 404 still carries and echoes its
     * ID and the trace's span is a child of the HTTP server span.
     */
    private int filterOrder = DEFAULT_FILTER_ORDER;

    /**
     * Whether every HTTP request leaves a record of its own (latency, {@code http_status}, 5xx as errors), for
     * an application that does not trace its requests itself (one that does would get two records a request).
     */
    private boolean recordRequests;

    /** The {@code model_name} of the records of {@code record-requests}. */
    private String modelName = "http";

    public boolean isRecordRequests() {
      return recordRequests;
    }

    public void setRecordRequests(boolean recordRequests) {
      this.recordRequests = recordRequests;
    }

    public String getModelName() {
      return modelName;
    }

    public void setModelName(String modelName) {
      this.modelName = modelName;
    }

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public int getFilterOrder() {
      return filterOrder;
    }

    public void setFilterOrder(int filterOrder) {
      this.filterOrder = filterOrder;
    }
  }

  /** Default {@code trtrace.web.filter-order}: Spring's observation filter is at HIGHEST_PRECEDENCE + 1. */
  public static final int DEFAULT_FILTER_ORDER = Integer.MIN_VALUE + 2;

  /** OpenTelemetry, when the application has an {@code OpenTelemetry} bean and trace-otel is present. */
  public static class Otel {
    /** Whether requests become GenAI spans and metrics of the application's {@code OpenTelemetry}. */
    private boolean enabled = true;

    /**
     * Whether prompts and completions given to {@code captureInput}/{@code captureOutput} are recorded on
     * spans (redacted and bounded). Off by default; a WARN line at start-up says when it is on.
     */
    private boolean captureMessageContent;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public boolean isCaptureMessageContent() {
      return captureMessageContent;
    }

    public void setCaptureMessageContent(boolean captureMessageContent) {
      this.captureMessageContent = captureMessageContent;
    }
  }

  /** GPU metrics, when the application defines a {@code GpuMetricsSource} bean (e.g. trace-tensorrt's NVML). */
  public static class Gpu {
    /** How often the GPU metrics source is polled (at least 10 ms). */
    private Duration interval = Duration.ofMillis(500);

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }
  }
}
