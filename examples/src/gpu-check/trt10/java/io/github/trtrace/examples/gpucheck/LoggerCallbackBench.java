package io.github.trtrace.examples.gpucheck;

import io.github.trtrace.tensorrt.log.TensorRtLogger;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.log.TrtLogPipeline;
import io.github.trtrace.tensorrt.internal.shim.TensorRtEmulator;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.tensorrt.global.nvinfer;

/**
 * Cost of one TensorRT logger callback into Java, measured on the real path: native code calls
 * {@code ILogger::log} on the preset's ILogger (our {@link TensorRtLogger}), which upcalls into the
 * JVM and runs the pipeline. Run in its own JVM after {@link GpuCheck} (it calls through a vtable
 * declared in the shim; a mismatch would crash this process, not the check).
 */
public final class LoggerCallbackBench {
  public static void main(String[] args) {
    Loader.load(nvinfer.class);
    AtomicLong seen = new AtomicLong();
    TrtLogPipeline pipeline = TrtLogPipeline.builder().noRateLimit().onEvent(e -> seen.incrementAndGet()).build();
    try (TensorRtLogger logger = TensorRtLogger.create(pipeline)) {
      long addr = logger.address();
      String msg = "[MemUsageChange] Init CUDA: CPU +24, GPU +0, now: CPU 90, GPU 526 (MiB)";
      // INFO at run time is below the default WARNING level: filtered in the pipeline (the common case)
      TensorRtEmulator.logCalls(addr, 3, msg, 20_000);
      long filtered = TensorRtEmulator.logCalls(addr, 3, msg, 100_000);
      // VERBOSE inside a build scope: captured into the report, not printed
      long captured;
      try (TrtLogPipeline.Capture s = pipeline.openCapture("build:bench", (TrtLogEvent e) -> { })) {
        TensorRtEmulator.logCalls(addr, 4, msg, 20_000);
        captured = TensorRtEmulator.logCalls(addr, 4, msg, 100_000);
      }
      System.out.println(String.format(Locale.ROOT,
          "bench: logger callback native->Java, INFO filtered at run time: %.0f ns/call (100k calls)", filtered / 1e5));
      System.out.println(String.format(Locale.ROOT,
          "bench: logger callback native->Java, VERBOSE captured by a build scope: %.0f ns/call (100k calls)", captured / 1e5));
      System.out.println("pipeline stats: " + pipeline.stats() + ", run-time events delivered: " + seen.get());
    }
  }
}
