package io.github.trtrace.core.redact;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Removes secrets and personal data from text before it is recorded, and makes the short
 * {@code input_digest} of error and slow records.
 *
 * <p>The built-in rules replace e-mail addresses with {@code [EMAIL]}; API keys and tokens
 * ({@code sk-...}, {@code Bearer ...}, {@code AKIA...}, {@code ghp_...}, JWTs, long hex and base64
 * secrets, and the value of {@code password=}, {@code token:}, {@code secret=}, {@code api_key=} and
 * the like) with {@code [SECRET]}; runs of 8 or more digits (cards, phones, IDs) with
 * {@code [NUMBER]}. Rules are heuristics: they catch what is commonly pasted by accident, not what
 * is deliberately disguised.
 *
 * <pre>{@code
 * Redactor r = Redactor.builder()
 *     .rule("customer-id", Pattern.compile("CUST-[0-9A-F]{6}"), "[CUSTOMER]")
 *     .build();
 * r.digest("mail bob@example.com, key sk-proj-4f9a8b7c6d5e4f3a2b1c"); // "mail [EMAIL], key [SECRET]"
 * }</pre>
 *
 * <p>Only the first {@code maxScanChars} characters are examined (redacting megabytes on the
 * request path would cost more than the request); what lies beyond is dropped, never returned
 * unredacted, and a token cut by that limit is dropped whole. Implementations are thread-safe
 * and never throw at run time: if a rule fails, the result is {@code [REDACTION_FAILED]}.
 */
public interface Redactor {

  /**
   * {@code text} with every rule applied in order (user rules first, then the built-in ones).
   * Longer than {@code maxScanChars}, only the redacted prefix is returned, ending in {@code "…"}.
   */
  String redact(CharSequence text);

  /**
   * A short printable summary of raw input for a record's {@code input_digest}: redacted first,
   * then tab, line feed and carriage return turned into spaces, every other non-printing character
   * (controls, format characters such as bidirectional and zero-width ones, tag characters, line and
   * paragraph separators, unpaired surrogates, private-use and unassigned code points) written as a
   * visible marker such as {@code ⟦U+202E⟧}, then cut to at most {@code maxDigestChars} characters
   * (an ending {@code "…"} included) without splitting a marker or a surrogate pair. Because redaction comes first, a secret cut by the limit was already
   * replaced and never shows partially.
   */
  String digest(CharSequence rawInput);

  /** The built-in rules with default limits (digest 100 characters, scan 8192). */
  static Redactor defaults() {
    return builder().build();
  }

  /**
   * No rules: {@link #redact} returns the text unchanged; {@link #digest} still makes it printable
   * and short.
   */
  static Redactor none() {
    return new RuleRedactor(List.of(), Integer.MAX_VALUE, RuleRedactor.MAX_DIGEST_CHARS);
  }

  /** A builder starting from the built-in rules and default limits. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Configures a redactor.
   *
   * <pre>{@code
   * Redactor r = Redactor.builder().defaults(false).rule(Pattern.compile("\\bacct-\\d+"), "[ACCOUNT]").build();
   * }</pre>
   */
  final class Builder {
    private boolean defaults = true;
    private final List<Rule> userRules = new ArrayList<>();
    private int maxDigestChars = RuleRedactor.MAX_DIGEST_CHARS;
    private int maxScanChars = 8192;

    private Builder() {}

    /** Whether the built-in rules apply (default true); they run after the user's rules. */
    public Builder defaults(boolean defaults) {
      this.defaults = defaults;
      return this;
    }

    /** Adds a rule, named after its pattern. See {@link #rule(String, Pattern, String)}. */
    public Builder rule(Pattern pattern, String replacement) {
      Objects.requireNonNull(pattern, "pattern");
      return rule(pattern.pattern(), pattern, replacement);
    }

    /**
     * Adds a rule replacing every match of {@code pattern} by {@code replacement}, which may refer
     * to groups as in {@link java.util.regex.Matcher#replaceAll(String)} ({@code $1}). User rules
     * run in the order added, before the built-in ones.
     *
     * @throws IllegalArgumentException if the replacement refers to a group the pattern lacks or
     *     ends in a lone {@code \} or {@code $}
     */
    public Builder rule(String name, Pattern pattern, String replacement) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(pattern, "pattern");
      Objects.requireNonNull(replacement, "replacement");
      checkReplacement(name, pattern, replacement);
      userRules.add(Rule.regex(name, pattern, replacement));
      return this;
    }

    /** Longest digest, 1..100 characters including the ending {@code "…"} (default 100). */
    public Builder maxDigestChars(int maxDigestChars) {
      if (maxDigestChars < 1 || maxDigestChars > RuleRedactor.MAX_DIGEST_CHARS) {
        throw new IllegalArgumentException("maxDigestChars must be within 1..100: " + maxDigestChars);
      }
      this.maxDigestChars = maxDigestChars;
      return this;
    }

    /** How many leading characters are redacted, 1..1048576 (default 8192); the rest is dropped. */
    public Builder maxScanChars(int maxScanChars) {
      if (maxScanChars < 1 || maxScanChars > 1 << 20) {
        throw new IllegalArgumentException("maxScanChars must be within 1..1048576: " + maxScanChars);
      }
      this.maxScanChars = maxScanChars;
      return this;
    }

    /** A redactor with this configuration. */
    public Redactor build() {
      List<Rule> rules = new ArrayList<>(userRules);
      if (defaults) {
        rules.addAll(DefaultRules.RULES);
      }
      return new RuleRedactor(List.copyOf(rules), maxScanChars, maxDigestChars);
    }

    private static void checkReplacement(String name, Pattern pattern, String replacement) {
      int groups = pattern.matcher("").groupCount();
      for (int i = 0; i < replacement.length(); i++) {
        char c = replacement.charAt(i);
        @Nullable String problem = null;
        if (c == '\\') {
          if (i + 1 == replacement.length()) {
            problem = "ends in a lone '\\'";
          }
          i++;
        } else if (c == '$') {
          if (i + 1 == replacement.length()) {
            problem = "ends in a lone '$' (write \\$ for a literal dollar)";
          } else if (Character.isDigit(replacement.charAt(i + 1))) {
            int group = replacement.charAt(i + 1) - '0';
            if (group > groups) {
              problem = "refers to group " + group + " but the pattern has " + groups;
            }
          } else if (replacement.charAt(i + 1) == '{') {
            if (replacement.indexOf('}', i) < 0) {
              problem = "has an unclosed ${";
            }
          } else {
            problem = "has '$' not followed by a group number or {name} (write \\$ for a literal dollar)";
          }
        }
        if (problem != null) {
          throw new IllegalArgumentException("replacement of rule '" + name + "' " + problem + ": " + replacement);
        }
      }
    }
  }
}
