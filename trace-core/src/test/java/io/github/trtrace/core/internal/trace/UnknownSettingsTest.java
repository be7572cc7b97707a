package io.github.trtrace.core.internal.trace;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Environment variables that no part of trtrace reads are reported, with the name probably meant. */
class UnknownSettingsTest {

  @Test
  void aMisspeltVariableIsReportedOnceWithTheVariableItProbablyMeant() {
    List<String> warnings = captured(() -> {
      TracerSettings.reportUnknown(List.of(), List.of("TRTRACE_SAMPLE_RAT", "TRTRACE_SAMPLE_RATE", "TRTRACE_LOG_PATH"));
      TracerSettings.reportUnknown(List.of(), List.of("TRTRACE_SAMPLE_RAT"));
      TracerSettings.reportUnknown(List.of(), List.of("TRTRACE_QUEUESIZE", "TRTRACE_COLOUR", "PATH", "TRTRACEX"));
      TracerSettings.reportUnknown(List.of("trtrace.slow.msec", "trtrace.log.max-file-bytes", "trtrace.demo.backend",
          "trtrace.context.strict", "TRTRACE_SLOW_MS"), List.of("TRTRACE_LOG_MAXFILEBYTES", "TRTRACE_WEB_ENABLED", "TRTRACE_CONTEXT_STORAGE"));
    });
    assertThat(warnings).containsExactly(
        "trtrace: unknown setting TRTRACE_SAMPLE_RAT ignored; did you mean TRTRACE_SAMPLE_RATE?",
        "trtrace: unknown setting TRTRACE_QUEUESIZE ignored; did you mean TRTRACE_QUEUE_SIZE?",
        "trtrace: unknown setting TRTRACE_COLOUR ignored (the settings are listed in docs/configuration.md)",
        "trtrace: unknown setting trtrace.slow.msec ignored; did you mean trtrace.slow.ms?",
        // a system property spelt as the variable is not read: only the environment's is
        "trtrace: unknown setting TRTRACE_SLOW_MS ignored; did you mean trtrace.slow.ms?",
        // read as a system property only
        "trtrace: unknown setting TRTRACE_CONTEXT_STORAGE ignored (the settings are listed in docs/configuration.md)");
  }

  private static List<String> captured(Runnable action) {
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    Logger logger = (Logger) LoggerFactory.getLogger("io.github.trtrace.tracer");
    events.start();
    logger.addAppender(events);
    try {
      action.run();
    } finally {
      logger.detachAppender(events);
    }
    return events.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }
}
