package io.github.trtrace.core.redact;

import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.internal.json.UnicodeChars;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/** The redactor built by {@link Redactor#builder()}: an ordered list of rules over a bounded prefix. */
final class RuleRedactor implements Redactor {
  static final int MAX_DIGEST_CHARS = 100;
  static final String FAILED = "[REDACTION_FAILED]";
  private static final char ELLIPSIS = '\u2026';
  private static final char MARK_OPEN = '\u27E6'; // ⟦
  private static final char MARK_CLOSE = '\u27E7'; // ⟧
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
   * {@code s} made printable and cut to {@code max} characters: tab, line feed and carriage return
   * become spaces; every other non-printing code point (see {@link UnicodeChars#isNonPrinting}), and
   * every unpaired surrogate, becomes a visible marker such as {@code ⟦U+202E⟧}, so that an operator
   * can tell U+202E from NUL. A marker or a surrogate pair is never cut. Stops reading {@code s} once
   * it knows the result is cut, so a huge unredacted text ({@link Redactor#none()}) costs little.
   */
  static String printableDigest(String s, boolean alreadyCut, int max) {
    int n = s.length();
    StringBuilder out = new StringBuilder(Math.min(n, max) + 12);
    int i = 0;
    // the length at which the result can still take the ending "…" (the last whole piece before it)
    int cutAt = 0;
    boolean cut = alreadyCut;
    while (i < n) {
      int cp;
      int width;
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        cp = Character.toCodePoint(c, s.charAt(i + 1));
        width = 2;
      } else {
        cp = c;
        width = 1;
      }
      int before = out.length();
      if (cp == '\t' || cp == '\n' || cp == '\r') {
        out.append(' ');
      } else if (UnicodeChars.isNonPrinting(cp)) {
        out.append(MARK_OPEN).append("U+");
        String hex = Integer.toHexString(cp).toUpperCase(java.util.Locale.ROOT);
        for (int pad = hex.length(); pad < 4; pad++) {
          out.append('0');
        }
        out.append(hex).append(MARK_CLOSE);
      } else {
        out.appendCodePoint(cp);
      }
      if (out.length() > max) {
        out.setLength(before);
        cut = true;
        break;
      }
      if (out.length() <= max - 1) {
        cutAt = out.length();
      }
      i += width;
    }
    if (!cut) {
      return out.toString();
    }
    out.setLength(cutAt);
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
