package io.github.trtrace.core.context;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Request-ID acceptance that keeps personal data out of the records. A client chooses its own
 * {@value RequestIds#HEADER}; some put an e-mail address, a phone or an account number in it. {@link
 * #accept} validates like {@link RequestIds#accept}, and then an ID (or rejected value) that looks
 * like personal data — an e-mail address, or a run of nine or more digits — is replaced by {@code
 * pid-} and 24 hex digits of HMAC-SHA256 under your key: the same client ID always maps to the same
 * record ID (services sharing the key can still correlate), but the records no longer carry the
 * address. Keep the key secret: with it, a guessed address can be checked against the hash.
 *
 * <pre>{@code
 * PersonalDataIds ids = PersonalDataIds.hashingWith(keyFromYourSecretStore);
 * ids.accept("alice@example.com").id();   // "pid-3f1c…" (24 hex digits), stable for this key
 * ids.accept("order-7f3a").id();          // "order-7f3a": not personal data, kept
 * }</pre>
 */
public final class PersonalDataIds {
  /** Prefix of a hashed ID. */
  public static final String PREFIX = "pid-";

  private static final Pattern EMAIL = Pattern.compile("[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+");
  private static final Pattern LONG_DIGIT_RUN = Pattern.compile("\\d{9,}");
  private static final int HEX_DIGITS = 24;

  private final SecretKeySpec key;

  private PersonalDataIds(byte[] key) {
    this.key = new SecretKeySpec(key.clone(), "HmacSHA256");
  }

  /**
   * Hashes personal-data IDs with HMAC-SHA256 under {@code key}.
   *
   * @throws IllegalArgumentException if the key is shorter than 16 bytes
   */
  public static PersonalDataIds hashingWith(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length < 16) {
      throw new IllegalArgumentException("the key needs at least 16 bytes (128 bits): " + key.length);
    }
    return new PersonalDataIds(key);
  }

  /** Whether {@code id} looks like personal data: an e-mail address, or nine or more digits in a row. */
  public static boolean looksPersonal(@Nullable String id) {
    return id != null && (EMAIL.matcher(id).find() || LONG_DIGIT_RUN.matcher(id).find());
  }

  /** {@link RequestIds#accept}, then personal-data IDs and rejected values hashed. Never throws. */
  public RequestIds.Accepted accept(@Nullable String headerValue) {
    RequestIds.Accepted a = RequestIds.accept(headerValue);
    String id = looksPersonal(a.id()) ? hash(a.id()) : a.id();
    String rejected = a.rejectedValue();
    if (rejected != null && looksPersonal(headerValue)) {
      rejected = hash(headerValue);
    }
    return new RequestIds.Accepted(id, a.generated(), rejected);
  }

  private String hash(String value) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      byte[] digest = mac.doFinal(value.getBytes(StandardCharsets.UTF_8));
      StringBuilder out = new StringBuilder(PREFIX.length() + HEX_DIGITS).append(PREFIX);
      for (int i = 0; i < HEX_DIGITS / 2; i++) {
        out.append(Character.forDigit((digest[i] >> 4) & 0xF, 16)).append(Character.forDigit(digest[i] & 0xF, 16));
      }
      return out.toString();
    } catch (GeneralSecurityException e) {
      // HmacSHA256 is required of every Java platform; fail closed all the same
      return RequestIds.generate();
    }
  }

  @Override
  public String toString() {
    return "PersonalDataIds[HmacSHA256]";
  }
}
