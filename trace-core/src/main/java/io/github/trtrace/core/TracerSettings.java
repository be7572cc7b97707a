package io.github.trtrace.core;

import io.github.trtrace.core.dispatch.QueueFullPolicy;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** Reads tracer settings from system properties and environment variables. */
final class TracerSettings {

  /** Looks a setting up by system-property name and environment-variable name. */
  @FunctionalInterface
  interface Lookup {
    @Nullable String get(String property, String env);
  }

  private TracerSettings() {}

  static Lookup systemLookup() {
    return (property, env) -> {
      String v = System.getProperty(property);
      return v != null ? v : System.getenv(env);
    };
  }

  static void apply(InferenceTracer.Builder b, Lookup lookup) {
    String path = value(lookup, "trtrace.log.path", InferenceTracer.Builder.ENV_LOG_PATH);
    if (path != null) {
      try {
        b.jsonLinesFile(Path.of(path));
      } catch (InvalidPathException e) {
        throw invalid(InferenceTracer.Builder.ENV_LOG_PATH, path, "not a valid path");
      }
    }
    String rate = value(lookup, "trtrace.sample.rate", InferenceTracer.Builder.ENV_SAMPLE_RATE);
    if (rate != null) {
      double r = parseDouble(InferenceTracer.Builder.ENV_SAMPLE_RATE, rate);
      if (!(r >= 0.0 && r <= 1.0)) {
        throw invalid(InferenceTracer.Builder.ENV_SAMPLE_RATE, rate, "must be between 0 and 1");
      }
      b.samplerBuilder().rate(r);
    }
    String slow = value(lookup, "trtrace.slow.ms", InferenceTracer.Builder.ENV_SLOW_MS);
    if (slow != null) {
      double ms = parseDouble(InferenceTracer.Builder.ENV_SLOW_MS, slow);
      if (!(ms > 0) || Double.isInfinite(ms)) {
        throw invalid(InferenceTracer.Builder.ENV_SLOW_MS, slow, "must be a positive number of milliseconds");
      }
      b.samplerBuilder().slowThreshold(Duration.ofNanos((long) (ms * 1_000_000)));
    }
    String size = value(lookup, "trtrace.queue.size", InferenceTracer.Builder.ENV_QUEUE_SIZE);
    if (size != null) {
      int n;
      try {
        n = Integer.parseInt(size);
      } catch (NumberFormatException e) {
        throw invalid(InferenceTracer.Builder.ENV_QUEUE_SIZE, size, "must be an integer");
      }
      b.queueCapacity(n);
    }
    String policy = value(lookup, "trtrace.queue.policy", InferenceTracer.Builder.ENV_QUEUE_POLICY);
    if (policy != null) {
      try {
        b.queueFullPolicy(QueueFullPolicy.valueOf(policy.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw invalid(InferenceTracer.Builder.ENV_QUEUE_POLICY, policy, "must be 'block' or 'drop'");
      }
    }
    String digest = value(lookup, "trtrace.input.digest", InferenceTracer.Builder.ENV_INPUT_DIGEST);
    if (digest != null) {
      if (!digest.equalsIgnoreCase("true") && !digest.equalsIgnoreCase("false")) {
        throw invalid(InferenceTracer.Builder.ENV_INPUT_DIGEST, digest, "must be 'true' or 'false'");
      }
      b.inputDigest(Boolean.parseBoolean(digest));
    }
  }

  private static @Nullable String value(Lookup lookup, String property, String env) {
    String v = lookup.get(property, env);
    if (v == null) {
      return null;
    }
    v = v.trim();
    return v.isEmpty() ? null : v;
  }

  private static double parseDouble(String name, String value) {
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw invalid(name, value, "must be a number");
    }
  }

  private static IllegalArgumentException invalid(String name, String value, String why) {
    String shown = value.length() > 64 ? value.substring(0, 64) + "…" : value;
    return new IllegalArgumentException(name + "=" + shown + ": " + why);
  }
}
