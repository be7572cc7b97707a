package io.github.trtrace.core.redact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.core.internal.inspect.InputInspector;
import io.github.trtrace.core.internal.json.UnicodeChars;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

class RedactorTest {
  private static final Redactor R = Redactor.defaults();
  private static final String OPENAI_KEY = "sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a";
  private static final String GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";

  @Test
  void emailAddressesBecomeEmailTokens() {
    assertThat(R.redact("write to bob.smith+ml@mail.example.co.uk today")).isEqualTo("write to [EMAIL] today");
    assertThat(R.redact("<Jane_Doe@corp.io>")).isEqualTo("<[EMAIL]>");
    assertThat(R.redact("user@localhost, an @ sign, ann@ and @handle")).isEqualTo("user@localhost, an @ sign, ann@ and @handle");
  }

  @Test
  void openAiStyleKeysBecomeSecrets() {
    assertThat(R.redact("key " + OPENAI_KEY + " please")).isEqualTo("key [SECRET] please");
    assertThat(R.redact("sk-ant-api03-Abc123Def456Ghi789")).isEqualTo("[SECRET]");
    assertThat(R.redact("task-management-framework and sk-learn-compatible-estimators"))
        .isEqualTo("task-management-framework and sk-learn-compatible-estimators");
  }

  @Test
  void bearerTokensBecomeSecretsButTheWordStays() {
    assertThat(R.redact("Authorization: Bearer abcDEF123456ghiJKL789.x-y_z"))
        .isEqualTo("Authorization: Bearer [SECRET]");
    assertThat(R.redact("the bearer of bad news")).isEqualTo("the bearer of bad news");
  }

  @Test
  void awsAccessKeyIdsBecomeSecrets() {
    assertThat(R.redact("id=AKIAIOSFODNN7EXAMPLE;")).isEqualTo("id=[SECRET];");
    assertThat(R.redact("ASIAY34FZKBOKMUTVV7A")).isEqualTo("[SECRET]");
    assertThat(R.redact("AKIA is a prefix, AKIA1234 is too short")).isEqualTo("AKIA is a prefix, AKIA1234 is too short");
  }

  @Test
  void githubTokensBecomeSecrets() {
    assertThat(R.redact("token? " + GITHUB_TOKEN)).isEqualTo("token? [SECRET]");
    assertThat(R.redact("github_pat_11ABCDEFG0123456789_abcdefghijklmnop")).isEqualTo("[SECRET]");
    assertThat(R.redact("ghp_short and gho_")).isEqualTo("ghp_short and gho_");
  }

  @Test
  void jsonWebTokensBecomeSecrets() {
    String jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    assertThat(R.redact("cookie " + jwt + " end")).isEqualTo("cookie [SECRET] end");
    assertThat(R.redact("eyJust kidding")).isEqualTo("eyJust kidding");
  }

  @Test
  void longHexAndBase64SecretsBecomeSecrets() {
    assertThat(R.redact("hmac 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ok"))
        .isEqualTo("hmac [SECRET] ok");
    assertThat(R.redact("aws_secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
        .isEqualTo("aws_secret [SECRET]");
    String ordinary = "deadbeef /usr/local/lib/python3.11/site-packages/torch internationalization-and-localization-guidelines";
    assertThat(R.redact(ordinary)).isEqualTo(ordinary);
  }

  @Test
  void valuesOfSecretKeysBecomeSecretsAndTheKeysStay() {
    assertThat(R.redact("login password=hunter2&user=bob")).isEqualTo("login password=[SECRET]&user=bob");
    assertThat(R.redact("{\"api_key\": \"abc def\", \"n\": 1}")).isEqualTo("{\"api_key\": [SECRET], \"n\": 1}");
    assertThat(R.redact("TOKEN: xyz")).isEqualTo("TOKEN: [SECRET]");
    assertThat(R.redact("secret='s3 cr3t'")).isEqualTo("secret=[SECRET]");
    String prose = "the password policy says max tokens: 100 and secrets are kept";
    assertThat(R.redact(prose)).isEqualTo(prose);
  }

  @Test
  void valuesOfSecretKeysInsideJsonStringsAreRedactedWhole() {
    // a JSON value holding an escaped quote: the whole value goes, not only what precedes the escape
    assertThat(R.redact("{\"password\": \"ab\\\"cd-rest-of-secret\"}")).isEqualTo("{\"password\": [SECRET]}");
    // a request body whose prompt holds JSON: keys and values are written with escaped quotes
    assertThat(R.redact("{\"prompt\": \"config {\\\"password\\\": \\\"hunter2\\\"}\"}"))
        .doesNotContain("hunter2");
  }

  @Test
  void longDigitRunsBecomeNumbers() {
    assertThat(R.redact("card 4111 1111 1111 1111 exp")).isEqualTo("card [NUMBER] exp");
    assertThat(R.redact("call +1 (555) 123-4567 now")).isEqualTo("call [NUMBER] now");
    assertThat(R.redact("order 12345678.")).isEqualTo("order [NUMBER].");
    assertThat(R.redact("in 2026 we had 12 GPUs, 1234567 tokens, 4 - 5 days"))
        .isEqualTo("in 2026 we had 12 GPUs, 1234567 tokens, 4 - 5 days");
  }

  @Test
  void userRulesRunBeforeTheBuiltInOnesAndMayReferToGroups() {
    Redactor r = Redactor.builder()
        .rule("customer", Pattern.compile("CUST-\\d{8}"), "[CUSTOMER]")
        .rule(Pattern.compile("(user)=(\\w+)"), "$1=[USER]")
        .build();
    assertThat(r.redact("CUST-12345678 user=alice mail a@b.io")).isEqualTo("[CUSTOMER] user=[USER] mail [EMAIL]");
  }

  @Test
  void defaultsCanBeSwitchedOff() {
    Redactor r = Redactor.builder().defaults(false).rule(Pattern.compile("alice"), "[NAME]").build();
    assertThat(r.redact("alice 12345678 a@b.io")).isEqualTo("[NAME] 12345678 a@b.io");
  }

  @Test
  void badReplacementsAreRejectedAtConfigurationTime() {
    assertThatThrownBy(() -> Redactor.builder().rule(Pattern.compile("(a)"), "$2"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group 2");
    assertThatThrownBy(() -> Redactor.builder().rule(Pattern.compile("a"), "cost $"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'$'");
    assertThatThrownBy(() -> Redactor.builder().rule(Pattern.compile("a"), "x\\"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Redactor.builder().maxDigestChars(101)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Redactor.builder().maxScanChars(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Redactor.builder().rule(null, "x")).isInstanceOf(NullPointerException.class);
  }

  @Test
  void aRuleThatFailsAtRunTimeFailsClosed() {
    Redactor r = Redactor.builder().rule(Pattern.compile("a"), "${nosuchgroup}").build();
    assertThat(r.redact("a secret")).isEqualTo("[REDACTION_FAILED]");
    assertThat(r.digest("a secret")).isEqualTo("[REDACTION_FAILED]");
  }

  @Test
  void digestMakesInvisibleAndControlCharactersVisible() {
    assertThat(R.digest("a\u202Eb\u200Bc\u0000d\ne\tf\uD800g"))
        .isEqualTo("a⟦U+202E⟧b⟦U+200B⟧c⟦U+0000⟧d e f⟦U+D800⟧g");
    assertThat(R.digest("emoji 😀 stays")).isEqualTo("emoji 😀 stays");
  }

  @Test
  void everyInvisibleCharacterOfIssue11IsAMarkerInTheDigestNeverRawNorU_FFFD() {
    int[] invisible = {0xE0041, 0xE007F, 0x034F, 0xFE0F, 0x3164, 0x00AD, 0x2061, 0x2062, 0x2063, 0x2064,
        0x180E, 0xFFF9, 0xFFFA, 0xFFFB, 0x2028, 0x2029, 0x202E, 0x0000, 0x200B};
    for (int cp : invisible) {
      String d = R.digest(new StringBuilder("x").appendCodePoint(cp).append('y').toString());
      assertThat(d).as("U+%04X", cp).isEqualTo("x⟦U+" + String.format("%04X", cp) + "⟧y");
      assertThat(d).doesNotContain("\uFFFD");
    }
  }

  @Test
  void markersAreNeverCutAndTheDigestStaysWithinItsBound() {
    String many = "\u202E".repeat(50);
    String d = R.digest(many);
    assertThat(d).hasSizeLessThanOrEqualTo(100).endsWith("…");
    assertThat(d.substring(0, d.length() - 1)).matches("(⟦U\\+202E⟧)+");
    String tags = new StringBuilder("p").appendCodePoint(0xE0069).toString().repeat(30);
    assertThat(R.digest(tags)).hasSizeLessThanOrEqualTo(100).matches("(p⟦U\\+E0069⟧)*p?(⟦U\\+E0069⟧)?…");
  }

  @Test
  void digestIsCutToTheLimitWithAnEllipsisCounted() {
    String d = R.digest("word ".repeat(100));
    assertThat(d).hasSize(100).endsWith("\u2026").startsWith("word word");
    assertThat(Redactor.builder().maxDigestChars(10).build().digest("abcdefghijklmnop")).isEqualTo("abcdefghi\u2026");
    assertThat(R.digest("short")).isEqualTo("short");
  }

  @Test
  void digestNeverSplitsASurrogatePair() {
    String d = R.digest("x".repeat(98) + "😀😀😀");
    assertThat(d).isEqualTo("x".repeat(98) + "\u2026");
    assertThat(R.digest("x".repeat(97) + "😀😀")).isEqualTo("x".repeat(97) + "😀\u2026");
  }

  @Test
  void aSecretStraddlingTheDigestCutIsNotPartiallyVisible() {
    for (int offset = 60; offset <= 110; offset++) {
      String input = "y".repeat(offset) + " " + OPENAI_KEY + " " + GITHUB_TOKEN + " tail";
      String d = R.digest(input);
      assertThat(d).hasSizeLessThanOrEqualTo(100).doesNotContain("sk-").doesNotContain("4f9a").doesNotContain("ghp_")
          .doesNotContain("a1B2");
    }
  }

  @Test
  void aSecretStraddlingTheScanLimitIsDroppedNotLeaked() {
    Redactor r = Redactor.builder().maxScanChars(200).build();
    for (int offset = 160; offset <= 200; offset++) {
      String input = "z".repeat(offset) + " " + OPENAI_KEY + " end";
      assertThat(r.redact(input)).doesNotContain("sk-").doesNotContain("4f9a").hasSizeLessThanOrEqualTo(201);
      assertThat(r.digest(input)).doesNotContain("sk-");
    }
    String card = "p".repeat(190) + " 4111 1111 1111 1111";
    assertThat(r.redact(card)).doesNotContain("4111").endsWith("\u2026");
  }

  @Test
  void onlyABoundedPrefixIsReturnedByRedact() {
    String big = "hello world ".repeat(2_000);
    String out = R.redact(big);
    assertThat(out).hasSizeLessThanOrEqualTo(8_193).endsWith("\u2026");
  }

  @Test
  void hostileInputsFinish() {
    for (String unit : new String[] {"a", "1", "1 ", "a@", "a.", "@a.", "sk-", "eyJa.", "=", "password=x "}) {
      String s = unit.repeat(8_192 / unit.length());
      assertThat(R.digest(s)).hasSizeLessThanOrEqualTo(100);
    }
  }

  @Test
  void noneRedactsNothingButTheDigestIsStillShortAndPrintable() {
    Redactor none = Redactor.none();
    String text = "bob@example.com " + OPENAI_KEY;
    assertThat(none.redact(text)).isEqualTo(text);
    assertThat(none.digest(text + "\u202E")).isEqualTo(text + "⟦U+202E⟧");
    assertThat(none.digest("q".repeat(10_000))).hasSize(100);
    String big = "r".repeat(50_000);
    assertThat(none.redact(big)).isEqualTo(big);
  }

  @Provide
  Arbitrary<String> anyInput() {
    Arbitrary<Character> tricky = Arbitraries.of('\uD800', '\uDC00', '\uD83D', '\uDE00', '\u202E', '\u0000', '\n', ' ', '@', '1');
    Arbitrary<String> chars = Arbitraries.frequencyOf(Tuple.of(1, tricky), Tuple.of(3, Arbitraries.chars().all()))
        .list().ofMaxSize(300).map(RedactorTest::join);
    Arbitrary<String> large = Arbitraries.strings().all().ofMinLength(9_000).ofMaxLength(10_240);
    Arbitrary<String> emoji = Arbitraries.of("😀", "x", " ", "世", "sk-", "4", "a@b.io ").list().ofMaxSize(200)
        .map(l -> String.join("", l));
    return Arbitraries.frequencyOf(Tuple.of(4, chars), Tuple.of(1, large), Tuple.of(2, emoji));
  }

  private static String join(java.util.List<Character> cs) {
    StringBuilder b = new StringBuilder(cs.size());
    cs.forEach(b::append);
    return b.toString();
  }

  @Property(tries = 500)
  void digestIsAtMost100PrintableCharactersForAnyInput(@ForAll("anyInput") String input) {
    String d = R.digest(input);
    assertThat(d.length()).isLessThanOrEqualTo(100);
    for (int i = 0; i < d.length(); i++) {
      char c = d.charAt(i);
      if (Character.isHighSurrogate(c)) {
        assertThat(i + 1 < d.length() && Character.isLowSurrogate(d.charAt(i + 1))).as("pair at %d", i).isTrue();
        i++;
      } else {
        assertThat(Character.isSurrogate(c) || UnicodeChars.isControl(c) || UnicodeChars.isBidiControl(c)
            || UnicodeChars.isZeroWidth(c) || c == '\n' || c == '\r' || c == '\t').as("char %04x", (int) c).isFalse();
      }
    }
    assertThat(InputInspector.flags(d, 100)).isEmpty();
    assertThat(Redactor.none().digest(input).length()).isLessThanOrEqualTo(100);
  }
}
