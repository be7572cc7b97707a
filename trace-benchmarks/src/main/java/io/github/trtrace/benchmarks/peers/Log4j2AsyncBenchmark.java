package io.github.trtrace.benchmarks.peers;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.ThreadContext;
import org.apache.logging.log4j.message.StringMapMessage;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Peer: Log4j2 all-async loggers (LMAX Disruptor 3.4.4) with {@code JsonTemplateLayout} to a file
 * ({@code log4j2-bench.xml}); the request ID in {@code ThreadContext}, the same 15 fields in a
 * {@link StringMapMessage}, stage times taken with {@code System.nanoTime()} as an application would.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "-Dlog4j2.contextSelector=org.apache.logging.log4j.core.async.AsyncLoggerContextSelector",
      "-Dlog4j2.configurationFile=log4j2-bench.xml",
      "-Dlog4j2.asyncLoggerWaitStrategy=Timeout"
    })
@State(Scope.Benchmark)
public class Log4j2AsyncBenchmark {
  /** Requests per second over all producer threads; 0 = saturation (no pacing). */
  @Param({"0"})
  public int totalRate;

  private Path dir;
  private Logger logger;
  private final LongAdder offered = new LongAdder();


  @Setup(Level.Trial)
  public void setUp() {
    dir = WrittenLines.newDirectory("log4j2");
    System.setProperty("bench.log4j2.file", dir.resolve("inference.log").toString());
    logger = LogManager.getLogger("bench.inference");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    LogManager.shutdown();
    WrittenLines.report("log4j2", offered.sum(), dir);
    WrittenLines.delete(dir);
  }

  @Benchmark
  public long request(Producer p) {
    offered.increment();
    String id = p.nextRequestId();
    ThreadContext.put("request_id", id);
    try {
      long start = System.nanoTime();
      long queueEnd = System.nanoTime();
      long preEnd = System.nanoTime();
      long inferEnd = System.nanoTime();
      long first = System.nanoTime();
      long last = System.nanoTime();
      long end = System.nanoTime();
      StringMapMessage m = new StringMapMessage(16);
      m.with("model_name", RequestShape.MODEL)
          .with("status", "success")
          .with("latency_ms", (end - start) / 1e6)
          .with("queue_ms", (queueEnd - start) / 1e6)
          .with("preprocess_ms", (preEnd - queueEnd) / 1e6)
          .with("infer_ms", (inferEnd - preEnd) / 1e6)
          .with("decode_ms", (end - inferEnd) / 1e6)
          .with("ttft_ms", (first - start) / 1e6)
          .with("tpot_ms", (last - first) / 1e6)
          .with("input_tokens", RequestShape.INPUT_TOKENS)
          .with("output_tokens", RequestShape.OUTPUT_TOKENS)
          .with("gpu_ms", RequestShape.GPU_MS)
          .with("engine_fingerprint", RequestShape.FINGERPRINT)
          .with("tenant", RequestShape.TENANT)
          .with("route", RequestShape.ROUTE)
          .with("trace_id", RequestShape.TRACE_ID)
          .with("span_id", RequestShape.SPAN_ID);
      logger.info(m);
      return end - start;
    } finally {
      ThreadContext.remove("request_id");
    }
  }
}
