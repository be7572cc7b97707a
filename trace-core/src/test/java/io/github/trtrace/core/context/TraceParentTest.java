package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TraceParentTest {
  private static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void parsesTheSpecificationsExample() {
    TraceParent tp = TraceParent.parse(VALID).orElseThrow();
    assertThat(tp.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(tp.parentId()).isEqualTo("00f067aa0ba902b7");
    assertThat(tp.sampled()).isTrue();
    assertThat(tp.toHeader()).isEqualTo(VALID);
  }

  @Test
  void aLaterVersionMayCarryMoreFields() {
    assertThat(TraceParent.parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-what-follows"))
        .hasValueSatisfying(tp -> assertThat(tp.sampled()).isFalse());
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "",
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01", // uppercase
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // forbidden version
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // zero trace ID
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // zero parent ID
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", // version 00 has no more fields
      "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", // more fields need a dash
      "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01", // dash misplaced
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
      "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
  })
  void rejectsWhatTheSpecificationRejects(String header) {
    assertThat(TraceParent.parse(header)).isEmpty();
  }

  @Test
  void keepsTheTracestateBesideAValidTraceparentOnly() {
    assertThat(TraceParent.parse(VALID, " congo=t61rcWkgMzE ")).hasValueSatisfying(
        tp -> assertThat(tp.traceState()).isEqualTo("congo=t61rcWkgMzE"));
    assertThat(TraceParent.parse(VALID, "")).hasValueSatisfying(tp -> assertThat(tp.traceState()).isNull());
    assertThat(TraceParent.parse(VALID.toUpperCase(), "congo=t61rcWkgMzE")).isEmpty();
    String tooLong = "k=" + "v".repeat(TraceParent.MAX_TRACESTATE_LENGTH);
    assertThat(TraceParent.parse(VALID, tooLong)).hasValueSatisfying(tp -> assertThat(tp.traceState()).isNull());
  }

  @Test
  void theRequestContextCarriesTheParentThroughCopies() {
    TraceParent tp = TraceParent.parse(VALID, "a=1").orElseThrow();
    RequestContext c = RequestContext.with("req-1").traceParent(tp).build();
    assertThat(c.traceParent()).isSameAs(tp);
    assertThat(c.withModel("m").withAttribute("k", "v").traceParent()).isSameAs(tp);
    assertThat(RequestContext.with("req-2").build().traceParent()).isNull();
    assertThat(RequestContext.empty().traceParent()).isNull();
  }

  @Test
  void absentIsEmpty() {
    assertThat(TraceParent.parse(null)).isEmpty();
  }

  @Test
  void theConstructorChecksItsFields() {
    assertThatThrownBy(() -> new TraceParent("abc", "00f067aa0ba902b7", 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TraceParent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 256))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Property
  void roundTripsEveryValidValue(
      @ForAll @StringLength(32) @net.jqwik.api.constraints.CharRange(from = 'a', to = 'f') String traceId,
      @ForAll @StringLength(16) @net.jqwik.api.constraints.CharRange(from = '0', to = '9') String spanDigits,
      @ForAll @IntRange(min = 0, max = 255) int flags) {
    String spanId = spanDigits.replace('0', '1');
    TraceParent tp = new TraceParent(traceId, spanId, flags);
    assertThat(TraceParent.parse(tp.toHeader())).contains(tp);
  }

  @Property
  void neverThrowsOnArbitraryInput(@ForAll @StringLength(max = 80) String header) {
    TraceParent.parse(header);
  }
}
