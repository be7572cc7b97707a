package io.github.trtrace.benchmarks;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.sink.RecordSink;
import java.util.concurrent.TimeUnit;
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
 * Scheduler-thread cost of one shared launch's attribution (issue 17): open, declare {@code members}
 * members (one prefill, the rest decode rows), give the GPU time, close (shares split, every member's
 * figures written and released). The members are long-lived traces, as running requests are across
 * the steps of continuous batching; the tracer is in garbage-free mode. No launch log: its line is
 * encoded and written by its own thread ({@code LaunchAllocationTest} covers the scheduler side with
 * the log on). {@code unbatched} is the peer: the same {@code members} requests each timed as today's
 * unbatched path times a request's launch ({@code TracedExecution}: an {@code INFER} stage around it,
 * then {@code addGpuMs} with its measured time), one request per launch.
 *
 * <pre>{@code
 * java -jar trace-benchmarks/target/benchmarks.jar SharedLaunchBenchmark -prof gc
 * }</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class SharedLaunchBenchmark {
  @Param({"1", "8", "64", "256"})
  public int members;

  private InferenceTracer tracer;
  private InferenceTrace[] traces;

  @Setup(Level.Trial)
  public void setUp() {
    tracer = InferenceTracer.builder()
        .sink(RecordSink.named("discard", batch -> {}))
        .garbageFree(true)
        .shutdownHook(false)
        .build();
    traces = new InferenceTrace[members];
    for (int i = 0; i < members; i++) {
      traces[i] = tracer.start("llama-8b", "req-bench-" + i);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    for (InferenceTrace t : traces) {
      t.close();
    }
    System.out.println("\n" + tracer.stats() + " " + tracer.launchStats());
    tracer.close();
  }

  @Benchmark
  public long launch() {
    return launch(tracer, traces);
  }

  /** What the unbatched path records for the same requests: per request, its launch's stage and GPU time. */
  @Benchmark
  public InferenceTrace unbatched() {
    return unbatched(traces);
  }

  /** One shared launch of {@code ts}: the first prefills 512 tokens, the others decode a row each. */
  static long launch(InferenceTracer tracer, InferenceTrace[] ts) {
    try (SharedLaunch l = tracer.launch("sha256:bench")) {
      l.prefill(ts[0], 512);
      for (int i = 1; i < ts.length; i++) {
        l.decode(ts[i]);
      }
      l.gpuMs(10.0);
      return l.id();
    }
  }

  /** The same requests, one launch each as {@code TracedExecution} records it: an INFER stage, then its GPU time. */
  static InferenceTrace unbatched(InferenceTrace[] ts) {
    double each = 10.0 / ts.length;
    for (InferenceTrace t : ts) {
      t.stage(Stage.INFER).close();
      t.addGpuMs(each);
    }
    return ts[0];
  }
}
