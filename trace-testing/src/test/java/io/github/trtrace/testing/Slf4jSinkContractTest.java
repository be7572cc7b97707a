package io.github.trtrace.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.core.sink.Slf4jSink;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;

/** trace-core's SLF4J sink passes the sink contract, read back through a Logback list appender. */
class Slf4jSinkContractTest extends RecordSinkContractTest {
  private static final AtomicInteger LOGGERS = new AtomicInteger();
  private final Map<RecordSink, ListAppender<ILoggingEvent>> captured = new IdentityHashMap<>();

  @Override
  protected RecordSink newSink() {
    // a fresh logger per sink, so tests don't see each other's events
    String name = "test.slf4jsink.contract." + LOGGERS.incrementAndGet();
    Logger logger = (Logger) LoggerFactory.getLogger(name);
    logger.setLevel(Level.TRACE);
    logger.setAdditive(false);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    Slf4jSink sink = Slf4jSink.builder().loggerName(name).build();
    captured.put(sink, appender);
    return sink;
  }

  @Override
  protected List<String> writtenRequestIds(RecordSink sink) {
    return captured.get(sink).list.stream().map(Slf4jSinkContractTest::requestId).toList();
  }

  private static String requestId(ILoggingEvent e) {
    List<KeyValuePair> pairs = Objects.requireNonNullElse(e.getKeyValuePairs(), List.of());
    return pairs.stream()
        .filter(p -> p.key.equals(RecordConvention.REQUEST_ID))
        .map(p -> String.valueOf(p.value))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no request_id in " + e));
  }
}
