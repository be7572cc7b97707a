package io.github.trtrace.core.redact;

import io.github.trtrace.core.internal.RateLimitedLogger;
import io.github.trtrace.core.internal.UnicodeChars;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/** The redactor built by {@link Redactor#builder()}: an ordered list of rules over a bounded prefix. */
final class RuleRedactor implements Redactor {
  static final int MAX_DIGEST_CHARS = 100;
  static final String FAILED = "[REDACTION_FAILED]";
  private static final char ELLIPSIS = '\u2026';
  private static final char REPLACEMENT_CHAR = '\uFFFD';
  private static final RateLimitedLogger LOG =
      RateLimitedLogger.of(LoggerFactory.getLogger(Redactor.class), 60_000);

  private final List<Rule> rules;
  private final int maxScanChars;
  private final int maxDigestChars;

  RuleRedactor(List<Rule> rules, int maxScanChars, int maxDigestChars) {
    this.rules = rules;
    this.maxScanChars = maxScanChars;
    this.maxDigestChars = maxDigestChars;
  }

  @Override
  public String redact(@Nullable CharSequence text) {
    if (text == null) {
      return "";
    }
    boolean cut = text.length() > maxScanChars;
    String redacted = applyRules(scannedPrefix(text));
    return cut ? redacted + ELLIPSIS : redacted;
  }

  @Override
  public String digest(@Nullable CharSequence rawInput) {
    if (rawInput == null) {
      return "";
    }
    boolean cut = rawInput.length() > maxScanChars;
    return printableDigest(applyRules(scannedPrefix(rawInput)), cut, maxDigestChars);
  }

  private String applyRules(String text) {
    String s = text;
    for (Rule rule : rules) {
      try {
        s = rule.apply(s);
      } catch (RuntimeException | StackOverflowError e) {
        // fail closed: a broken rule must not let the text through unredacted
        LOG.warn("redaction rule '{}' failed; text replaced by {}", rule.name(), FAILED, e);
        return FAILED;
      }
    }
    return s;
  }

  /**
   * The first {@code maxScanChars} characters, without a half surrogate pair and without the
   * fragment of a token (or of a digit run) that the limit cut: such a fragment could be the
   * first half of a secret that no rule recognises any more.
   */
  private String scannedPrefix(CharSequence text) {
    int n = text.length();
    if (n <= maxScanChars) {
      return text.toString();
    }
    int end = maxScanChars;
    char next = text.charAt(end);
    if (Character.isLowSurrogate(next) && Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    } else if (isTokenChar(next)) {
      while (end > 0 && isTokenChar(text.charAt(end - 1))) {
        end--;
      }
      if (Character.isDigit(next)) {
        while (end > 0 && isDigitRunChar(text.charAt(end - 1))) {
          end--;
        }
      }
    }
    return text.subSequence(0, end).toString();
  }

  private static boolean isTokenChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || "-_+/=.@:%~".indexOf(c) >= 0;
  }

  private static boolean isDigitRunChar(char c) {
    return Character.isDigit(c) || c == ' ' || c == '-' || c == '(' || c == ')' || c == '+';
  }

  /**
   * {@code s} made printable and cut to {@code max} characters. Stops reading {@code s} once it
   * knows the result is cut, so a huge unredacted text ({@link Redactor#none()}) costs little.
   */
  static String printableDigest(String s, boolean alreadyCut, int max) {
    int n = s.length();
    StringBuilder out = new StringBuilder(Math.min(n, max) + 2);
    int i = 0;
    while (i < n && out.length() <= max) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        out.append(c).append(s.charAt(i + 1));
        i += 2;
        continue;
      }
      if (c == '\t' || c == '\n' || c == '\r' || c == '\u2028' || c == '\u2029') {
        out.append(' ');
      } else if (Character.isSurrogate(c)
          || UnicodeChars.isControl(c)
          || UnicodeChars.isBidiControl(c)
          || UnicodeChars.isZeroWidth(c)) {
        out.append(REPLACEMENT_CHAR);
      } else {
        out.append(c);
      }
      i++;
    }
    if (i == n && !alreadyCut && out.length() <= max) {
      return out.toString();
    }
    int end = Math.min(out.length(), max - 1);
    if (end > 0 && Character.isHighSurrogate(out.charAt(end - 1))) {
      end--; // out only holds valid pairs, so this high surrogate's partner is at end
    }
    out.setLength(end);
    return out.append(ELLIPSIS).toString();
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("Redactor[rules=");
    for (int i = 0; i < rules.size(); i++) {
      b.append(i == 0 ? "" : ", ").append(rules.get(i).name());
    }
    return b.append(", maxScanChars=").append(maxScanChars).append(", maxDigestChars=").append(maxDigestChars)
        .append(']').toString();
  }
}
