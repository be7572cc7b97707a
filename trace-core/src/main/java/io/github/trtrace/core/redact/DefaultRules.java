package io.github.trtrace.core.redact;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The built-in rules, in the order they run. Secrets go first (a {@code password=} value is
 * replaced whole before the e-mail or digit rules could see pieces of it), digits last.
 *
 * <p>Every pattern is written to stay linear on hostile input: matches may only start where a
 * token starts (a negative look-behind), repetitions are possessive or over a single character
 * class (no nested quantifiers, no repeated groups that recurse in {@code java.util.regex}).
 */
final class DefaultRules {
  static final String SECRET = "[SECRET]";
  static final String EMAIL = "[EMAIL]";

  /** Characters that make up a token for the secret and e-mail patterns. */
  private static final String TOKEN_CHARS = "A-Za-z0-9_+/=\\-";

  private DefaultRules() {}

  static final List<Rule> RULES =
      List.of(
          // password=..., "api_key": "...", token: ... (the key stays, the value goes)
          Rule.regex(
              "key-value-secret",
              Pattern.compile(
                  "(?i)\\b(password|passwd|pwd|secret|client_secret|token|access_token|refresh_token|auth_token"
                      + "|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key)\\b"
                      + "(\\\\?[\"']?[ \\t]*+[:=][ \\t]*+)"
                      // a value quoted with escaped quotes (JSON inside a JSON string), then a quoted value
                      // whose escapes (\\") do not end it, then single-quoted, then bare
                      + "(?:\\\\\"(?:[^\"\\\\\\r\\n]++|\\\\(?!\")[^\\r\\n])*+(?:\\\\\")?"
                      + "|\"(?:[^\"\\\\\\r\\n]++|\\\\[^\\r\\n])*+\"?|'[^'\\r\\n]*+'?|[^\\s,;&\"'}]++)"),
              "$1$2" + SECRET),
          // Authorization: Bearer <token>
          Rule.regex("bearer-token", Pattern.compile("\\b([Bb]earer)\\s++[A-Za-z0-9._~+/=\\-]{16,}+"), "$1 " + SECRET),
          // JSON Web Tokens
          Rule.regex(
              "jwt",
              Pattern.compile("\\beyJ[A-Za-z0-9_\\-]{5,}+\\.[A-Za-z0-9_\\-]{5,}+\\.[A-Za-z0-9_\\-]*+"),
              SECRET),
          // OpenAI / Anthropic style keys: sk-..., sk-proj-..., sk-ant-... (with at least one digit)
          Rule.regex("sk-key", Pattern.compile("\\bsk-(?=[A-Za-z_\\-]*+[0-9])[A-Za-z0-9_\\-]{16,}+"), SECRET),
          // AWS access key IDs
          Rule.regex("aws-access-key-id", Pattern.compile("\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b"), SECRET),
          // GitHub tokens
          Rule.regex(
              "github-token",
              Pattern.compile("\\b(?:gh[pousr]_[A-Za-z0-9]{36,}+|github_pat_[A-Za-z0-9_]{22,}+)"),
              SECRET),
          Rule.regex(
              "email",
              Pattern.compile(
                  "(?<![A-Za-z0-9._%+\\-])[A-Za-z0-9._%+\\-]++@[A-Za-z0-9][A-Za-z0-9.\\-]*\\.[A-Za-z]{2,}+"),
              EMAIL),
          // long hex secrets (keys, HMACs); 32+ hex digits standing alone
          Rule.regex(
              "hex-secret",
              Pattern.compile("(?<![" + TOKEN_CHARS + "])[0-9a-fA-F]{32,}+(?![" + TOKEN_CHARS + "])"),
              SECRET),
          // long base64/base64url secrets: 40+ chars mixing digits, upper and lower case
          Rule.regex(
              "base64-secret",
              Pattern.compile(
                  "(?<![" + TOKEN_CHARS + "])(?!/)"
                      + "(?=[A-Za-z_+/\\-]*+[0-9])(?=[a-z0-9_+/\\-]*+[A-Z])(?=[A-Z0-9_+/\\-]*+[a-z])"
                      + "[A-Za-z0-9_+/\\-]{40,}+={0,2}+(?![" + TOKEN_CHARS + "])"),
              SECRET),
          new DigitRunRule());
}
