package io.github.trtrace.core.fault;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TracerStats;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The program the child-JVM tests run: a host application tracing requests with the README's
 * defaults (JSON Lines file, shutdown hook on by default) until it has traced {@code count} requests
 * or is killed.
 *
 * <p>Arguments: {@code <log file> <count, or 0 for until killed> <threads> <requests per second per
 * thread, 0 for full speed>}. Prints {@code ready} once a first record was traced. When the JVM shuts
 * down (normal exit or SIGTERM), a second hook stops the producers as a service stops taking
 * requests (the request each is in still ends and is offered, racing the tracer's own hook), waits
 * for them and (at most 6 s) for the tracer's worker thread to end, and prints the counters as one {@code stats
 * ...} line.
 */
public final class TracingChild {
  private static volatile boolean stopping;
  private static final List<Thread> WORKERS = new ArrayList<>();

  private TracingChild() {}

  public static void main(String[] args) throws Exception {
    Path log = Path.of(args[0]);
    long count = Long.parseLong(args[1]);
    int threads = Integer.parseInt(args[2]);
    long perSecond = Long.parseLong(args[3]);
    InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(log).build();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> printStatsAfterClose(tracer), "stats-hook"));
    List<Thread> workers = WORKERS;
    for (int w = 0; w < threads; w++) {
      int worker = w;
      Thread t =
          new Thread(
              () -> {
                long pause = perSecond == 0 ? 0 : 1_000_000_000L / perSecond;
                for (long i = 0; (count == 0 || i < count) && !stopping; i++) {
                  try (InferenceTrace trace = tracer.start("child-model", "req-" + worker + "-" + i)) {
                    trace.inputTokens(12).outputTokens(3).status(Status.SUCCESS);
                  }
                  if (worker == 0 && i == 0) {
                    System.out.println("ready");
                    System.out.flush();
                  }
                  if (pause > 0) {
                    LockSupport.parkNanos(pause);
                  }
                }
              },
              "producer-" + w);
      synchronized (workers) {
        workers.add(t);
      }
      t.start();
    }
    for (Thread t : workers) {
      t.join();
    }
    System.out.println("done");
    // Normal exit: the shutdown hook closes the tracer.
  }

  private static void printStatsAfterClose(InferenceTracer tracer) {
    stopping = true;
    synchronized (WORKERS) {
      for (Thread t : WORKERS) {
        joinQuietly(t);
      }
    }
    // The tracer's hook (when there is one) closes the dispatcher within its 5 s close timeout; the
    // worker thread ends with it. Waiting longer would let a still-running worker drain meanwhile.
    boolean workerEnded = true;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals("trtrace-dispatcher")) {
        try {
          t.join(6_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        workerEnded &= !t.isAlive();
      }
    }
    TracerStats s = tracer.stats();
    DispatcherStats d = s.dispatcher();
    StringBuilder line = new StringBuilder("stats");
    line.append(" workerEnded=").append(workerEnded ? 1 : 0);
    line.append(" ended=").append(s.ended());
    line.append(" offered=").append(d.offered());
    line.append(" dropped=").append(d.dropped());
    line.append(" accepted=").append(d.accepted());
    d.sinks().forEach((name, sink) -> line.append(" written=").append(sink.written()).append(" lost=").append(sink.lost()));
    System.out.println(line);
    System.out.flush();
  }

  private static void joinQuietly(Thread t) {
    try {
      t.join(20_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
