package io.github.trtrace.benchmarks;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Stage;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.otel.TrtraceOpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.lang.management.ManagementFactory;
import java.util.Collection;

/**
 * The bytes a traced request allocates on its own (calling) thread through trace-otel, from the JDK's
 * per-thread allocation counter ({@code ThreadMXBean.getThreadAllocatedBytes}): JMH's {@code -prof gc}
 * divides the allocation of every thread by the operations, so it cannot tell the caller's share from the
 * dispatcher worker's (issue 16 §3 moved the record's building to the worker). Same body and OTel set-up as
 * {@link OtelListenerBenchmark}; N requests per round, four rounds, then the queue is flushed outside the
 * measured window (N below the queue's capacity: nothing is dropped). The time per request is printed too,
 * but only the bytes are steady on a loaded machine. A second argument {@code plain} runs the same requests
 * without trace-otel (no listener): the caller's cost with and without it, from one program.
 *
 * <pre>{@code
 * java -cp trace-benchmarks/target/benchmarks.jar io.github.trtrace.benchmarks.OtelCallerAllocation 20000
 * java -cp trace-benchmarks/target/benchmarks.jar io.github.trtrace.benchmarks.OtelCallerAllocation 20000 plain
 * }</pre>
 */
public final class OtelCallerAllocation {
  private OtelCallerAllocation() {}

  public static void main(String[] a) {
    SpanExporter discard = new SpanExporter() {
      public CompletableResultCode export(Collection<SpanData> s) { return CompletableResultCode.ofSuccess(); }
      public CompletableResultCode flush() { return CompletableResultCode.ofSuccess(); }
      public CompletableResultCode shutdown() { return CompletableResultCode.ofSuccess(); }
    };
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(
        SdkTracerProvider.builder().addSpanProcessor(BatchSpanProcessor.builder(discard).build()).build()).build();
    boolean plain = a.length > 1 && a[1].equals("plain");
    InferenceTracer.Builder builder = InferenceTracer.builder().sink(RecordSink.named("discard", b -> {}))
        .queueFullPolicy(InferenceTracer.QueueFullPolicy.DROP).queueCapacity(65_536);
    InferenceTracer tracer = plain ? builder.build() : builder.listener(TrtraceOpenTelemetry.create(sdk)).build();
    com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId(); // threadId() is JDK 19+; the benchmarks run on 17 too
    int n = Integer.parseInt(a[0]);
    for (int round = 0; round < 4; round++) {
      long b0 = mx.getThreadAllocatedBytes(tid), t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        tracer.run("llama-8b", t -> {
          t.runStage(Stage.QUEUE, () -> {});
          t.runStage(Stage.PREPROCESS, () -> t.inputTokens(128));
          t.runStage(Stage.DECODE, () -> { t.runStage(Stage.INFER, () -> t.addGpuMs(4.25)); t.token(); t.token(); });
          t.runStage(Stage.POSTPROCESS, () -> {});
          t.outputTokens(64).engineFingerprint("sha256:0f1e2d").finishReason("stop").maxTokens(256);
        });
      }
      long ns = System.nanoTime() - t0, bytes = mx.getThreadAllocatedBytes(tid) - b0;
      tracer.flush().join(); // outside the measured window; n < the queue's capacity: nothing dropped
      System.out.printf("round %d: caller %.0f B/request, %.0f ns/request dropped so far %d%n", round, (double) bytes / n, (double) ns / n, tracer.stats().dispatcher().droppedQueueFull());
    }
    tracer.close();
    sdk.close();
  }
}
