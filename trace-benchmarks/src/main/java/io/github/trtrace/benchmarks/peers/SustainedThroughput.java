package io.github.trtrace.benchmarks.peers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sustained file throughput: producers on every core call one SDK's traced request without pause
 * for a fixed time, then the SDK is closed (drained) and the lines that reached disk are counted.
 * The figure is records written per second from the start until the SDK had closed (drain and the
 * compression of the last rotated file included, counting the lines afterwards not), not requests offered:
 * for trtrace the sink's own written count (its retention may delete the oldest rotated files of a
 * long run, so lines on disk, {@code .gz} files decompressed and counted, are printed beside it), for
 * the peers the lines on disk. Also printed: drops (trtrace: counted by the dispatcher; peers: offered
 * minus written), JSON bytes per second, and the CPU each thread used while the producers ran.
 *
 * <p>Usage: {@code java [-Dsustained.warmup=3] -cp benchmarks.jar
 * io.github.trtrace.benchmarks.peers.SustainedThroughput trtrace|log4j2|logback [seconds] [threads]}; one
 * SDK per JVM, so each starts alike. {@code sustained.warmup}: seconds of an unmeasured run first, on an
 * instance and files of its own (default 0: the measured run starts in a cold JVM, the JIT's work
 * included).
 *
 * <p>Fields of the benchmark states are static ({@code WrittenLines.last*}): a second run in one JVM
 * overwrites the first's, and each run counts its own directory.
 */
public final class SustainedThroughput {
  private SustainedThroughput() {}

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException | RuntimeException e) {
      return String.valueOf(java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }

  public static void main(String[] args) throws Exception {
    String sdk = args.length > 0 ? args[0] : "trtrace";
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : Runtime.getRuntime().availableProcessors();
    int warmup = Integer.getInteger("sustained.warmup", 0);
    if (warmup > 0) {
      // a whole unmeasured run first, on an instance (and files) of its own: the JIT's compilation of the
      // first seconds is then over before the measured run starts, for every SDK alike
      run(sdk, warmup, threads, false);
      System.out.printf("[%s] warm-up run of %d s done, written=%d of offered=%d%n",
          sdk, warmup, WrittenLines.lastWritten, WrittenLines.lastOffered);
    }
    run(sdk, seconds, threads, true);
  }

  private static void run(String sdk, int seconds, int threads, boolean report) throws Exception {
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
      }, "producer-" + i));
    }
    Map<String, Long> cpuBefore = ThreadCpu.ticks();
    start = System.nanoTime();
    producers.forEach(Thread::start);
    Thread.sleep(seconds * 1000L);
    Map<String, Long> cpuAfter = ThreadCpu.ticks(); // the producing phase: every thread still alive
    stop.set(true);
    for (Thread t : producers) {
      t.join();
    }
    teardown.run(); // closes the SDK (drains), then counts and prints offered / written
    // until the SDK had closed (every record written and files released), without the counting
    double elapsed = (WrittenLines.lastReportStartNanos - start) / 1e9;
    long onDisk = WrittenLines.lastWritten;
    long lineBytes = WrittenLines.lastLineBytes;
    double bytesPerLine = onDisk == 0 ? 0 : (double) lineBytes / onDisk;
    // trtrace: the sink's own count (a record counts once the write carrying it returned); its
    // retention may have deleted rotated files by the end, so lines on disk can be fewer. Peers
    // keep one file: their written count is the lines on disk.
    long written = sdk.equals("trtrace") ? TrtraceFileBenchmark.lastSinkWritten : onDisk;
    long dropped = sdk.equals("trtrace") ? TrtraceFileBenchmark.lastDropped : WrittenLines.lastOffered - onDisk;
    if (!report) {
      return;
    }
    System.out.printf("[%s] cpu by thread during the %d s of producing (uptime load %s):%n%s",
        sdk, seconds, loadAverage(), ThreadCpu.between(cpuBefore, cpuAfter));
    System.out.printf("[%s] threads=%d run=%ds elapsed(until closed)=%.2fs offered=%d written=%d dropped=%d"
            + " lines_on_disk(.gz decompressed)=%d bytes_on_disk(as stored)=%d bytes_per_line=%.0f%n",
        sdk, threads, seconds, elapsed, WrittenLines.lastOffered, written, dropped, onDisk,
        WrittenLines.lastBytes, bytesPerLine);
    System.out.printf("[%s] RESULT written_records_per_s=%.0f json_bytes_per_s=%.0f on_disk_records_per_s=%.0f%n",
        sdk, written / elapsed, written * bytesPerLine / elapsed, onDisk / elapsed);
  }
}
