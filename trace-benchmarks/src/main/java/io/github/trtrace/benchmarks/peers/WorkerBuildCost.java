package io.github.trtrace.benchmarks.peers;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.sink.RecordSink;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Issue 22: the dispatcher worker's CPU per record, the work its thread does for each record between the
 * caller's hand-off and the sinks (building the immutable record from the pooled entry, taking it from the
 * queue, handing full batches on), apart from the producers and the sinks. Each chunk: the only sink is held
 * (its {@code write} waits), so the worker, which takes records only while a sink has room, leaves them queued;
 * one producer traces {@value #CHUNK} times {@link SustainedThroughput}'s request (request context, four
 * stages, 15 fields, two attributes) into a queue of {@value #QUEUE}; then the sink is let go and the producer
 * waits for {@code flush()}: the worker drains the chunk in full batches of 512 with no producer running
 * beside it. Each round lasts about one second; the worker thread's CPU clock ({@code
 * ThreadMXBean.getThreadCpuTime}) over the round, divided by the records of the round, is printed for rounds
 * 6-12 (1-5 warm up: the worker runs in bursts, and the JIT compiler shares the two cores), so other processes on a shared machine move it less than a wall-clock figure would. A
 * plain main, run in a JVM per variant, so that two builds (before and after a change) can be compared with
 * the same class, as {@code SinkEncodeCost}.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.trtrace.benchmarks.peers.WorkerBuildCost [label]
 * [extra attributes]}: extra attributes (default 0) are added to each record beyond its two.
 */
public final class WorkerBuildCost {
  private WorkerBuildCost() {}

  /** Records per chunk: below the tracer's pool of free entries (16 384), so that every entry is reused. */
  private static final int CHUNK = 16_000;
  private static final int QUEUE = 16_384;

  public static void main(String[] args) throws Exception {
    String label = args.length > 0 ? args[0] : "trtrace";
    int extra = args.length > 1 ? Integer.parseInt(args[1]) : 0;
    String[] keys = new String[extra];
    for (int i = 0; i < extra; i++) {
      keys[i] = "extra." + i;
    }
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Semaphore held = new Semaphore(0);
    AtomicBoolean holding = new AtomicBoolean();
    RecordSink sink = RecordSink.named("held", batch -> {
      if (holding.get()) {
        held.acquireUninterruptibly();
      }
    });
    try (InferenceTracer tracer = InferenceTracer.builder().sink(sink).queueCapacity(QUEUE)
        .exportTimeout(Duration.ofSeconds(30)).build()) {
      Producer p = new Producer();
      p.init(0, 1);
      request(tracer, p, keys); // starts the dispatcher's threads
      tracer.flush().get();
      long worker = threadId("trtrace-dispatcher");
      for (int round = 1; round <= 12; round++) {
        long cpu0 = mx.getThreadCpuTime(worker);
        long records = 0;
        long end = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() - end < 0) {
          holding.set(true);
          for (int i = 0; i < CHUNK; i++) {
            request(tracer, p, keys);
          }
          holding.set(false);
          held.release(2); // the batch the sink waits on and one the worker may have handed it meanwhile
          tracer.flush().get();
          held.drainPermits();
          records += CHUNK;
        }
        double workerNs = (double) (mx.getThreadCpuTime(worker) - cpu0) / records;
        if (round > 5) {
          System.out.printf("%s round %d: worker %.1f cpu-ns/record, %d records, %d extra attributes%n",
              label, round, workerNs, records, extra);
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
