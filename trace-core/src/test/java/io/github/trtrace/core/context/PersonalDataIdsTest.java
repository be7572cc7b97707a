package io.github.trtrace.core.context;

import io.github.trtrace.core.context.RequestIds.PersonalDataIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
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
}
