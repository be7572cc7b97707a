package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.TraceListener;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.internal.dispatch.Dispatcher;
import io.github.trtrace.core.internal.gpu.GpuMetricsPoller;
import io.github.trtrace.core.internal.inspect.InputInspector;
import io.github.trtrace.core.internal.json.RecordJson;
import io.github.trtrace.core.internal.json.UnicodeChars;
import io.github.trtrace.core.redact.Redactor;
import io.github.trtrace.core.sampling.Sampler;
import io.github.trtrace.core.sink.JsonLinesFileSink;
import io.github.trtrace.core.sink.RecordSink;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The one way from the API package into the engine: {@link InferenceTracer.Builder} is a facade that
 * hands each setting to one of these, and {@link #build()} makes the tracer. It also carries what the
 * public builder does not offer: a dispatcher built by the caller ({@link #dispatcher}, trace-core's
 * own tests) and test clocks ({@link #clocks}); tests of other trtrace modules build tracers with it
 * directly. Not thread-safe; builds one tracer.
 */
public final class TracerFactory {
  final List<RecordSink> sinks = new ArrayList<>();
  final List<LogFile> logFiles = new ArrayList<>();
  final List<TraceListener> listeners = new ArrayList<>();
  final Dispatcher.Builder dispatcher = Dispatcher.builder();
  Sampler.@Nullable Builder samplerBuilder;
  @Nullable Sampler sampler;
  Redactor redactor = Redactor.defaults();
  boolean inputDigest;
  int veryLongInputChars = InputInspector.DEFAULT_VERY_LONG;
  @Nullable GpuMetricsSource gpuSource;
  Duration gpuInterval = Duration.ofMillis(500);
  Clock wallClock = Clock.systemUTC();
  LongSupplier nanoClock = System::nanoTime;
  @Nullable Dispatcher customDispatcher;
  boolean garbageFree;
  /** Whether the clocks are the system's (not {@link #clocks}): the tracer may then derive the wall clock. */
  boolean systemClocks = true;
  private boolean built;

  /**
   * The record's value rule ({@code InferenceRecord.Builder}'s, package-private there), which the engine
   * runs on the caller before handing an entry to the worker. The API package installs it when {@code
   * InferenceRecord} is initialised, so the rule has one copy and no public method; the API package
   * depends on this class only, never the reverse.
   */
  @FunctionalInterface
  public interface ValueRule {
    /** Throws {@link IllegalArgumentException} for a value {@code InferenceRecord.Builder#build()} rejects. */
    void check(double latencyMs, int inputTokens, int outputTokens, int maxTokens, double temperature,
        double topP, double queueMs, double preprocessMs, double inferMs, double gpuMs, double decodeMs,
        double postprocessMs, double ttftMs, double tpotMs);
  }

  /**
   * How the worker makes a record from a pooled entry ({@code InferenceRecord}'s private assembly, installed
   * with the value rule): the entry's values ({@link RecordValues}), read straight into the record, whose
   * attributes, events and layers it copies once into the record's own immutable collections; it keeps nothing
   * else of the entry. No checks: the entry passed the value rule on the caller.
   */
  @FunctionalInterface
  public interface RecordAssembly {
    InferenceRecord build(RecordValues values);
  }

  /** What {@code InferenceRecord} installs, set once together. */
  private record Installed(ValueRule rule, RecordAssembly assembly) {}

  private static volatile @Nullable Installed installed;

  /** Called once, by {@code InferenceRecord}'s static initialiser. */
  public static void install(ValueRule rule, RecordAssembly assembly) {
    installed = new Installed(Objects.requireNonNull(rule, "rule"), Objects.requireNonNull(assembly, "assembly"));
  }

  static ValueRule valueRule() {
    return installed().rule();
  }

  static RecordAssembly recordAssembly() {
    return installed().assembly();
  }

  /** What {@code InferenceRecord} installed, initialising that class first if it was not yet. */
  private static Installed installed() {
    Installed i = installed;
    if (i == null) {
      try {
        Class.forName(InferenceRecord.class.getName(), true, InferenceRecord.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
      i = installed;
      if (i == null) {
        throw new IllegalStateException("InferenceRecord did not install its value rule and record assembly");
      }
    }
    return i;
  }

  /** The most input and output characters queued entries keep for the worker to inspect. */
  public static final long DEFERRED_CHARS_BUDGET = RecordEntry.Pool.MAX_DEFERRED_CHARS;

  /** The characters of input and output text that {@code tracer}'s queued entries keep now (tests, diagnostics). */
  public static long deferredChars(InferenceTracer tracer) {
    return ((DefaultInferenceTracer) tracer).services.entries.deferredChars();
  }

  /** The record's JSON form ({@code RecordConvention.toJson}). */
  public static String toJson(InferenceRecord record) {
    return RecordJson.toJson(record);
  }

  /** The record's JSON line ({@code RecordConvention.appendJsonLine}). */
  public static void appendJsonLine(InferenceRecord record, StringBuilder out) {
    RecordJson.appendLine(record, out);
  }

  /**
   * Whether {@code codePoint} is written as an escape on every output ({@code UnicodeChars.isEscaped}: Cc, Cf,
   * Zl, Zp, surrogates); {@code RecordConvention} asks here, the API's one way into the engine.
   */
  public static boolean isEscaped(int codePoint) {
    return UnicodeChars.isEscaped(codePoint);
  }

  /** The tracer that records nothing. */
  public static InferenceTracer noop() {
    return NoopTracer.INSTANCE;
  }

  public TracerFactory sink(RecordSink sink) {
    sinks.add(Objects.requireNonNull(sink, "sink"));
    return this;
  }

  public TracerFactory jsonLinesFile(Path path) {
    return logFile(path, "jsonLinesFile(" + path + ")");
  }

  TracerFactory logFile(Path path, String origin) {
    Objects.requireNonNull(path, "path");
    if (path.getFileName() == null) {
      throw new IllegalArgumentException(origin + ": the path must name a file, not a root");
    }
    logFiles.add(new LogFile(path, origin));
    return this;
  }

  public TracerFactory listener(TraceListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  public TracerFactory sampler(Sampler sampler) {
    this.sampler = Objects.requireNonNull(sampler, "sampler");
    return this;
  }

  public TracerFactory redactor(Redactor redactor) {
    this.redactor = Objects.requireNonNull(redactor, "redactor");
    return this;
  }

  /** The launch open on the calling thread ({@code SharedLaunch.current()}). */
  public static io.github.trtrace.core.@Nullable SharedLaunch currentLaunch() {
    return io.github.trtrace.core.internal.batch.Launches.current();
  }

  /** The launch of a tracer that records nothing. */
  public static io.github.trtrace.core.SharedLaunch noopLaunch() {
    return io.github.trtrace.core.internal.batch.Launches.noop();
  }

  /** The launch counters of a tracer that records nothing. */
  public static io.github.trtrace.core.SharedLaunch.Stats noLaunchStats() {
    return io.github.trtrace.core.internal.batch.Launches.noStats();
  }

  /** The launch log's file (opened by {@link #build()}), or the sink given for it; see {@code InferenceTracer.Builder#launchLog}. */
  @Nullable Path launchLogPath;
  @Nullable JsonLinesFileSink launchLogSink;
  int launchLogMembers = 1024;

  public TracerFactory launchLog(Path path) {
    this.launchLogPath = Objects.requireNonNull(path, "path");
    this.launchLogSink = null;
    return this;
  }

  public TracerFactory launchLog(JsonLinesFileSink sink) {
    this.launchLogSink = Objects.requireNonNull(sink, "sink");
    this.launchLogPath = null;
    return this;
  }

  public TracerFactory launchLogMembers(int members) {
    if (members < 1) {
      throw new IllegalArgumentException("launchLogMembers must be >= 1: " + members);
    }
    this.launchLogMembers = members;
    return this;
  }

  private static JsonLinesFileSink openLaunchLog(Path path) {
    try {
      return JsonLinesFileSink.builder(path).build();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot open the launch log " + path + ": " + e.getMessage(), e);
    }
  }

  public TracerFactory inputDigest(boolean enabled) {
    this.inputDigest = enabled;
    return this;
  }

  public TracerFactory garbageFree(boolean enabled) {
    this.garbageFree = enabled;
    return this;
  }

  public TracerFactory veryLongInputChars(int chars) {
    if (chars < 1) {
      throw new IllegalArgumentException("veryLongInputChars must be >= 1: " + chars);
    }
    this.veryLongInputChars = chars;
    return this;
  }

  public TracerFactory gpuMetrics(GpuMetricsSource source, Duration interval) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(interval, "interval");
    if (interval.compareTo(GpuMetricsPoller.MIN_INTERVAL) < 0) {
      throw new IllegalArgumentException(
          "GPU metrics interval must be at least " + GpuMetricsPoller.MIN_INTERVAL.toMillis() + " ms: " + interval);
    }
    this.gpuSource = source;
    this.gpuInterval = interval;
    return this;
  }

  public TracerFactory queueCapacity(int capacity) {
    dispatcher.queueCapacity(capacity);
    return this;
  }

  public TracerFactory batchSize(int size) {
    dispatcher.batchSize(size);
    return this;
  }

  public TracerFactory reservedCapacity(int capacity) {
    dispatcher.reservedCapacity(capacity);
    return this;
  }

  public TracerFactory queueFullPolicy(QueueFullPolicy policy) {
    dispatcher.policy(policy);
    return this;
  }

  public TracerFactory blockTimeout(Duration timeout) {
    dispatcher.blockTimeout(timeout);
    return this;
  }

  public TracerFactory maxWriteDelay(Duration delay) {
    dispatcher.maxWriteDelay(delay);
    return this;
  }

  public TracerFactory closeTimeout(Duration timeout) {
    dispatcher.closeTimeout(timeout);
    return this;
  }

  public TracerFactory exportTimeout(Duration timeout) {
    dispatcher.exportTimeout(timeout);
    return this;
  }

  public TracerFactory shutdownHook(boolean enabled) {
    dispatcher.shutdownHook(enabled);
    return this;
  }

  public TracerFactory shutdownDrain(Duration drain) {
    dispatcher.shutdownDrain(drain);
    return this;
  }

  /**
   * Uses a dispatcher built by the caller, with its own sinks; the queue options above are then
   * ignored. Combining it with {@link #sink}, {@link #jsonLinesFile} or {@code TRTRACE_LOG_PATH} makes
   * {@link #build()} fail.
   */
  public TracerFactory dispatcher(Dispatcher dispatcher) {
    this.customDispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
    return this;
  }

  /** Clocks, for tests: wall clock for {@code timestamp}, monotonic nanos for durations. */
  public TracerFactory clocks(Clock wallClock, LongSupplier nanoClock) {
    this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.systemClocks = false;
    return this;
  }

  /**
   * Reads the settings from system properties and environment variables ({@link TracerSettings}); a
   * {@code trtrace.*} / {@code TRTRACE_*} name that trtrace does not know is logged as a warning.
   */
  public TracerFactory fromEnvironment() {
    TracerSettings.reportUnknownInSystem();
    return fromEnvironment(TracerSettings.systemLookup());
  }

  /** {@link #fromEnvironment()} from {@code lookup} instead of the system's. */
  public TracerFactory fromEnvironment(TracerSettings.Lookup lookup) {
    TracerSettings.apply(this, lookup);
    return this;
  }

  /** The sampler the environment settings configure, made on first use; null when none did. */
  public Sampler.@Nullable Builder environmentSampler() {
    return samplerBuilder;
  }

  Sampler.Builder samplerBuilder() {
    if (samplerBuilder == null) {
      samplerBuilder = Sampler.builder();
    }
    return samplerBuilder;
  }

  public InferenceTracer build() {
    if (customDispatcher != null && (!sinks.isEmpty() || !logFiles.isEmpty())) {
      List<String> given = new ArrayList<>();
      sinks.forEach(s -> given.add("sink(" + s.name() + ")"));
      logFiles.forEach(f -> given.add(f.origin()));
      throw new IllegalStateException(
          "dispatcher(...) was given, so records go to that dispatcher's sinks only; " + given
              + " would be silently ignored: add them to your Dispatcher.builder() instead");
    }
    if (customDispatcher == null && sinks.isEmpty() && logFiles.isEmpty()) {
      throw new IllegalStateException(
          "no sink configured: call sink(...), jsonLinesFile(...) or fromEnvironment() with "
              + TracerSettings.ENV_LOG_PATH);
    }
    if (built) {
      throw new IllegalStateException("build() was already called: a builder builds one tracer");
    }
    Sampler chosen = chooseSampler();
    List<LogFile> files = LogFile.distinct(logFiles);
    Dispatcher.Builder names = Dispatcher.builder();
    sinks.forEach(names::sink); // blank or duplicate names fail here, before anything is opened
    built = true;
    Dispatcher.Builder db = dispatcher;
    sinks.forEach(db::sink);
    java.util.concurrent.atomic.AtomicReference<DefaultInferenceTracer> built = new java.util.concurrent.atomic.AtomicReference<>();
    db.inFlight(() -> {
      DefaultInferenceTracer t = built.get();
      return t == null ? 0 : t.inFlight();
    });
    List<RecordSink> opened = new ArrayList<>();
    Dispatcher d = null;
    try {
      if (launchLogPath != null) {
        launchLogSink = openLaunchLog(launchLogPath);
        opened.add(launchLogSink);
      }
      for (LogFile f : files) {
        RecordSink sink = f.open();
        opened.add(sink);
        db.sink(sink);
      }
      d = customDispatcher != null ? customDispatcher : db.build();
      GpuMetricsPoller poller = gpuSource == null ? null : GpuMetricsPoller.start(gpuSource, gpuInterval);
      DefaultInferenceTracer tracer = new DefaultInferenceTracer(this, chosen, d, poller);
      built.set(tracer);
      return tracer;
    } catch (RuntimeException | Error e) {
      if (d != null && d != customDispatcher) {
        d.close();
        if (launchLogSink != null) {
          LogFile.closeAll(List.of(launchLogSink), e);
        }
      } else {
        LogFile.closeAll(opened, e);
      }
      throw e;
    }
  }

  private Sampler chooseSampler() {
    if (sampler == null) {
      return samplerBuilder != null ? samplerBuilder.build() : Sampler.builder().build();
    }
    if (samplerBuilder != null) {
      org.slf4j.LoggerFactory.getLogger("io.github.trtrace.tracer")
          .warn("trtrace: sampler(...) was given, so the {} and {} settings are ignored",
              TracerSettings.ENV_SAMPLE_RATE, TracerSettings.ENV_SLOW_MS);
    }
    return sampler;
  }
}
