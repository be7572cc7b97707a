package io.github.trtrace.core.context;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Issue 11, defect 5: strict context mode, on for the whole test suite ({@code
 * trtrace.context.strict=true} in the surefire and failsafe configuration), reports a leaked scope
 * with the stack trace of where it was opened.
 */
class StrictContextModeTest {
  private final ListAppender<ILoggingEvent> events = new ListAppender<>();
  private Logger logger;

  @BeforeEach
  void capture() {
    logger = (Logger) LoggerFactory.getLogger("io.github.trtrace.core.context");
    events.start();
    logger.addAppender(events);
  }

  @AfterEach
  void release() {
    logger.detachAppender(events);
  }

  @Test
  void strictModeIsOnInTheTestSuite() {
    assertThat(ScopeStack.STRICT).as("-D%s=true in the test configuration", ScopeStack.STRICT_PROPERTY).isTrue();
  }

  @Test
  void aScopeClosedOnAnotherThreadIsReportedWithWhereItWasOpened() throws Exception {
    long before = ScopeStack.strictReports();
    RequestContext.Scope scope = openLeakyScope();
    Thread other = new Thread(scope::close, "closer");
    other.start();
    other.join();

    assertThat(ScopeStack.strictReports()).isEqualTo(before + 1);
    ILoggingEvent e = onlyStrictEvent();
    assertThat(e.getLevel()).isEqualTo(Level.ERROR);
    assertThat(e.getFormattedMessage()).contains("closed on thread closer").contains("stay current");
    assertThat(openingFrames(e)).anyMatch(f -> f.contains("openLeakyScope"));
    // the leak is real: the context and its MDC are still current on the owner thread
    assertThat(RequestContext.current().requestId()).isEqualTo("req-leaked-scope");
    assertThat(MDC.get("request_id")).isEqualTo("req-leaked-scope");
    scope.close();
    assertThat(MDC.get("request_id")).isNull();
  }

  @Test
  void aScopeLeftOpenByRunIsReportedWithWhereItWasOpened() {
    long before = ScopeStack.strictReports();
    RequestContext.with("req-outer").run(StrictContextModeTest::openLeakyScope);
    assertThat(ScopeStack.strictReports()).isEqualTo(before + 1);
    assertThat(openingFrames(onlyStrictEvent())).anyMatch(f -> f.contains("openLeakyScope"));
    assertThat(RequestContext.current().requestId()).isNull();
  }

  /** Issue 19 item 3: reported against the leaked scope, not the tracer's own scope around the body. */
  @Test
  void aScopeLeftOpenInsideATracerRunIsReportedWhereItWasOpened() {
    long before = ScopeStack.strictReports();
    try (io.github.trtrace.core.InferenceTracer tracer =
        io.github.trtrace.core.InferenceTracer.builder()
            .sink(io.github.trtrace.core.sink.RecordSink.named("none", batch -> {}))
            .build()) {
      tracer.run("m", "req-outer", t -> openLeakyScope());
      assertThat(ScopeStack.strictReports()).isEqualTo(before + 1);
      ILoggingEvent e = onlyStrictEvent();
      assertThat(e.getFormattedMessage()).contains("req-leaked-scope");
      assertThat(openingFrames(e)).anyMatch(f -> f.contains("openLeakyScope"));
      assertThat(RequestContext.current().requestId()).isNull();
      assertThat(MDC.get("request_id")).isNull();
    }
  }

  private static RequestContext.Scope openLeakyScope() {
    return RequestContext.with("req-leaked-scope").open();
  }

  private ILoggingEvent onlyStrictEvent() {
    List<ILoggingEvent> strict =
        events.list.stream().filter(e -> e.getMessage().startsWith("[strict]")).toList();
    assertThat(strict).hasSize(1);
    return strict.get(0);
  }

  private static List<String> openingFrames(ILoggingEvent e) {
    assertThat(e.getThrowableProxy()).isInstanceOf(ThrowableProxy.class);
    Throwable opened = ((ThrowableProxy) e.getThrowableProxy()).getThrowable();
    assertThat(opened.getMessage()).startsWith("RequestContext scope opened on");
    return java.util.Arrays.stream(opened.getStackTrace()).map(StackTraceElement::toString).toList();
  }
}
