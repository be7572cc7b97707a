package io.github.trtrace.core.context;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Request IDs: validates a caller's {@value #HEADER} and generates new ones.
 *
 * <pre>{@code
 * RequestIds.Accepted id = RequestIds.accept(request.getHeader(RequestIds.HEADER));
 * response.setHeader(RequestIds.HEADER, id.id());
 * id.toContext().model("llama-8b").run(() -> handle(request));
 * String batchId = RequestIds.generate(RequestIds.PREFIX_BATCH);   // "batch-" + 24 characters
 * }</pre>
 *
 * <p><b>Generated IDs</b> are a source prefix and 120 random bits written as 24 lowercase Crockford base32
 * characters ({@code 0-9a-z} without {@code i l o u}: URL safe, case-insensitive, no look-alikes), e.g.
 * {@code req-3k9v0m2q8xj4r7tn5c1hw6bzfa}. Why this design:
 *
 * <ul>
 *   <li>120 bits from a cryptographic generator: among 10<sup>12</sup> IDs the chance of any collision is
 *       about 4&middot;10<sup>-13</sup>, across any number of JVMs, with no coordination. IDs also appear in
 *       responses and logs, so they must not let anyone predict other requests' IDs.
 *   <li>Not {@link ThreadLocalRandom} or {@link java.util.SplittableRandom}: 64 bits of state per stream, not
 *       unpredictable, and streams of JVMs started alike (container images, snapshots) can be correlated.
 *   <li>Not UUIDv7: it leaks the creation time and keeps only 74 random bits; sortable IDs are not needed
 *       because every record carries a timestamp.
 *   <li>Not a {@link SecureRandom} call per ID: that takes a lock inside the generator every time. Instead a
 *       few stripes (twice the core count, at most 64), each with its own {@code SecureRandom} and a
 *       buffer refilled every 64 IDs; a {@link ReentrantLock} guards each stripe (no pinning of virtual
 *       threads) and the stripe is picked at random, so threads rarely meet. On Linux the default
 *       {@code SecureRandom} reads the non-blocking kernel generator.
 * </ul>
 *
 * <p><b>Valid caller IDs</b> ({@link #isValid}): 1 to {@value #MAX_LENGTH} characters from
 * {@code [A-Za-z0-9._:@/+=-]} — no spaces, control characters (CR, LF, NUL) or non-ASCII, so an ID can be
 * written to logs, headers and JSON unescaped and cannot forge log lines.
 */
public final class RequestIds {
  /** The HTTP header carrying a request ID. */
  public static final String HEADER = "X-Request-ID";
  /** Prefix of IDs generated for single requests. */
  public static final String PREFIX_REQUEST = "req-";
  /** Prefix of IDs generated for batches. */
  public static final String PREFIX_BATCH = "batch-";
  /** Prefix of IDs generated for API calls. */
  public static final String PREFIX_API = "api-";
  /** Prefix of IDs generated for WebSocket sessions. */
  public static final String PREFIX_WEBSOCKET = "ws-";
  /** Longest accepted request ID. */
  public static final int MAX_LENGTH = 128;
  /** Attribute holding a rejected caller ID, sanitized and truncated. */
  public static final String REJECTED_ATTRIBUTE = "rejected_request_id";

  static final int REJECTED_MAX_CHARS = 64;
  static final char TRUNCATION_MARK = '\u2026';
  private static final int RANDOM_BYTES = 15;
  private static final int MAX_PREFIX_NAME = 16;
  private static final char[] BASE32 = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
  private static final boolean[] SAFE = new boolean[128];

  static {
    for (char c = 'a'; c <= 'z'; c++) {
      SAFE[c] = true;
      SAFE[Character.toUpperCase(c)] = true;
    }
    for (char c = '0'; c <= '9'; c++) {
      SAFE[c] = true;
    }
    for (char c : "._:@/+=-".toCharArray()) {
      SAFE[c] = true;
    }
  }

  private RequestIds() {}

  /** A new ID for a single request: {@code "req-"} and 24 random base32 characters. */
  public static String generate() {
    return generateWith(PREFIX_REQUEST);
  }

  /**
   * A new ID with a source prefix such as {@link #PREFIX_BATCH}.
   *
   * @param prefix 1 to 16 characters {@code [a-z0-9]} followed by {@code '-'}
   * @throws IllegalArgumentException if {@code prefix} does not have that form
   */
  public static String generate(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (!isValidPrefix(prefix)) {
      throw new IllegalArgumentException(
          "request ID prefix must be 1 to " + MAX_PREFIX_NAME + " characters [a-z0-9] followed by '-', e.g. "
              + PREFIX_BATCH + ": '" + sanitize(prefix) + "'");
    }
    return generateWith(prefix);
  }

  /** True when {@code id} is 1 to {@value #MAX_LENGTH} characters from {@code [A-Za-z0-9._:@/+=-]}. */
  public static boolean isValid(@Nullable String id) {
    if (id == null || id.isEmpty() || id.length() > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      if (!isSafe(id.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Validates a caller's request ID (typically the {@value #HEADER} header). A valid one is kept unchanged;
   * otherwise a {@code req-} ID is generated and the rejected value is kept sanitized (each character
   * outside the safe set replaced by {@code '_'}) and cut to 64 characters plus {@code '…'}; a null or
   * blank value is simply replaced ({@code rejectedValue} null). Never throws.
   */
  public static Accepted accept(@Nullable String headerValue) {
    if (isValid(headerValue)) {
      return new Accepted(headerValue, false, null);
    }
    String rejected = headerValue == null || headerValue.isBlank() ? null : sanitize(headerValue);
    return new Accepted(generate(), true, rejected);
  }

  /**
   * The outcome of {@link #accept}: the ID to use, whether it was generated, and the rejected caller value.
   *
   * <pre>{@code
   * Accepted a = RequestIds.accept("bad id\r\n");  // a.generated() == true, a.rejectedValue() == "bad_id__"
   * }</pre>
   *
   * @param id the request ID to use, always {@linkplain #isValid valid}
   * @param generated true when {@code id} was generated rather than taken from the caller
   * @param rejectedValue the caller's invalid value, sanitized and truncated; null when none was rejected
   */
  public record Accepted(String id, boolean generated, @Nullable String rejectedValue) {
    /** Checks that {@code id} is present. */
    public Accepted {
      Objects.requireNonNull(id, "id");
    }

    /** A context builder for {@link #id()}, with {@value RequestIds#REJECTED_ATTRIBUTE} when a value was rejected. */
    public RequestContext.Builder toContext() {
      RequestContext.Builder builder = RequestContext.with(id);
      if (rejectedValue != null) {
        builder.attribute(REJECTED_ATTRIBUTE, rejectedValue);
      }
      return builder;
    }
  }

  static String sanitize(String value) {
    int n = Math.min(value.length(), REJECTED_MAX_CHARS);
    StringBuilder out = new StringBuilder(n + 1);
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      out.append(isSafe(c) ? c : '_');
    }
    if (value.length() > REJECTED_MAX_CHARS) {
      out.append(TRUNCATION_MARK);
    }
    return out.toString();
  }

  static boolean isSafe(char c) {
    return c < SAFE.length && SAFE[c];
  }

  private static boolean isValidPrefix(String prefix) {
    int name = prefix.length() - 1;
    if (name < 1 || name > MAX_PREFIX_NAME || prefix.charAt(name) != '-') {
      return false;
    }
    for (int i = 0; i < name; i++) {
      char c = prefix.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
        return false;
      }
    }
    return true;
  }

  private static String generateWith(String prefix) {
    byte[] random = new byte[RANDOM_BYTES];
    Entropy.next(random);
    char[] out = new char[prefix.length() + RANDOM_BYTES * 8 / 5];
    prefix.getChars(0, prefix.length(), out, 0);
    int p = prefix.length();
    for (int group = 0; group < RANDOM_BYTES; group += 5) {
      long bits = 0;
      for (int i = 0; i < 5; i++) {
        bits = (bits << 8) | (random[group + i] & 0xFF);
      }
      for (int shift = 35; shift >= 0; shift -= 5) {
        out[p++] = BASE32[(int) (bits >>> shift) & 31];
      }
    }
    return new String(out);
  }

  /** Striped, buffered {@link SecureRandom} bytes: see the class comment for why. */
  private static final class Entropy {
    private static final int BUFFER_BYTES = RANDOM_BYTES * 64;
    private static final Stripe[] STRIPES = createStripes();
    private static final int MASK = STRIPES.length - 1;

    private static Stripe[] createStripes() {
      int wanted = Math.min(64, Math.max(2, Runtime.getRuntime().availableProcessors() * 2));
      int n = Integer.highestOneBit(wanted - 1) << 1;
      Stripe[] stripes = new Stripe[n];
      for (int i = 0; i < n; i++) {
        stripes[i] = new Stripe();
      }
      return stripes;
    }

    static void next(byte[] out) {
      Stripe stripe = STRIPES[ThreadLocalRandom.current().nextInt() & MASK];
      stripe.lock.lock();
      try {
        if (stripe.position + out.length > BUFFER_BYTES) {
          stripe.random.nextBytes(stripe.buffer);
          stripe.position = 0;
        }
        System.arraycopy(stripe.buffer, stripe.position, out, 0, out.length);
        Arrays.fill(stripe.buffer, stripe.position, stripe.position + out.length, (byte) 0);
        stripe.position += out.length;
      } finally {
        stripe.lock.unlock();
      }
    }

    private static final class Stripe {
      final ReentrantLock lock = new ReentrantLock();
      final SecureRandom random = new SecureRandom();
      final byte[] buffer = new byte[BUFFER_BYTES];
      int position = BUFFER_BYTES;
    }
  }

  /**
   * The option that keeps personal data out of the records: an acceptor that validates like {@link
   * #accept} and replaces an ID that looks like personal data by a keyed hash ({@link
   * PersonalDataIds}). Use its {@code accept} where you would call {@link #accept}.
   *
   * <pre>{@code
   * RequestIds.PersonalDataIds ids = RequestIds.hashingPersonalData(keyFromYourSecretStore);
   * String id = ids.accept(request.getHeader(RequestIds.HEADER)).id();
   * }</pre>
   */
  public static PersonalDataIds hashingPersonalData(byte[] key) {
    return PersonalDataIds.hashingWith(key);
  }

  /**
   * Request-ID acceptance that keeps personal data out of the records. A client chooses its own
   * {@value #HEADER}; some put an e-mail address, a phone or an account number in it. {@link
   * #accept} validates like {@link RequestIds#accept}, and then an ID (or rejected value) that looks
   * like personal data — an e-mail address, or a run of nine or more digits — is replaced by {@code
   * pid-} and 24 hex digits of HMAC-SHA256 under your key: the same client ID always maps to the same
   * record ID (services sharing the key can still correlate), but the records no longer carry the
   * address. Keep the key secret: with it, a guessed address can be checked against the hash.
   *
   * <pre>{@code
   * RequestIds.PersonalDataIds ids = RequestIds.hashingPersonalData(keyFromYourSecretStore);
   * ids.accept("alice@example.com").id();   // "pid-3f1c…" (24 hex digits), stable for this key
   * ids.accept("order-7f3a").id();          // "order-7f3a": not personal data, kept
   * }</pre>
   */
  public static final class PersonalDataIds {
    /** Prefix of a hashed ID. */
    public static final String PREFIX = "pid-";

    /** Digits in a row that make an ID look like a phone or account number. */
    private static final int LONG_DIGIT_RUN = 9;
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

    /**
     * Whether {@code id} looks like personal data: an e-mail address ({@code [A-Za-z0-9._%+-]+@} and a
     * domain of two or more labels {@code [A-Za-z0-9-]+}), or nine or more digits in a row.
     *
     * <p>One pass, linear in the length: it runs on rejected header values, whose length only the server
     * bounds, and the regular expression it replaces backtracked quadratically (an 8 KB header of letters
     * took about half a second, 32 KB four seconds).
     */
    public static boolean looksPersonal(@Nullable String id) {
      if (id == null) {
        return false;
      }
      int n = id.length();
      int digits = 0;
      for (int i = 0; i < n; i++) {
        char c = id.charAt(i);
        if (c >= '0' && c <= '9') {
          if (++digits >= LONG_DIGIT_RUN) {
            return true;
          }
          continue;
        }
        digits = 0;
        if (c == '@' && i > 0 && isLocalPartChar(id.charAt(i - 1)) && isDomainAfter(id, i + 1)) {
          return true;
        }
      }
      return false;
    }

    /**
     * Whether a domain of two or more labels starts at {@code from}: labels hold no dot, so the first one
     * ends at the first char outside {@code [A-Za-z0-9-]}, which must be a dot followed by a label char.
     * The scan stops at the next {@code '@'} at the latest, so the scans of all the {@code '@'}s of a value
     * read each char at most once.
     */
    private static boolean isDomainAfter(String s, int from) {
      int i = from;
      while (i < s.length() && isLabelChar(s.charAt(i))) {
        i++;
      }
      return i > from && i + 1 < s.length() && s.charAt(i) == '.' && isLabelChar(s.charAt(i + 1));
    }

    private static boolean isLocalPartChar(char c) {
      return isLabelChar(c) || c == '.' || c == '_' || c == '%' || c == '+';
    }

    private static boolean isLabelChar(char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
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
}
