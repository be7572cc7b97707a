package io.github.trtrace.tensorrt.model.build;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The engine fingerprint of a {@link BuildReport}: lowercase hex SHA-256 over the plan bytes followed by the UTF-8
 * bytes of {@code "\ntensorrt_version=<v>\ncompute_capability=<cc>\nprecision=<p>\nstrongly_typed=<true|false>
 * \nbuilder_flags=<f1,f2,...>"}, flags sorted and de-duplicated, null written as the empty string. Two engines with
 * the same fingerprint are the same plan built by the same TensorRT for the same GPU architecture.
 *
 * <pre>{@code
 * String fp = BuildFingerprint.of(planBytes, "10.15.1", "9.0", "fp16", false, List.of("FP16"));
 * }</pre>
 */
public final class BuildFingerprint {
  private BuildFingerprint() {}

  /** The fingerprint of {@code plan} built with these settings. */
  public static String of(
      byte[] plan,
      @Nullable String tensorrtVersion,
      @Nullable String computeCapability,
      @Nullable String precision,
      boolean stronglyTyped,
      List<String> builderFlags) {
    MessageDigest sha = sha256();
    sha.update(plan);
    return of(sha, tensorrtVersion, computeCapability, precision, stronglyTyped, builderFlags);
  }

  /**
   * The same fingerprint from a SHA-256 digest that has been fed the plan bytes (in chunks, for a plan streamed to
   * its file); the digest is finished here.
   */
  public static String of(
      MessageDigest planDigest,
      @Nullable String tensorrtVersion,
      @Nullable String computeCapability,
      @Nullable String precision,
      boolean stronglyTyped,
      List<String> builderFlags) {
    String identity =
        "\ntensorrt_version=" + nz(tensorrtVersion)
            + "\ncompute_capability=" + nz(computeCapability)
            + "\nprecision=" + nz(precision)
            + "\nstrongly_typed=" + stronglyTyped
            + "\nbuilder_flags=" + String.join(",", new TreeSet<>(builderFlags));
    planDigest.update(identity.getBytes(StandardCharsets.UTF_8));
    StringBuilder hex = new StringBuilder(64);
    for (byte b : planDigest.digest()) {
      hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
    }
    return hex.toString();
  }

  /**
   * The fingerprint of a plan (its SHA-256 digest, fed and not finished) with the settings {@code report} records
   * (TensorRT version, compute capability, precision, strongly typed, builder flags). The digest is finished here.
   */
  public static String of(MessageDigest planDigest, BuildReport report) {
    return of(planDigest, report.tensorrtVersion(), report.gpu().computeCapability(), report.precision(),
        report.stronglyTyped(), report.builderFlags());
  }

  /** A new SHA-256 digest, the fingerprint's hash. */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static String nz(@Nullable String s) {
    return s == null ? "" : s;
  }
}
