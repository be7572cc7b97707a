package io.github.trtrace.benchmarks.peers;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Issue 22: the dispatcher worker's CPU per record, the work its thread does for each record between the
 * caller's hand-off and the sinks (mostly building the immutable record from the pooled entry, plus taking it
 * from the queue and handing batches on), apart from the producers and the sinks. One producer traces
 * {@link SustainedThroughput}'s request (request context, four stages, 15 fields, two attributes) in chunks of
 * 4 096 and waits for {@code flush()} after each; the only sink discards. Each round lasts about one second;
 * the worker thread's CPU clock ({@code ThreadMXBean.getThreadCpuTime}) over the round, divided by the records
 * of the round, is printed for rounds 4-8 (1-3 warm up), so other processes on a shared machine move it less
 * than a wall-clock figure. A plain main, run in a JVM per variant, so that two builds (before and after a
 * change) can be compared with the same class, as {@code SinkEncodeCost}.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.trtrace.benchmarks.peers.WorkerBuildCost [label]
 * [extra attributes]}: extra attributes (default 0) are added to each record beyond its two.
 */
public final class WorkerBuildCost {
  private WorkerBuildCost() {}

  private static final int CHUNK = 4096;

  public static void main(String[] args) throws Exception {
    String label = args.length > 0 ? args[0] : "trtrace";
    int extra = args.length > 1 ? Integer.parseInt(args[1]) : 0;
    String[] keys = new String[extra];
    for (int i = 0; i < extra; i++) {
      keys[i] = "extra." + i;
    }
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    try (InferenceTracer tracer =
        InferenceTracer.builder().sink(RecordSink.named("discard", batch -> { })).build()) {
      Producer p = new Producer();
      p.init(0, 1);
      request(tracer, p, keys); // starts the dispatcher's threads
      tracer.flush().get();
      long worker = threadId("trtrace-dispatcher");
      for (int round = 1; round <= 8; round++) {
        long cpu0 = mx.getThreadCpuTime(worker);
        long own0 = mx.getCurrentThreadCpuTime();
        long records = 0;
        long end = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() - end < 0) {
          for (int i = 0; i < CHUNK; i++) {
            request(tracer, p, keys);
          }
          tracer.flush().get();
          records += CHUNK;
        }
        double workerNs = (double) (mx.getThreadCpuTime(worker) - cpu0) / records;
        double callerNs = (double) (mx.getCurrentThreadCpuTime() - own0) / records;
        if (round > 3) {
          System.out.printf("%s round %d: worker %.1f cpu-ns/record (caller %.1f), %d records, %d extra attributes%n",
              label, round, workerNs, callerNs, records, extra);
        }
      }
      long dropped = tracer.stats().dispatcher().dropped();
      if (dropped != 0) {
        throw new IllegalStateException(dropped + " records dropped: the figures above would not be per record");
      }
    }
  }

  private static void request(InferenceTracer tracer, Producer p, String[] extraKeys) {
    try (RequestContext.Scope scope = RequestContext.with(p.nextRequestId()).model(RequestShape.MODEL).build().open();
        InferenceTrace t = tracer.start(RequestShape.MODEL)) {
      TrtraceFileBenchmark.body(t);
      for (String k : extraKeys) {
        t.attribute(k, RequestShape.TENANT);
      }
    }
  }

  private static long threadId(String name) {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(name)) {
        return t.getId();
      }
    }
    throw new IllegalStateException("no thread named " + name);
  }
}
