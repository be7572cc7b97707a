package io.github.trtrace.core.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.TracerStats.DispatcherStats;

/** The identity every fault test checks. */
public final class Accounting {
  private Accounting() {}

  /**
   * {@code offered = accepted + dropped}, and for each sink {@code accepted = written + lost + in
   * flight}, exactly.
   */
  public static void assertAccountedFor(DispatcherStats s) {
    assertThat(s.offered()).as("offered = accepted + dropped: %s", s).isEqualTo(s.accepted() + s.dropped());
    s.sinks()
        .forEach(
            (name, sink) ->
                assertThat(sink.written() + sink.lost() + sink.inFlight())
                    .as("accepted = written + lost + in flight for %s: %s", name, sink)
                    .isEqualTo(s.accepted()));
  }
}
