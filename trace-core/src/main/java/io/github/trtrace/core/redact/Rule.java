package io.github.trtrace.core.redact;

import java.util.regex.Pattern;

/** One redaction step. Implementations are immutable and thread-safe. */
interface Rule {
  /** For diagnostics (logs, {@code toString}). */
  String name();

  /** {@code text} with every match replaced. */
  String apply(String text);

  /** A rule replacing every match of {@code pattern} as {@link java.util.regex.Matcher#replaceAll(String)} does. */
  static Rule regex(String name, Pattern pattern, String replacement) {
    return new RegexRule(name, pattern, replacement);
  }

  /** See {@link Rule#regex}. */
  record RegexRule(String name, Pattern pattern, String replacement) implements Rule {
    @Override
    public String apply(String text) {
      return pattern.matcher(text).replaceAll(replacement);
    }
  }
}
