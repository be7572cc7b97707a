package io.github.trtrace.core.internal.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports a system property or environment variable under the {@code trtrace.} / {@code TRTRACE_} prefix
 * that no part of trtrace reads (a misspelt {@code trtrace.sample.rat} would otherwise do nothing and say
 * nothing), once per name and JVM, with the known name it probably meant.
 *
 * <p>A warning, never an error: other tools and the application itself may use the same prefix for
 * settings of their own, and a tracer that refused to start over a name it does not know would take the
 * service down for a typo in a variable it does not even read.
 */
final class UnknownSettings {
  private static final Logger LOG = LoggerFactory.getLogger("io.github.trtrace.tracer");

  /**
   * Read by other parts of trtrace as system properties, exactly as spelt: trace-core's context storage
   * and strict mode, trace-tensorrt's kernel records, NVTX ranges and CUPTI options.
   */
  private static final List<String> OTHER_PROPERTIES = List.of(
      "trtrace.context.storage", "trtrace.context.strict", "trtrace.kernels.sample", "trtrace.kernels.request",
      "trtrace.nvtx", "trtrace.cupti.memcpy", "trtrace.cupti.reuseBuffers");

  /**
   * The Spring Boot starter's own keys ({@code TrtraceProperties}), which Spring binds in any of its
   * relaxed spellings ({@code max-file-bytes}, {@code maxFileBytes}, {@code TRTRACE_LOG_MAXFILEBYTES}):
   * compared with separators and case left out.
   */
  private static final List<String> SPRING_PROPERTIES = List.of(
      "trtrace.enabled", "trtrace.close-timeout", "trtrace.log.max-file-bytes", "trtrace.log.max-rotated-files",
      "trtrace.log.gzip-rotated", "trtrace.web.enabled", "trtrace.web.filter-order", "trtrace.web.record-requests",
      "trtrace.web.model-name", "trtrace.otel.enabled", "trtrace.otel.capture-message-content",
      "trtrace.gpu.interval");

  /** The examples' demo settings ({@code trtrace.demo.*}), not a library's. */
  private static final String DEMO_PREFIX = "trtrace.demo.";

  private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

  private final List<String> properties;
  private final List<String> variables;

  /** {@code properties} and {@code variables}: the names {@link TracerSettings} reads itself. */
  UnknownSettings(List<String> properties, List<String> variables) {
    this.properties = properties;
    this.variables = variables;
  }

  /** Warns about each unknown name in the system properties and the environment not reported before. */
  void report(Iterable<String> propertyNames, Iterable<String> variableNames) {
    for (String name : propertyNames) {
      check(name, false);
    }
    for (String name : variableNames) {
      check(name, true);
    }
  }

  private void check(String name, boolean variable) {
    if (!hasPrefix(name) || known(name, variable) || !REPORTED.add(name)) {
      return;
    }
    String meant = closest(name, variable);
    try {
      if (meant != null) {
        LOG.warn("trtrace: unknown setting {} ignored; did you mean {}?", name, meant);
      } else {
        LOG.warn("trtrace: unknown setting {} ignored (the settings are listed in docs/configuration.md)", name);
      }
    } catch (RuntimeException ignored) {
      // a broken logging backend must not break the builder
    }
  }

  private static boolean hasPrefix(String name) {
    return name.regionMatches(true, 0, "trtrace", 0, 7)
        && name.length() > 8
        && (name.charAt(7) == '.' || name.charAt(7) == '_');
  }

  /** Whether some part of trtrace reads {@code name}, as an environment variable when {@code variable}. */
  private boolean known(String name, boolean variable) {
    if (variable
        ? variables.contains(name)
        : properties.contains(name) || OTHER_PROPERTIES.contains(name) || name.startsWith(DEMO_PREFIX)) {
      return true;
    }
    String relaxed = relaxed(name);
    return SPRING_PROPERTIES.stream().anyMatch(p -> relaxed(p).equals(relaxed));
  }

  private static String relaxed(String name) {
    return name.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
  }

  /** The known name of the same kind (variable or property) nearest {@code name}; null if none is near. */
  private @Nullable String closest(String name, boolean variable) {
    List<String> candidates = new ArrayList<>(variable ? variables : properties);
    if (!variable) {
      candidates.addAll(OTHER_PROPERTIES);
    }
    for (String p : SPRING_PROPERTIES) {
      candidates.add(variable ? p.toUpperCase(Locale.ROOT).replace('.', '_').replace("-", "") : p);
    }
    String lower = name.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String c : candidates) {
      int d = distance(lower, c.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= Math.max(2, best.length() / 8) ? best : null;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }
}
