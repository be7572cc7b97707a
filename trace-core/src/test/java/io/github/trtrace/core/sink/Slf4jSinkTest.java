package io.github.trtrace.core.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.Status;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;

class Slf4jSinkTest {
  private static final AtomicInteger LOGGERS = new AtomicInteger();

  /** A fresh logger (so tests don't see each other's events) captured by a list appender. */
  private static ListAppender<ILoggingEvent> capture(String loggerName, Level level) {
    Logger logger = (Logger) LoggerFactory.getLogger(loggerName);
    logger.setLevel(level);
    logger.setAdditive(false);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    return appender;
  }

  private static String freshLoggerName() {
    return "test.slf4jsink." + LOGGERS.incrementAndGet();
  }

  private static Map<String, Object> keyValues(ILoggingEvent e) {
    Map<String, Object> kv = new LinkedHashMap<>();
    List<KeyValuePair> pairs = e.getKeyValuePairs();
    if (pairs != null) {
      for (KeyValuePair p : pairs) {
        kv.put(p.key, p.value);
      }
    }
    return kv;
  }

  @Test
  void successIsLoggedAtInfoAndEveryOtherStatusAtWarnByDefault() {
    String name = freshLoggerName();
    ListAppender<ILoggingEvent> appender = capture(name, Level.TRACE);
    Slf4jSink sink = Slf4jSink.builder().loggerName(name).build();
    for (Status s : Status.values()) {
      sink.write(List.of(InferenceRecord.builder("req-" + s.wireName(), "m").latencyMs(1.0).status(s).build()));
    }
    assertThat(appender.list)
        .extracting(ILoggingEvent::getLevel)
        .containsExactly(Level.INFO, Level.WARN, Level.WARN, Level.WARN, Level.WARN);
    assertThat(sink.name()).isEqualTo("slf4j:" + name);
  }

  @Test
  void levelIsConfigurablePerStatus() {
    String name = freshLoggerName();
    ListAppender<ILoggingEvent> appender = capture(name, Level.TRACE);
    Slf4jSink sink =
        Slf4jSink.builder()
            .loggerName(name)
            .level(Status.SUCCESS, org.slf4j.event.Level.DEBUG)
            .level(Status.ERROR, org.slf4j.event.Level.ERROR)
            .build();
    sink.write(
        List.of(
            InferenceRecord.builder("a", "m").latencyMs(1.0).status(Status.SUCCESS).build(),
            InferenceRecord.builder("b", "m").latencyMs(1.0).status(Status.ERROR).build(),
            InferenceRecord.builder("c", "m").latencyMs(1.0).status(Status.CANCELLED).build()));
    assertThat(appender.list)
        .extracting(ILoggingEvent::getLevel)
        .containsExactly(Level.DEBUG, Level.ERROR, Level.WARN);
  }

  @Test
  void recordsBelowTheLoggersLevelAreNotLogged() {
    String name = freshLoggerName();
    ListAppender<ILoggingEvent> appender = capture(name, Level.WARN);
    Slf4jSink sink = Slf4jSink.builder().loggerName(name).build();
    sink.write(
        List.of(
            InferenceRecord.builder("ok", "m").latencyMs(1.0).status(Status.SUCCESS).build(),
            InferenceRecord.builder("bad", "m").latencyMs(1.0).status(Status.ERROR).build()));
    assertThat(appender.list).hasSize(1);
    assertThat(keyValues(appender.list.get(0))).containsEntry("request_id", "bad");
  }

  @Test
  void everyKnownFieldIsOneKeyValueNamedAsInTheRecordSchema() {
    String name = freshLoggerName();
    ListAppender<ILoggingEvent> appender = capture(name, Level.TRACE);
    InferenceRecord r =
        InferenceRecord.builder("req-full", "llama-8b")
            .timestamp(Instant.parse("2026-11-30T08:00:00.123456789Z"))
            .status(Status.ERROR)
            .errorType("tensorrt.out_of_memory")
            .latencyMs(41.5)
            .traceId("4bf92f3577b34da6a3ce929d0e0e4736")
            .spanId("00f067aa0ba902b7")
            .inputTokens(12)
            .outputTokens(80)
            .queueMs(1.5)
            .preprocessMs(2)
            .inferMs(30)
            .gpuMs(28.25)
            .decodeMs(5)
            .postprocessMs(0.5)
            .ttftMs(10)
            .tpotMs(0.25)
            .gpuUtil(0.75)
            .gpuMemUsedMb(2048)
            .engineFingerprint("sha256:abc")
            .sampledReason("error")
            .inputFlags(EnumSet.of(InputFlag.BIDI_CONTROL, InputFlag.ZERO_WIDTH))
            .inputDigest("hello [REDACTED]")
            .addEvent(new InferenceRecord.Event("tensorrt.oom", "error", "out of memory", 12.5))
            .addLayer(new InferenceRecord.LayerTime("attn.0", 1.25, 3))
            .attribute("tenant", "acme")
            .build();
    Slf4jSink.builder().loggerName(name).build().write(List.of(r));

    ILoggingEvent e = appender.list.get(0);
    assertThat(keyValues(e))
        .containsExactly(
            Map.entry("timestamp", "2026-11-30T08:00:00.123456Z"),
            Map.entry("request_id", "req-full"),
            Map.entry("model_name", "llama-8b"),
            Map.entry("status", "error"),
            Map.entry("error_type", "tensorrt.out_of_memory"),
            Map.entry("latency_ms", 41.5),
            Map.entry("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
            Map.entry("span_id", "00f067aa0ba902b7"),
            Map.entry("input_tokens", 12L),
            Map.entry("output_tokens", 80L),
            Map.entry("queue_ms", 1.5),
            Map.entry("preprocess_ms", 2.0),
            Map.entry("infer_ms", 30.0),
            Map.entry("gpu_ms", 28.25),
            Map.entry("decode_ms", 5.0),
            Map.entry("postprocess_ms", 0.5),
            Map.entry("ttft_ms", 10.0),
            Map.entry("tpot_ms", 0.25),
            Map.entry("gpu_util", 0.75),
            Map.entry("gpu_mem_used_mb", 2048.0),
            Map.entry("engine_fingerprint", "sha256:abc"),
            Map.entry("sampled_reason", "error"),
            Map.entry("input_flags", List.of("bidi_control", "zero_width")),
            Map.entry("input_digest", "hello [REDACTED]"),
            Map.entry("events", List.of("error tensorrt.oom @12.5ms: out of memory")),
            Map.entry("layers", List.of("attn.0=1.25ms/3")),
            Map.entry("attributes.tenant", "acme"));
    assertThat(e.getFormattedMessage()).isEqualTo("inference request_id=req-full status=error latency_ms=41.5");
  }

  @Test
  void unknownValuesAreLeftOut() {
    String name = freshLoggerName();
    ListAppender<ILoggingEvent> appender = capture(name, Level.TRACE);
    Slf4jSink.builder()
        .loggerName(name)
        .build()
        .write(List.of(InferenceRecord.builder("req-min", "m").latencyMs(1.0).timestamp(Instant.EPOCH).build()));
    ILoggingEvent e = appender.list.get(0);
    assertThat(keyValues(e))
        .containsOnlyKeys("timestamp", "request_id", "model_name", "status", "latency_ms");
    assertThat(e.getFormattedMessage()).isEqualTo("inference request_id=req-min status=success latency_ms=1.0");
  }

  @Test
  void defaultLoggerIsTheRecordsLoggerAndBlankNamesAreRefused() {
    assertThat(Slf4jSink.builder().build().name()).isEqualTo("slf4j:io.github.trtrace.records");
    assertThatThrownBy(() -> Slf4jSink.builder().loggerName(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("loggerName");
  }
}
