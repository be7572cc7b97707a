package io.github.trtrace.otel;

import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.TraceStateBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The W3C {@code tracestate} list, as trace-http's filter kept it beside the parsed {@code traceparent},
 * turned into OpenTelemetry's {@link TraceState} for the remote parent of a request span. The OpenTelemetry
 * API has a decoder only in an internal package; this one follows the same receiver rules: members split on
 * commas with optional spaces or tabs around them, empty members skipped, more than 32 members or a member
 * without {@code key=value} discards the whole list (the {@code traceparent} stays), and keys or values the
 * {@link TraceStateBuilder} finds invalid are dropped by it.
 */
final class W3cTraceState {
  private static final int MAX_MEMBERS = 32;

  private W3cTraceState() {}

  static TraceState decode(@Nullable String header) {
    if (header == null || header.isEmpty()) {
      return TraceState.getDefault();
    }
    String[] members = header.split(",", -1);
    int count = 0;
    for (int i = 0; i < members.length; i++) {
      members[i] = strip(members[i]);
      if (!members[i].isEmpty()) {
        count++;
      }
    }
    if (count > MAX_MEMBERS) {
      return TraceState.getDefault();
    }
    TraceStateBuilder b = TraceState.builder();
    // The builder puts each new entry first: add the last member first to keep the caller's order.
    for (int i = members.length - 1; i >= 0; i--) {
      String m = members[i];
      if (m.isEmpty()) {
        continue;
      }
      int eq = m.indexOf('=');
      if (eq <= 0) {
        return TraceState.getDefault();
      }
      b.put(m.substring(0, eq), m.substring(eq + 1));
    }
    return b.build();
  }

  /** Without the optional whitespace (spaces and tabs only) the specification allows around a member. */
  private static String strip(String s) {
    int from = 0;
    int to = s.length();
    while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
      from++;
    }
    while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
      to--;
    }
    return s.substring(from, to);
  }
}
