package io.github.trtrace.core.redact;

/**
 * Replaces runs of at least 8 digits (card numbers, phone numbers, account and national IDs) with
 * {@code [NUMBER]}. Digits may be separated by up to two of {@code ' ', '-', '(', ')'}, as in
 * {@code 4111 1111 1111 1111} or {@code +1 (555) 123-4567}; a leading {@code +} goes with the run.
 * Hand-written rather than a regular expression: one linear pass, no backtracking, and no deep
 * recursion on a hostile 8 KB run of digits.
 */
final class DigitRunRule implements Rule {
  static final String REPLACEMENT = "[NUMBER]";
  static final int MIN_DIGITS = 8;

  @Override
  public String name() {
    return "digit-run";
  }

  @Override
  public String apply(String s) {
    int n = s.length();
    StringBuilder out = null;
    int copied = 0;
    int i = 0;
    while (i < n) {
      if (!Character.isDigit(s.charAt(i))) {
        i++;
        continue;
      }
      int start = i > 0 && s.charAt(i - 1) == '+' ? i - 1 : i;
      int digits = 0;
      int end = i;
      int j = i;
      while (j < n) {
        if (Character.isDigit(s.charAt(j))) {
          digits++;
          j++;
          end = j;
          continue;
        }
        int k = j;
        while (k < n && k - j < 2 && isSeparator(s.charAt(k))) {
          k++;
        }
        if (k > j && k < n && Character.isDigit(s.charAt(k))) {
          j = k;
        } else {
          break;
        }
      }
      if (digits >= MIN_DIGITS) {
        if (out == null) {
          out = new StringBuilder(n);
        }
        out.append(s, copied, start).append(REPLACEMENT);
        copied = end;
      }
      i = end;
    }
    if (out == null) {
      return s;
    }
    return out.append(s, copied, n).toString();
  }

  private static boolean isSeparator(char c) {
    return c == ' ' || c == '-' || c == '(' || c == ')';
  }

  @Override
  public String toString() {
    return name();
  }
}
