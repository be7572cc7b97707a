package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.internal.dispatch.Dispatcher;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Reads tracer settings from system properties and environment variables. */
public final class TracerSettings {
  /** Environment variable names; each has a system property, e.g. {@code trtrace.log.path}. */
  public static final String ENV_LOG_PATH = "TRTRACE_LOG_PATH";
  public static final String ENV_SAMPLE_RATE = "TRTRACE_SAMPLE_RATE";
  public static final String ENV_SLOW_MS = "TRTRACE_SLOW_MS";
  public static final String ENV_QUEUE_SIZE = "TRTRACE_QUEUE_SIZE";
  public static final String ENV_QUEUE_POLICY = "TRTRACE_QUEUE_POLICY";
  public static final String ENV_BATCH_SIZE = "TRTRACE_BATCH_SIZE";
  public static final String ENV_INPUT_DIGEST = "TRTRACE_INPUT_DIGEST";
  public static final String ENV_SHUTDOWN_DRAIN_MS = "TRTRACE_SHUTDOWN_DRAIN_MS";


  /** Looks a setting up by system-property name and environment-variable name. */
  @FunctionalInterface
  public interface Lookup {
    @Nullable String get(String property, String env);
  }

  /** One setting: its system property and its environment variable. */
  private record Setting(String property, String env) {
    @Override
    public String toString() {
      return env + " (" + property + ")";
    }
  }

  private static final Setting LOG_PATH = new Setting("trtrace.log.path", ENV_LOG_PATH);
  private static final Setting SAMPLE_RATE =
      new Setting("trtrace.sample.rate", ENV_SAMPLE_RATE);
  private static final Setting SLOW_MS = new Setting("trtrace.slow.ms", ENV_SLOW_MS);
  private static final Setting QUEUE_SIZE =
      new Setting("trtrace.queue.size", ENV_QUEUE_SIZE);
  private static final Setting BATCH_SIZE = new Setting("trtrace.batch.size", ENV_BATCH_SIZE);
  private static final Setting QUEUE_POLICY =
      new Setting("trtrace.queue.policy", ENV_QUEUE_POLICY);
  private static final Setting INPUT_DIGEST =
      new Setting("trtrace.input.digest", ENV_INPUT_DIGEST);
  private static final Setting SHUTDOWN_DRAIN =
      new Setting("trtrace.shutdown.drain.ms", ENV_SHUTDOWN_DRAIN_MS);

  private static final List<Setting> ALL = List.of(
      LOG_PATH, SAMPLE_RATE, SLOW_MS, QUEUE_SIZE, BATCH_SIZE, QUEUE_POLICY, INPUT_DIGEST, SHUTDOWN_DRAIN);

  private static final UnknownSettings UNKNOWN = new UnknownSettings(
      ALL.stream().map(Setting::property).toList(), ALL.stream().map(Setting::env).toList());

  private TracerSettings() {}

  /**
   * Warns, once per name and JVM, about each name under the {@code trtrace.} / {@code TRTRACE_} prefix
   * among {@code propertyNames} and {@code variableNames} that no part of trtrace reads ({@link
   * UnknownSettings}); never throws.
   */
  static void reportUnknown(Iterable<String> propertyNames, Iterable<String> variableNames) {
    UNKNOWN.report(propertyNames, variableNames);
  }

  /** {@link #reportUnknown} over this JVM's system properties and environment variables. */
  static void reportUnknownInSystem() {
    reportUnknown(System.getProperties().stringPropertyNames(), System.getenv().keySet());
  }

  public static Lookup systemLookup() {
    return (property, env) -> {
      String v = System.getProperty(property);
      return v != null ? v : System.getenv(env);
    };
  }

  /**
   * Validates every setting first and only then applies them, so an invalid value never leaves a
   * half-configured builder; nothing is opened here (the builder opens the log file in build()).
   */
  static void apply(TracerFactory b, Lookup lookup) {
    String pathValue = value(lookup, LOG_PATH);
    Path path = null;
    if (pathValue != null) {
      try {
        path = Path.of(pathValue);
      } catch (InvalidPathException e) {
        throw invalid(LOG_PATH, pathValue, "not a valid path");
      }
      if (path.getFileName() == null) {
        throw invalid(LOG_PATH, pathValue, "must name a file, not a root");
      }
    }
    String rate = value(lookup, SAMPLE_RATE);
    Double r = null;
    if (rate != null) {
      r = parseDouble(SAMPLE_RATE, rate);
      if (!(r >= 0.0 && r <= 1.0)) {
        throw invalid(SAMPLE_RATE, rate, "must be between 0 and 1");
      }
    }
    String slow = value(lookup, SLOW_MS);
    Duration slowThreshold = null;
    if (slow != null) {
      double ms = parseDouble(SLOW_MS, slow);
      long nanos = (long) (ms * 1_000_000);
      if (!(ms > 0) || Double.isInfinite(ms) || nanos <= 0) {
        throw invalid(SLOW_MS, slow, "must be a positive number of milliseconds");
      }
      slowThreshold = Duration.ofNanos(nanos);
    }
    String size = value(lookup, QUEUE_SIZE);
    int capacity = size == null ? -1 : parseInt(QUEUE_SIZE, size);
    if (size != null && (capacity < 1 || capacity > Dispatcher.Builder.MAX_CAPACITY)) {
      // the builder's message, checked here before anything is applied
      throw invalid(QUEUE_SIZE, size,
          "queueCapacity must be between 1 and " + Dispatcher.Builder.MAX_CAPACITY + ": " + capacity);
    }
    String batchValue = value(lookup, BATCH_SIZE);
    int batch = -1;
    if (batchValue != null) {
      batch = parseInt(BATCH_SIZE, batchValue);
      if (batch < 1 || batch > Dispatcher.Builder.MAX_BATCH_SIZE) {
        throw invalid(BATCH_SIZE, batchValue, "must be between 1 and " + Dispatcher.Builder.MAX_BATCH_SIZE);
      }
    }
    String policyValue = value(lookup, QUEUE_POLICY);
    QueueFullPolicy policy = null;
    if (policyValue != null) {
      try {
        policy = QueueFullPolicy.valueOf(policyValue.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw invalid(QUEUE_POLICY, policyValue, "must be 'block' or 'drop'");
      }
    }
    String digest = value(lookup, INPUT_DIGEST);
    if (digest != null && !digest.equalsIgnoreCase("true") && !digest.equalsIgnoreCase("false")) {
      throw invalid(INPUT_DIGEST, digest, "must be 'true' or 'false'");
    }
    String drainValue = value(lookup, SHUTDOWN_DRAIN);
    Duration drain = null;
    if (drainValue != null) {
      try {
        drain = Duration.ofMillis(Long.parseLong(plain(INTEGER, drainValue)));
      } catch (NumberFormatException e) {
        throw invalid(SHUTDOWN_DRAIN, drainValue, "must be a whole number of milliseconds");
      }
      if (drain.isNegative() || drain.compareTo(Duration.ofHours(1)) > 0) {
        throw invalid(SHUTDOWN_DRAIN, drainValue, "must be between 0 and 3600000 (1 h)");
      }
    }

    if (drain != null) {
      b.shutdownDrain(drain);
    }
    if (r != null) {
      b.samplerBuilder().rate(r);
    }
    if (slowThreshold != null) {
      b.samplerBuilder().slowThreshold(slowThreshold);
    }
    if (size != null) {
      b.queueCapacity(capacity);
    }
    if (batchValue != null) {
      b.batchSize(batch);
    }
    if (policy != null) {
      b.queueFullPolicy(policy);
    }
    if (digest != null) {
      b.inputDigest(Boolean.parseBoolean(digest));
    }
    if (path != null) {
      b.logFile(path, LOG_PATH + "=" + pathValue);
    }
  }

  private static @Nullable String value(Lookup lookup, Setting setting) {
    String v = lookup.get(setting.property(), setting.env());
    if (v == null) {
      return null;
    }
    v = v.trim();
    return v.isEmpty() ? null : v;
  }

  /**
   * Numbers are written in plain decimal, as the docs show them: an optional minus (so that a negative
   * value gets the range message), ASCII digits, and for the decimal settings a fraction and an exponent.
   * The JDK parsers accept more (Java literal suffixes {@code 0.5f} and {@code 1d}, hexadecimal {@code
   * 0x1p-1}, a leading plus, {@code NaN}, {@code Infinity}, non-ASCII digits): such a value is more likely a
   * mistake than meant, and other readers of the same variable would not agree on it, so it is refused.
   */
  private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");

  private static final Pattern DECIMAL = Pattern.compile("-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?");

  /** {@code value} when it matches {@code grammar}; otherwise the NumberFormatException the caller turns into its message. */
  private static String plain(Pattern grammar, String value) {
    if (!grammar.matcher(value).matches()) {
      throw new NumberFormatException(value);
    }
    return value;
  }

  private static int parseInt(Setting name, String value) {
    try {
      return Integer.parseInt(plain(INTEGER, value));
    } catch (NumberFormatException e) {
      throw invalid(name, value, "must be an integer");
    }
  }

  private static double parseDouble(Setting name, String value) {
    try {
      return Double.parseDouble(plain(DECIMAL, value));
    } catch (NumberFormatException e) {
      throw invalid(name, value, "must be a number");
    }
  }

  private static IllegalArgumentException invalid(Setting name, String value, String why) {
    String shown = value.length() > 64 ? value.substring(0, 64) + "…" : value;
    return new IllegalArgumentException(name + "=" + shown + ": " + why);
  }
}
