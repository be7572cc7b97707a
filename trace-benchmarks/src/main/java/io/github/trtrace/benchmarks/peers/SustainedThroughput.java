package io.github.trtrace.benchmarks.peers;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sustained file throughput: producers on every core call one SDK's traced request without pause
 * for a fixed time, then the SDK is closed (drained) and the lines that reached disk are counted.
 * The figure is records written per second of the whole run (drain included), not requests offered.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.trtrace.benchmarks.peers.SustainedThroughput
 * trtrace|log4j2|logback [seconds] [threads]}; one SDK per JVM, so each starts alike.
 */
public final class SustainedThroughput {
  private SustainedThroughput() {}

  public static void main(String[] args) throws Exception {
    String sdk = args.length > 0 ? args[0] : "trtrace";
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : Runtime.getRuntime().availableProcessors();
    AtomicBoolean stop = new AtomicBoolean();
    java.util.function.Consumer<Producer> request;
    Runnable teardown;
    long start;
    switch (sdk) {
      case "trtrace" -> {
        TrtraceFileBenchmark b = new TrtraceFileBenchmark();
        b.setUp();
        request = b::request;
        teardown = b::tearDown;
      }
      case "log4j2" -> {
        System.setProperty("log4j2.contextSelector",
            "org.apache.logging.log4j.core.async.AsyncLoggerContextSelector");
        System.setProperty("log4j2.configurationFile", "log4j2-bench.xml");
        System.setProperty("log4j2.asyncLoggerWaitStrategy", "Timeout");
        Log4j2AsyncBenchmark b = new Log4j2AsyncBenchmark();
        b.setUp();
        request = b::request;
        teardown = b::tearDown;
      }
      case "logback" -> {
        LogbackAsyncBenchmark b = new LogbackAsyncBenchmark();
        b.setUp();
        request = b::request;
        teardown = b::tearDown;
      }
      default -> throw new IllegalArgumentException("sdk must be trtrace, log4j2 or logback: " + sdk);
    }
    List<Thread> producers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Producer p = new Producer();
      producers.add(new Thread(() -> {
        p.init(0, threads);
        while (!stop.get()) {
          request.accept(p);
        }
      }));
    }
    start = System.nanoTime();
    producers.forEach(Thread::start);
    Thread.sleep(seconds * 1000L);
    stop.set(true);
    for (Thread t : producers) {
      t.join();
    }
    teardown.run(); // closes the SDK (drains) and prints offered / written
    double elapsed = (System.nanoTime() - start) / 1e9;
    System.out.printf("[%s] threads=%d run=%ds elapsed(incl. drain)=%.2fs bytes_on_disk=%d -> %.0f bytes/s%n",
        sdk, threads, seconds, elapsed, WrittenLines.lastBytes, WrittenLines.lastBytes / elapsed);
    System.out.printf("[%s] RESULT written_records_per_s=%.0f%n", sdk, WrittenLines.lastWritten / elapsed);
  }
}
