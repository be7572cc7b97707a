// Over 400 lines: one job (a TensorRT line from callback to captures and listeners: attribution, classification, redaction, printing) with its public builder, capture and stats; the rate limit is IdenticalLineLimit, the SLF4J output Slf4jOutput.
package io.github.trtrace.tensorrt.log;

import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.model.log.TrtLogKind;
import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.tensorrt.model.log.TrtLogClassifier;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Where every TensorRT log line goes: classified, redacted, attributed, rate-limited, then handed to
 * SLF4J and listeners. {@link #log(int, String)} never throws.
 *
 * <p>Attribution: the request of the calling thread ({@link RequestContext#current()}) if any; the
 * scope is the innermost {@linkplain #openCapture capture} opened by the calling thread (TensorRT calls
 * the logger on the thread that called it, so two builds on two threads each capture their own
 * lines). A line from a thread that opened no scope belongs to no scope, whatever other threads have
 * open: a serving warning never lands in a concurrent build's report. Such lines logged while scopes
 * are open are counted in {@link Stats#unscopedWhileScopesOpen()}. Every scoped event is given to
 * its scope's capture (all severities, VERBOSE included, not rate-limited) and to the build audit.
 * Events at or above the {@linkplain #runtimeLevel run-time level} pass the rate limit and go to
 * SLF4J (logger {@code io.github.trtrace.tensorrt}) and to {@link #onEvent} listeners.
 *
 * <p>Cost: a line that no scope of the calling thread captures and that is below the run-time level
 * (or whose SLF4J level is disabled while no listener is registered) is only counted: it is neither
 * classified nor redacted nor timestamped.
 *
 * <pre>{@code
 * TrtLogPipeline pipeline = TrtLogPipeline.builder()
 *     .redact(Pattern.compile("\\[\\d+(,\\d+)*\\]"), "[shape]")
 *     .build();
 * try (TrtLogPipeline.Capture s = pipeline.openCapture("build:llama-8b", report::add)) {
 *   builder.buildSerializedNetwork(network, config);
 * }
 * }</pre>
 */
public final class TrtLogPipeline {
  static final String LOGGER_NAME = "io.github.trtrace.tensorrt";
  static final String VERBOSE_WARNING =
      "TensorRT run-time log level set to VERBOSE: in the field this cost about 40 % of GPU"
          + " utilisation in production; use it only for a short diagnosis";

  /** Where formatted lines go; SLF4J by default, replaceable in tests. */
  interface Output {
    void emit(Level level, String text);

    /** Whether {@link #emit} at {@code level} would print anything (SLF4J's cheap check). */
    default boolean isEnabled(Level level) {
      return true;
    }
  }

  /**
   * An open capture of the lines TensorRT logs on the thread that opened it (the innermost capture of that
   * thread gets them). Not a scope: it makes nothing current (no request ID, no MDC), so unlike trace-core's
   * {@code TraceScope} and {@code RequestContext.Scope}, which must be closed on the thread that opened them,
   * a capture may be closed on any thread. Closing it is idempotent and never throws.
   *
   * <pre>{@code
   * try (TrtLogPipeline.Capture c = pipeline.openCapture("build:llama-8b", report::add)) { build(); }
   * }</pre>
   */
  public interface Capture extends AutoCloseable {
    /** The capture's name, e.g. {@code build:llama-8b}. */
    String name();

    @Override
    void close();
  }

  /**
   * Counters since the pipeline was built.
   *
   * @param eventsBySeverity lines received, by severity
   * @param suppressed lines not printed because of the rate limit
   * @param redacted lines changed by a redaction rule
   * @param listenerFailures exceptions thrown by listeners or captures (swallowed)
   * @param internalFailures failures inside the pipeline itself (swallowed)
   * @param unscopedWhileScopesOpen lines from a thread without a scope of its own while other threads
   *     had scopes open: captured by no scope and not audited (the run-time output still receives them)
   */
  public record Stats(
      Map<TrtSeverity, Long> eventsBySeverity,
      long suppressed,
      long redacted,
      long listenerFailures,
      long internalFailures,
      long unscopedWhileScopesOpen) {
    public Stats {
      eventsBySeverity = Map.copyOf(eventsBySeverity);
    }

    /** Lines received in total. */
    public long events() {
      return eventsBySeverity.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private record Rule(Pattern pattern, String replacement) {}

  private final class CaptureImpl implements Capture {
    private final String name;
    private final Consumer<TrtLogEvent> capture;
    private final Thread owner;
    private final AtomicBoolean closed = new AtomicBoolean();

    CaptureImpl(String name, Consumer<TrtLogEvent> capture, Thread owner) {
      this.name = name;
      this.capture = capture;
      this.owner = owner;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        scopes.remove(this);
      }
    }
  }


  private final List<Rule> rules;
  private final Supplier<@Nullable String> requestIdSource;
  private final @Nullable Consumer<TrtLogEvent> buildAudit;
  private final IdenticalLineLimit rateLimit;
  private final Output output;
  private final RateLimitedLogger failureLog;
  private final CopyOnWriteArrayList<CaptureImpl> scopes = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<Consumer<TrtLogEvent>> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLongArray bySeverity = new AtomicLongArray(TrtSeverity.values().length);
  private final AtomicLong redacted = new AtomicLong();
  private final AtomicLong listenerFailures = new AtomicLong();
  private final AtomicLong internalFailures = new AtomicLong();
  private final AtomicLong unscopedWhileScopesOpen = new AtomicLong();
  private final AtomicBoolean verboseWarned = new AtomicBoolean();
  private volatile TrtSeverity runtimeLevel;

  private TrtLogPipeline(Builder b) {
    this.rules = List.copyOf(b.rules);
    this.requestIdSource = b.requestIdSource;
    this.buildAudit = b.buildAudit;
    this.rateLimit = new IdenticalLineLimit(b.maxPerSecond, b.nanoTime);
    this.output = b.output;
    this.failureLog = RateLimitedLogger.of(LoggerFactory.getLogger(LOGGER_NAME), 10_000);
    this.listeners.addAll(b.listeners);
    this.runtimeLevel = TrtSeverity.WARNING;
    runtimeLevel(b.runtimeLevel);
  }

  /** A builder with defaults: run-time level WARNING, 10 identical lines a second, no redaction. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Receives one TensorRT log line (the {@code ILogger::log} callback). Never throws: every failure is
   * counted in {@link Stats#internalFailures()} or {@link Stats#listenerFailures()}.
   *
   * @param severityCode TensorRT's severity code (0..4; others are sanitized)
   * @param message the line; null is treated as empty
   */
  public void log(int severityCode, @Nullable String message) {
    try {
      dispatch(severityCode, message == null ? "" : message);
    } catch (Throwable t) { // NOPMD: a TensorRT callback must never see an exception
      internalFailures.incrementAndGet();
      failureLog.warn("TensorRT log line dropped: {}", t.toString());
    }
  }

  private void dispatch(int severityCode, String raw) {
    TrtSeverity severity = TrtSeverity.fromCode(severityCode);
    bySeverity.incrementAndGet(severity.ordinal());
    Object[] open = scopes.toArray();
    CaptureImpl scope = scopeFor(Thread.currentThread(), open);
    boolean printable = severity.isAtLeast(runtimeLevel)
        && (!listeners.isEmpty() || output.isEnabled(Slf4jOutput.level(severity)));
    if (scope == null) {
      if (open.length > 0) {
        unscopedWhileScopesOpen.incrementAndGet();
      }
      if (!printable) {
        return; // the cheap disabled path: no classification, redaction, clock or context lookup
      }
    }
    TrtLogClassifier.ErrorLine error = TrtLogClassifier.errorLine(raw);
    TrtLogKind kind = TrtLogClassifier.classify(severity, raw, error);
    String message = redact(raw);
    String requestId = currentRequestId();
    TrtLogEvent event =
        new TrtLogEvent(
            severity,
            kind,
            error == null ? -1 : error.code(),
            error == null ? null : error.category(),
            message,
            Thread.currentThread().getName(),
            ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()),
            requestId,
            scope == null ? null : scope.name);
    if (scope != null) {
      deliver(scope.capture, event);
      if (buildAudit != null) {
        deliver(buildAudit, event);
      }
    }
    if (!printable) {
      return;
    }
    long suppressedBefore = rateLimit.admit(severity, message);
    if (suppressedBefore < 0) {
      return;
    }
    print(event, suppressedBefore);
    for (Consumer<TrtLogEvent> listener : listeners) {
      deliver(listener, event);
    }
  }

  private @Nullable String currentRequestId() {
    try {
      return requestIdSource.get();
    } catch (RuntimeException e) {
      internalFailures.incrementAndGet();
      return null;
    }
  }

  /** The innermost scope {@code thread} opened, or null: never another thread's scope. */
  private static @Nullable CaptureImpl scopeFor(Thread thread, Object[] open) {
    for (int i = open.length - 1; i >= 0; i--) {
      if (((CaptureImpl) open[i]).owner == thread) {
        return (CaptureImpl) open[i];
      }
    }
    return null;
  }

  private String redact(String message) {
    String out = message;
    for (Rule rule : rules) {
      Matcher m = rule.pattern.matcher(out);
      if (m.find()) {
        out = m.replaceAll(rule.replacement);
      }
    }
    if (!out.equals(message)) {
      redacted.incrementAndGet();
    }
    return out;
  }

  private void print(TrtLogEvent e, long suppressedBefore) {
    StringBuilder text = new StringBuilder(e.message().length() + 64);
    text.append("[TRT] ").append(e.message());
    if (e.requestId() != null) {
      text.append(" request_id=").append(e.requestId());
    }
    if (e.scope() != null) {
      text.append(" scope=").append(e.scope());
    }
    if (suppressedBefore > 0) {
      text.append(" (").append(suppressedBefore).append(" identical lines suppressed)");
    }
    try {
      output.emit(Slf4jOutput.level(e.severity()), text.toString());
    } catch (RuntimeException ex) {
      listenerFailures.incrementAndGet();
    }
  }

  private void deliver(Consumer<TrtLogEvent> consumer, TrtLogEvent event) {
    try {
      consumer.accept(event);
    } catch (RuntimeException e) {
      listenerFailures.incrementAndGet();
      failureLog.warn("TensorRT log listener failed: {}", e.toString());
    }
  }

  /**
   * Opens a capture for the calling thread: until it is closed, the lines TensorRT logs on this thread
   * go to {@code capture} (every severity) and carry the capture's name as their scope. Captures nest per
   * thread; the innermost open one wins. Lines from other threads never reach it. Thread-safe; the
   * capture may be closed from any thread.
   *
   * @param scopeName e.g. {@code "build:llama-8b"} or {@code "engine:<fingerprint>"}
   * @param capture receives every line of the capture; exceptions it throws are counted and swallowed
   */
  public Capture openCapture(String scopeName, Consumer<TrtLogEvent> capture) {
    Objects.requireNonNull(scopeName, "scopeName");
    Objects.requireNonNull(capture, "capture");
    CaptureImpl scope = new CaptureImpl(scopeName, capture, Thread.currentThread());
    scopes.add(scope);
    return scope;
  }

  /** Adds a run-time listener for lines at or above the run-time level that pass the rate limit. */
  public TrtLogPipeline onEvent(Consumer<TrtLogEvent> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /** Removes a listener added with {@link #onEvent} (compared by identity); false when absent. */
  public boolean removeListener(Consumer<TrtLogEvent> listener) {
    return listeners.removeIf(l -> l == listener);
  }

  /**
   * Sets the minimum severity printed and given to listeners (scopes always capture everything).
   * Choosing {@link TrtSeverity#VERBOSE} logs a one-time warning about its cost.
   */
  public TrtLogPipeline runtimeLevel(TrtSeverity level) {
    Objects.requireNonNull(level, "level");
    if (level == TrtSeverity.VERBOSE && verboseWarned.compareAndSet(false, true)) {
      try {
        output.emit(Level.WARN, VERBOSE_WARNING);
      } catch (RuntimeException ignored) {
        listenerFailures.incrementAndGet();
      }
    }
    this.runtimeLevel = level;
    return this;
  }

  /** The current run-time level. */
  public TrtSeverity runtimeLevel() {
    return runtimeLevel;
  }

  /** A snapshot of the counters. */
  public Stats stats() {
    Map<TrtSeverity, Long> by = new EnumMap<>(TrtSeverity.class);
    for (TrtSeverity s : TrtSeverity.values()) {
      by.put(s, bySeverity.get(s.ordinal()));
    }
    return new Stats(by, rateLimit.suppressed(), redacted.get(), listenerFailures.get(), internalFailures.get(),
        unscopedWhileScopesOpen.get());
  }

  /** Configures a {@link TrtLogPipeline}. */
  public static final class Builder {
    private final List<Rule> rules = new ArrayList<>();
    private final List<Consumer<TrtLogEvent>> listeners = new ArrayList<>();
    private Supplier<@Nullable String> requestIdSource = Builder::contextRequestId;
    private @Nullable Consumer<TrtLogEvent> buildAudit;
    private int maxPerSecond = 10;
    private TrtSeverity runtimeLevel = TrtSeverity.WARNING;
    private LongSupplier nanoTime = System::nanoTime;
    private Output output = new Slf4jOutput(LoggerFactory.getLogger(LOGGER_NAME));

    private Builder() {}

    private static @Nullable String contextRequestId() {
      RequestContext ctx = RequestContext.current();
      return ctx.isEmpty() ? null : ctx.requestId();
    }

    /** Replaces every match of {@code pattern} in messages by {@code replacement}, before anything sees them. */
    public Builder redact(Pattern pattern, String replacement) {
      rules.add(
          new Rule(Objects.requireNonNull(pattern, "pattern"), Objects.requireNonNull(replacement, "replacement")));
      return this;
    }

    /** Minimum severity printed and given to listeners; default {@link TrtSeverity#WARNING}. */
    public Builder runtimeLevel(TrtSeverity level) {
      this.runtimeLevel = Objects.requireNonNull(level, "level");
      return this;
    }

    /** At most {@code n} identical (severity, message) lines a second are printed; default 10. */
    public Builder maxIdenticalPerSecond(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxIdenticalPerSecond must be >= 1: " + n);
      }
      this.maxPerSecond = n;
      return this;
    }

    /** Prints every line (no rate limit). */
    public Builder noRateLimit() {
      this.maxPerSecond = Integer.MAX_VALUE;
      return this;
    }

    /** Receives every line captured by a scope, of any scope (e.g. a build audit file). */
    public Builder buildAudit(Consumer<TrtLogEvent> audit) {
      this.buildAudit = Objects.requireNonNull(audit, "audit");
      return this;
    }

    /** Adds a run-time listener; same as {@link TrtLogPipeline#onEvent}. */
    public Builder onEvent(Consumer<TrtLogEvent> listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Where the request ID of the calling thread comes from; default {@link RequestContext#current()}.
     * The supplier returns null when no request is in progress.
     */
    public Builder requestIdSource(Supplier<@Nullable String> source) {
      this.requestIdSource = Objects.requireNonNull(source, "source");
      return this;
    }

    Builder nanoTime(LongSupplier ticker) {
      this.nanoTime = ticker;
      return this;
    }

    Builder output(Output out) {
      this.output = out;
      return this;
    }

    /** Builds the pipeline. */
    public TrtLogPipeline build() {
      return new TrtLogPipeline(this);
    }
  }
}
