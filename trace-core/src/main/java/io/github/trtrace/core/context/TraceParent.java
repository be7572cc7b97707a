package io.github.trtrace.core.context;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The caller's position in a distributed trace: a parsed W3C Trace Context {@code traceparent} header
 * ({@code version-traceid-parentid-flags}) and the {@code tracestate} that came with it. This is trtrace's
 * only {@code traceparent} parser: trace-http's filters parse the header once and put the result in the
 * request's {@link RequestContext} ({@link RequestContext.Builder#traceParent}); a trace started under that
 * context links its record to it, and trace-otel's request span takes it as its remote parent.
 *
 * <pre>{@code
 * TraceParent tp = TraceParent.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").orElseThrow();
 * tp.traceId();   // "4bf92f3577b34da6a3ce929d0e0e4736"
 * tp.sampled();   // true
 * RequestContext.with("req-1").traceParent(tp).run(() -> tracer.run("llama-8b", t -> serve(t)));
 * }</pre>
 *
 * <p>Parsing follows the specification's rules for receivers: lowercase hex only, version {@code ff} and
 * all-zero trace or parent IDs are invalid, version {@code 00} must be exactly 55 characters, and a
 * later version may carry more fields after a {@code '-'} (they are ignored).
 *
 * @param traceId 32 lowercase hex digits, not all zero
 * @param parentId the caller's span ID: 16 lowercase hex digits, not all zero
 * @param flags the trace flags byte (bit 0: sampled)
 * @param traceState the caller's {@code tracestate} header as received (stripped), null when absent, empty
 *     or longer than {@value #MAX_TRACESTATE_LENGTH} characters; its list members are checked by whoever
 *     reads them (trace-otel)
 */
public record TraceParent(String traceId, String parentId, int flags, @Nullable String traceState) {
  /** The header name. */
  public static final String HEADER = "traceparent";
  /** The header carrying vendor trace state beside {@code traceparent}. */
  public static final String TRACESTATE_HEADER = "tracestate";
  /**
   * The longest {@code tracestate} kept: 32 list members (the specification's maximum) of the longest
   * key (256) and value (256) with their separators; a longer one cannot be valid and is dropped.
   */
  public static final int MAX_TRACESTATE_LENGTH = 32 * (256 + 1 + 256) + 31 * 2;

  private static final int VERSION_00_LENGTH = 55;

  /**
   * Checks the fields.
   *
   * @throws IllegalArgumentException when an ID is not lowercase hex of the right length or is all zero,
   *     or {@code flags} is not one byte
   */
  public TraceParent {
    if (traceState != null) {
      traceState = traceState.strip();
      if (traceState.isEmpty() || traceState.length() > MAX_TRACESTATE_LENGTH) {
        traceState = null;
      }
    }
    if (!isId(traceId, 32) || !isId(parentId, 16)) {
      throw new IllegalArgumentException(
          "traceparent IDs must be 32 and 16 lowercase hex digits, not all zero: " + traceId + ", " + parentId);
    }
    if (flags < 0 || flags > 0xFF) {
      throw new IllegalArgumentException("trace flags must be one byte: " + flags);
    }
  }

  /** A trace parent without {@code tracestate}. */
  public TraceParent(String traceId, String parentId, int flags) {
    this(traceId, parentId, flags, null);
  }

  /** Whether the caller sampled this trace (flag bit 0). */
  public boolean sampled() {
    return (flags & 1) != 0;
  }

  /** The header value for version {@code 00}. */
  public String toHeader() {
    return "00-" + traceId + '-' + parentId + '-' + hex2(flags);
  }

  /** Parses a header value; empty when it is absent or invalid (a receiver then starts a new trace). */
  public static Optional<TraceParent> parse(@Nullable String header) {
    return parse(header, null);
  }

  /**
   * Parses a {@code traceparent} header value and keeps the {@code tracestate} beside it; empty when the
   * {@code traceparent} is absent or invalid (the {@code tracestate} then goes with it, as the specification
   * says).
   */
  public static Optional<TraceParent> parse(@Nullable String header, @Nullable String traceState) {
    if (header == null) {
      return Optional.empty();
    }
    String h = header.strip();
    if (h.length() < VERSION_00_LENGTH || h.charAt(2) != '-' || h.charAt(35) != '-' || h.charAt(52) != '-') {
      return Optional.empty();
    }
    int version = hexByte(h, 0);
    if (version < 0 || version == 0xFF) {
      return Optional.empty();
    }
    if (version == 0 ? h.length() != VERSION_00_LENGTH
        : h.length() > VERSION_00_LENGTH && h.charAt(VERSION_00_LENGTH) != '-') {
      return Optional.empty();
    }
    String traceId = h.substring(3, 35);
    String parentId = h.substring(36, 52);
    int flags = hexByte(h, 53);
    if (flags < 0 || !isId(traceId, 32) || !isId(parentId, 16)) {
      return Optional.empty();
    }
    return Optional.of(new TraceParent(traceId, parentId, flags, traceState));
  }

  private static boolean isId(@Nullable String s, int length) {
    if (s == null || s.length() != length) {
      return false;
    }
    boolean nonZero = false;
    for (int i = 0; i < length; i++) {
      int d = hexDigit(s.charAt(i));
      if (d < 0) {
        return false;
      }
      nonZero |= d != 0;
    }
    return nonZero;
  }

  private static int hexByte(String s, int at) {
    int hi = hexDigit(s.charAt(at));
    int lo = hexDigit(s.charAt(at + 1));
    return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
  }

  private static int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1; // uppercase is invalid in traceparent
  }

  private static String hex2(int b) {
    String s = Integer.toHexString(b);
    return s.length() == 1 ? "0" + s : s;
  }
}
