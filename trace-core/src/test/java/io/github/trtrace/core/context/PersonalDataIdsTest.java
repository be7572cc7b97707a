package io.github.trtrace.core.context;

import io.github.trtrace.core.context.RequestIds.PersonalDataIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PersonalDataIdsTest {
  private static final byte[] KEY = "0123456789abcdef-test-key".getBytes(StandardCharsets.UTF_8);
  private final PersonalDataIds ids = PersonalDataIds.hashingWith(KEY);

  @Test
  void anEmailAddressIdIsReplacedByAStableKeyedHash() {
    RequestIds.Accepted a = ids.accept("alice@example.com");
    assertThat(a.id()).startsWith("pid-").hasSize(28).doesNotContain("alice").doesNotContain("example");
    assertThat(RequestIds.isValid(a.id())).isTrue();
    assertThat(ids.accept("alice@example.com").id()).as("stable").isEqualTo(a.id());
    assertThat(PersonalDataIds.hashingWith("another-key-0123456789".getBytes(StandardCharsets.UTF_8))
            .accept("alice@example.com").id())
        .as("keyed").isNotEqualTo(a.id());
    assertThat(a.generated()).isFalse();
  }

  @Test
  void phoneAndAccountNumbersAreHashedOrdinaryIdsKept() {
    assertThat(ids.accept("+4915112345678").id()).startsWith("pid-");
    assertThat(ids.accept("acct-123456789").id()).startsWith("pid-");
    assertThat(ids.accept("order-7f3a").id()).isEqualTo("order-7f3a");
    assertThat(ids.accept("req-12345678").id()).as("eight digits are not personal").isEqualTo("req-12345678");
    String uuid = "3f2b9c1e-8a4d-4f6b-9c2e-1a2b3c4d5e6f";
    assertThat(ids.accept(uuid).id()).isEqualTo(uuid);
  }

  @Test
  void aRejectedValueCarryingAnAddressIsHashedToo() {
    RequestIds.Accepted a = ids.accept("mail me: bob@example.org");
    assertThat(a.generated()).isTrue();
    assertThat(a.rejectedValue()).startsWith("pid-").doesNotContain("bob");
    assertThat(ids.accept("bad id").rejectedValue()).isEqualTo("bad_id");
  }

  @Test
  void aShortKeyIsRefused() {
    assertThatThrownBy(() -> PersonalDataIds.hashingWith(new byte[8])).isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * A rejected header value is scanned for personal data whatever its length (only the server bounds it):
   * the scan must be linear. The regular expression it used backtracked quadratically: 8 KB of letters took
   * about half a second, this megabyte hours.
   */
  @Test
  void aLongRejectedHeaderValueIsScannedInLinearTime() {
    String header = "a".repeat(1_000_000) + " ";
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
      assertThat(PersonalDataIds.looksPersonal(header)).isFalse();
      RequestIds.Accepted a = ids.accept(header);
      assertThat(a.generated()).isTrue();
      assertThat(a.rejectedValue()).hasSize(65).startsWith("aaaa");
      assertThat(PersonalDataIds.looksPersonal("x".repeat(1_000_000) + "@example.com")).isTrue();
      assertThat(PersonalDataIds.looksPersonal("@a".repeat(500_000))).isFalse();
    });
  }

  /** The scan says what the expressions {@code [A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+} and {@code \d{9,}} find. */
  @Test
  void theScanAgreesWithTheRegularExpressionsItReplaced() {
    Pattern email = Pattern.compile("[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+");
    Pattern digits = Pattern.compile("\\d{9,}");
    String alphabet = "aZ9-._%+@@..  1111\u0661é_/";
    Random random = new Random(42);
    for (int round = 0; round < 200_000; round++) {
      int length = random.nextInt(24);
      StringBuilder sb = new StringBuilder(length);
      for (int i = 0; i < length; i++) {
        sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String s = sb.toString();
      boolean expected = email.matcher(s).find() || digits.matcher(s).find();
      assertThat(PersonalDataIds.looksPersonal(s)).as("'%s'", s).isEqualTo(expected);
    }
    assertThat(PersonalDataIds.looksPersonal("a@b.c")).isTrue();
    assertThat(PersonalDataIds.looksPersonal("a@b.")).isFalse();
    assertThat(PersonalDataIds.looksPersonal("@b.c")).isFalse();
    assertThat(PersonalDataIds.looksPersonal("a@.b.c")).isFalse();
    assertThat(PersonalDataIds.looksPersonal("12345678")).isFalse();
    assertThat(PersonalDataIds.looksPersonal("x123456789")).isTrue();
  }
}
