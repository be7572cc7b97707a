package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.StringLength;

class RequestIdsTest {
  private static final String SAFE_CHARS =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:@/+=-";

  @Property(tries = 2000)
  void acceptOfAnyStringYieldsValidIdAndSanitizedRejectedValue(@ForAll("hostile") String header) {
    RequestIds.Accepted accepted = RequestIds.accept(header);
    assertThat(RequestIds.isValid(accepted.id())).isTrue();
    if (RequestIds.isValid(header)) {
      assertThat(accepted.id()).isEqualTo(header);
      assertThat(accepted.generated()).isFalse();
      assertThat(accepted.rejectedValue()).isNull();
      return;
    }
    assertThat(accepted.generated()).isTrue();
    assertThat(accepted.id()).startsWith(RequestIds.PREFIX_REQUEST);
    String rejected = accepted.rejectedValue();
    if (header.isBlank()) {
      assertThat(rejected).isNull();
      return;
    }
    assertThat(rejected).isNotNull();
    assertThat(rejected.length()).isLessThanOrEqualTo(65);
    String body = rejected.endsWith("\u2026") ? rejected.substring(0, rejected.length() - 1) : rejected;
    assertThat(body.length()).isLessThanOrEqualTo(64);
    assertThat(body.chars()).allMatch(c -> SAFE_CHARS.indexOf(c) >= 0 || c == '_');
    assertThat(rejected.endsWith("\u2026")).isEqualTo(header.length() > 64);
    assertThat(body).hasSize(Math.min(64, header.length()));
  }

  @Provide
  Arbitrary<String> hostile() {
    return Arbitraries.oneOf(
        Arbitraries.strings().all().ofMaxLength(200),
        Arbitraries.strings().withChars("\r\n\u0000 \t\u2028\u202e\ud83d\ude00a-Z9").ofMaxLength(40),
        Arbitraries.strings().withChars(SAFE_CHARS).ofMinLength(0).ofMaxLength(140),
        Arbitraries.strings().all().ofMinLength(10_000).ofMaxLength(10_240),
        Arbitraries.of("", " ", "\r\n", "\u0000", "req-1\r\nX-Injected: yes", "ok-id", "caf\u00e9"));
  }

  @Property(tries = 500)
  void validIdsAreAcceptedUnchanged(
      @ForAll("safeIds") String id) {
    RequestIds.Accepted accepted = RequestIds.accept(id);
    assertThat(accepted).isEqualTo(new RequestIds.Accepted(id, false, null));
  }

  @Provide
  Arbitrary<String> safeIds() {
    return Arbitraries.strings().withChars(SAFE_CHARS).ofMinLength(1).ofMaxLength(RequestIds.MAX_LENGTH);
  }

  @Property(tries = 200)
  void idsLongerThanMaxLengthAreRejected(@ForAll @StringLength(min = 129, max = 400) String longId) {
    String safe = longId.replaceAll("[^A-Za-z0-9]", "a");
    assertThat(RequestIds.isValid(safe)).isFalse();
    assertThat(RequestIds.accept(safe).generated()).isTrue();
  }

  @Example
  void rejectedValueReplacesUnsafeCharactersAndMarksTruncation() {
    assertThat(RequestIds.accept("bad id\r\n").rejectedValue()).isEqualTo("bad_id__");
    assertThat(RequestIds.accept("x".repeat(64) + " ").rejectedValue()).isEqualTo("x".repeat(64) + "\u2026");
    assertThat(RequestIds.accept(null).rejectedValue()).isNull();
    assertThat(RequestIds.accept("   ").rejectedValue()).isNull();
    assertThat(RequestIds.accept("").generated()).isTrue();
  }

  @Example
  void generatedIdsAreUniqueOverOneMillion() {
    int n = 1_000_000;
    Set<String> seen = new HashSet<>(n * 2);
    for (int i = 0; i < n; i++) {
      String id = RequestIds.generate();
      if (!seen.add(id)) {
        throw new AssertionError("duplicate request ID after " + i + " IDs: " + id);
      }
    }
    assertThat(seen).hasSize(n);
  }

  @Property(tries = 300)
  void generatedIdsAreValidAndCarryTheirPrefix(@ForAll("prefixes") String prefix) {
    String id = RequestIds.generate(prefix);
    assertThat(RequestIds.isValid(id)).isTrue();
    assertThat(id).startsWith(prefix);
    assertThat(id.substring(prefix.length())).hasSize(24).matches("[0-9a-hjkmnp-tv-z]{24}");
  }

  @Provide
  Arbitrary<String> prefixes() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            RequestIds.PREFIX_REQUEST, RequestIds.PREFIX_BATCH, RequestIds.PREFIX_API, RequestIds.PREFIX_WEBSOCKET),
        Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789").ofMinLength(1).ofMaxLength(16)
            .map(s -> s + "-"));
  }

  @Example
  void defaultGenerateUsesRequestPrefix() {
    assertThat(RequestIds.generate()).startsWith("req-").hasSize(4 + 24);
  }

  @Example
  void invalidPrefixesAreRejectedWithClearMessage() {
    for (String bad : new String[] {"", "-", "req", "Req-", "re q-", "a_b-", "x".repeat(17) + "-", "req--", "req-\n"}) {
      assertThatThrownBy(() -> RequestIds.generate(bad))
          .as("prefix '%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("[a-z0-9]");
    }
    assertThat(RequestIds.generate("x".repeat(16) + "-")).startsWith("x".repeat(16) + "-");
    assertThatThrownBy(() -> RequestIds.generate(null)).isInstanceOf(NullPointerException.class);
  }

  @Property(tries = 300)
  void stringsWithAnyUnsafeCharacterAreInvalid(
      @ForAll("safeIds") String safe, @ForAll("unsafeChars") char bad, @ForAll int position) {
    int at = Math.floorMod(position, safe.length() + 1);
    String withBad = safe.substring(0, at) + bad + safe.substring(at);
    assertThat(RequestIds.isValid(withBad)).isFalse();
  }

  @Provide
  Arbitrary<Character> unsafeChars() {
    return Arbitraries.chars().all().filter(c -> SAFE_CHARS.indexOf(c) < 0);
  }
}
