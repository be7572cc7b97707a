package io.github.trtrace.benchmarks.peers;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * Peer: Logback {@code AsyncAppender} (queue 8192, never discarding INFO, blocking when full) in
 * front of a buffered {@code FileAppender} with Logback's {@code JsonEncoder}; the request ID in
 * SLF4J's MDC, the same 15 fields as SLF4J 2 key-value pairs.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class LogbackAsyncBenchmark {
  /** Requests per second over all producer threads; 0 = saturation (no pacing). */
  @Param({"0"})
  public int totalRate;

  private Path dir;
  private LoggerContext context;
  private Logger logger;
  private final LongAdder offered = new LongAdder();


  @Setup(org.openjdk.jmh.annotations.Level.Trial)
  public void setUp() {
    dir = WrittenLines.newDirectory("logback");
    context = (LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
    context.reset();
    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(context);
    encoder.start();
    FileAppender<ILoggingEvent> file = new FileAppender<>();
    file.setContext(context);
    file.setName("file");
    file.setFile(dir.resolve("inference.log").toString());
    file.setEncoder(encoder);
    file.setImmediateFlush(false);
    file.start();
    AsyncAppender async = new AsyncAppender();
    async.setContext(context);
    async.setName("async");
    async.setQueueSize(8192);
    async.setDiscardingThreshold(0); // the default drops INFO when the queue is 80% full
    async.setNeverBlock(false);
    async.addAppender(file);
    async.start();
    ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.OFF);
    ch.qos.logback.classic.Logger bench = context.getLogger("bench.inference");
    bench.setLevel(Level.INFO);
    bench.setAdditive(false);
    bench.addAppender(async);
    logger = bench;
  }

  @TearDown(org.openjdk.jmh.annotations.Level.Trial)
  public void tearDown() {
    context.stop(); // stops the async appender, which drains its queue into the file
    WrittenLines.report("logback", offered.sum(), dir);
    WrittenLines.delete(dir);
  }

  @Benchmark
  public long request(Producer p) {
    offered.increment();
    String id = p.nextRequestId();
    MDC.put("request_id", id);
    try {
      long start = System.nanoTime();
      long queueEnd = System.nanoTime();
      long preEnd = System.nanoTime();
      long inferEnd = System.nanoTime();
      long first = System.nanoTime();
      long last = System.nanoTime();
      long end = System.nanoTime();
      logger.atInfo()
          .addKeyValue("model_name", RequestShape.MODEL)
          .addKeyValue("status", "success")
          .addKeyValue("latency_ms", (end - start) / 1e6)
          .addKeyValue("queue_ms", (queueEnd - start) / 1e6)
          .addKeyValue("preprocess_ms", (preEnd - queueEnd) / 1e6)
          .addKeyValue("infer_ms", (inferEnd - preEnd) / 1e6)
          .addKeyValue("decode_ms", (end - inferEnd) / 1e6)
          .addKeyValue("ttft_ms", (first - start) / 1e6)
          .addKeyValue("tpot_ms", (last - first) / 1e6)
          .addKeyValue("input_tokens", RequestShape.INPUT_TOKENS)
          .addKeyValue("output_tokens", RequestShape.OUTPUT_TOKENS)
          .addKeyValue("gpu_ms", RequestShape.GPU_MS)
          .addKeyValue("engine_fingerprint", RequestShape.FINGERPRINT)
          .addKeyValue("tenant", RequestShape.TENANT)
          .addKeyValue("route", RequestShape.ROUTE)
          .addKeyValue("trace_id", RequestShape.TRACE_ID)
          .addKeyValue("span_id", RequestShape.SPAN_ID)
          .log("inference");
      return end - start;
    } finally {
      MDC.remove("request_id");
    }
  }
}
