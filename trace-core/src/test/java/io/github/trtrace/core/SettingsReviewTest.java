package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Review of the settings read by {@code fromEnvironment()} and {@code fromProperties(...)}. */
class SettingsReviewTest {
  private final ListAppender<ILoggingEvent> events = new ListAppender<>();
  private Logger logger;

  @BeforeEach
  void capture() {
    logger = (Logger) LoggerFactory.getLogger("io.github.trtrace.tracer");
    events.start();
    logger.addAppender(events);
  }

  @AfterEach
  void release() {
    logger.detachAppender(events);
  }

  private List<String> warnings() {
    return events.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void aMisspeltSystemPropertyIsReportedOnceWithTheNameItProbablyMeant() {
    // a name no other test uses: the report is once per JVM
    String key = "trtrace.sample.rat";
    System.setProperty(key, "0.1");
    try {
      InferenceTracer.builder().fromEnvironment();
      InferenceTracer.builder().fromEnvironment();
    } finally {
      System.clearProperty(key);
    }
    assertThat(warnings()).filteredOn(m -> m.contains(key)).singleElement().asString()
        .contains("unknown setting trtrace.sample.rat").contains("did you mean trtrace.sample.rate");
  }

  @Test
  void settingsOfOtherTrtraceModulesAreNotReported() {
    String key = "trtrace.kernels.sample";
    String was = System.getProperty(key);
    System.setProperty(key, "0.5");
    try {
      InferenceTracer.builder().fromEnvironment();
    } finally {
      if (was == null) {
        System.clearProperty(key);
      } else {
        System.setProperty(key, was);
      }
    }
    assertThat(warnings()).noneMatch(m -> m.contains("unknown setting"));
  }

  @Test
  void numbersAreDecimalWithoutJavaLiteralSuffixesHexOrPlusSigns() {
    Map<String, String> refused = Map.of(
        "trtrace.sample.rate", "must be a number",
        "trtrace.slow.ms", "must be a number",
        "trtrace.queue.size", "must be an integer",
        "trtrace.batch.size", "must be an integer",
        "trtrace.shutdown.drain.ms", "must be a whole number of milliseconds");
    List<String> bad = List.of("0.5f", "1d", "1D", "0x10", "0x1p-1", "+1", "NaN", "Infinity", "1_0", "\u0661", "1 0");
    refused.forEach((key, why) -> {
      for (String value : bad) {
        assertThatThrownBy(() -> InferenceTracer.builder().fromProperties(Map.of(key, value)::get))
            .as("%s=%s", key, value)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageEndingWith("=" + value + ": " + why);
      }
    });
    // what the docs show stays accepted: plain decimals, surrounding blanks, an exponent for the decimal settings
    for (String rate : List.of("0.5", " 0.5 ", ".5", "1", "1.", "1e-3", "0")) {
      InferenceTracer.builder().fromProperties(Map.of("trtrace.sample.rate", rate)::get);
    }
    for (String ms : List.of("250", "0.5", "2.5e3")) {
      InferenceTracer.builder().fromProperties(Map.of("trtrace.slow.ms", ms)::get);
    }
    InferenceTracer.builder().fromProperties(Map.of("trtrace.queue.size", "010")::get);
    assertThatThrownBy(() -> InferenceTracer.builder().fromProperties(Map.of("trtrace.queue.size", "-1")::get))
        .hasMessageContaining("queueCapacity must be between 1 and");
  }
}
