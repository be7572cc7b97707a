package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.TracerStats.SinkStats;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher: two bounded MPSC array queues (main, and a reserve only priority records use
 * when the main one is full) drained, reserve first, by one daemon worker thread, which hands each
 * batch to every sink's own thread ({@link SinkSlot}).
 *
 * <p>Its parts, one job each: {@link DispatchQueues} (the two queues), {@link OfferPath} (the
 * producer side: queue-full policy, BLOCK waits, offer versus close), {@link DispatchWorker} (the
 * worker loop, flushes and the close drain), {@link SinkSlot} (a sink's thread and counters), {@link
 * DropCounts}. This class builds them, starts them, and answers {@link #close(Duration)} and {@link
 * #stats()}.
 *
 * <p>Sinks: each sink runs on its own daemon thread and holds at most one batch besides the one it
 * is writing, which it starts as soon as that call returns ({@link SinkSlot}). The worker waits at
 * most the export timeout (measured from the start of the sink's current call) for a sink with no
 * room; a sink still busy after that misses the batch, counted as
 * {@code lostStuck} for it, and the worker moves on, so a slow or blocked sink never holds up the
 * others for longer than the export timeout, and a stuck one only once. Written and lost counts are
 * kept per sink; a buffering sink reports its own ({@link RecordSink#delivery()}).
 *
 * <p>Sink failures: every {@link Exception} and {@link Error} a sink throws is counted and logged,
 * and the sink gets the next batch, including {@link StackOverflowError} and {@link
 * OutOfMemoryError}, which in a sink are almost always local to the batch; on the worker itself they
 * cost the records it held, counted lost per sink, and the worker goes on ({@link DispatchWorker}). Any other {@link
 * VirtualMachineError} means the JVM itself is broken: the dispatcher then stops (later offers are
 * counted as dropped after close), closes every sink that still answers, and the error is rethrown
 * to the thread's uncaught-exception handler.
 *
 * <p>Queue elements (issue 10, garbage-free callers): either a built {@link InferenceRecord} (from
 * {@link #offer}) or a {@link PendingRecord}, the tracer's pooled mutable entry ({@link
 * #offerPending}). The worker turns a pending record into the immutable record as it takes it from
 * the queue ({@link DispatchWorker}) and gives the entry back to its pool there, so sinks only ever see
 * immutable records and the caller allocates nothing: the snapshot's allocation moves to the worker.
 */
final class DefaultDispatcher implements Dispatcher, PendingOffer {
  static final Logger LOG = LoggerFactory.getLogger("io.github.trtrace.dispatch");
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final SinkSlot[] sinks;
  private final DispatchQueues queues;
  private final DropCounts drops = new DropCounts(RateLimitedLogger.of(LOG, LOG_INTERVAL_MILLIS));
  private final DispatchWorker worker;
  final OfferPath offers;
  private final Duration closeTimeout;
  private final @Nullable Thread shutdownHook;
  private final RateLimitedLogger misuseLog = RateLimitedLogger.of(LOG, LOG_INTERVAL_MILLIS);

  private final Map<String, String> closeFailures = Collections.synchronizedMap(new LinkedHashMap<>());
  private final AtomicBoolean closeCalled = new AtomicBoolean();
  volatile long closeDeadlineNanos;
  volatile @Nullable Throwable fatal;
  private final CompletableFuture<CloseReport> closeReport = new CompletableFuture<>();

  private DefaultDispatcher(Dispatcher.Builder b) {
    this.sinks = new SinkSlot[b.sinks.size()];
    for (int i = 0; i < sinks.length; i++) {
      sinks[i] = new SinkSlot(this, b.sinks.get(i), i);
    }
    this.queues = new DispatchQueues(b.queueCapacity, b.reservedCapacity);
    this.worker = new DispatchWorker(this, sinks, queues, drops, b);
    this.offers = new OfferPath(queues, drops, worker, b.policy, b.blockTimeout.toNanos(), worker.wakeThreshold);
    this.closeTimeout = b.closeTimeout;
    this.shutdownDrainNanos = saturatedNanos(b.shutdownDrain);
    this.inFlight = b.inFlight;
    this.shutdownHook =
        b.shutdownHook ? new Thread(this::drainThenClose, THREAD_NAME + "-shutdown") : null;
  }

  /** How long the shutdown hook waits for in-flight requests; see {@link Dispatcher.Builder#shutdownDrain}. */
  private final long shutdownDrainNanos;
  private final java.util.function.LongSupplier inFlight;
  /** How long no request must be in flight before the hook closes within its drain. */
  static final long DRAIN_QUIET_MILLIS = 100;

  /**
   * The shutdown hook: the server's own hook drains its requests at the same time (the JVM starts every
   * hook at once), so offers stay open while requests are in flight, up to the drain, then close.
   */
  private void drainThenClose() {
    long start = System.nanoTime();
    long quietSince = -1;
    while (!closeCalled.get() && System.nanoTime() - start < shutdownDrainNanos) {
      long now = System.nanoTime();
      if (inFlight.getAsLong() > 0) {
        quietSince = -1;
      } else if (quietSince < 0) {
        quietSince = now;
      } else if (now - quietSince >= TimeUnit.MILLISECONDS.toNanos(DRAIN_QUIET_MILLIS)) {
        break;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    long drained = System.nanoTime() - start;
    if (drained >= shutdownDrainNanos && shutdownDrainNanos > 0 && inFlight.getAsLong() > 0) {
      LOG.warn("trtrace: shutdown drain of {} ms over with {} requests still in flight; closing",
          TimeUnit.NANOSECONDS.toMillis(shutdownDrainNanos), inFlight.getAsLong());
    }
    close(closeTimeout);
  }

  static DefaultDispatcher start(Dispatcher.Builder b) {
    DefaultDispatcher d = new DefaultDispatcher(b);
    for (SinkSlot s : d.sinks) {
      s.thread.start();
    }
    d.worker.thread.start();
    if (d.shutdownHook != null) {
      try {
        Runtime.getRuntime().addShutdownHook(d.shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        LOG.warn("JVM is shutting down: trtrace dispatcher shutdown hook not registered");
      }
    }
    return d;
  }

  // ---------------------------------------------------------------- caller side

  @Override
  public boolean offer(@Nullable InferenceRecord record, boolean priority) {
    if (record == null) {
      misuseLog.warn("Dispatcher.offer(null) ignored: a record is required");
      return false;
    }
    return offers.offer(record, priority);
  }

  @Override
  public boolean offerPending(PendingRecord record, boolean priority) {
    return offers.offer(record, priority);
  }

  @Override
  public CompletableFuture<Void> flush() {
    return worker.flush();
  }

  @Override
  public void close() {
    close(closeTimeout);
  }

  @Override
  public CloseReport close(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    long timeoutNanos = timeout.isNegative() ? 0 : saturatedNanos(timeout);
    if (!closeCalled.compareAndSet(false, true)) {
      return awaitFirstReport(timeoutNanos);
    }
    closeDeadlineNanos = System.nanoTime() + timeoutNanos;
    offers.close();
    removeShutdownHook();
    worker.unpark();
    offers.releaseWaiters(); // producers waiting for space count their record as dropped after close
    boolean finished = false;
    if (!(Thread.currentThread() instanceof DispatcherThread)) {
      try {
        finished = worker.terminated.await(timeoutNanos, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (!finished) {
      // The worker gives up on them at the same deadline; do it here too, so that the counters read
      // after close() returns already say what a stuck sink held (abandon is idempotent).
      for (SinkSlot s : sinks) {
        s.abandonIfBusy();
      }
    }
    CloseReport report = report(!finished);
    if (!report.clean()) {
      LOG.warn("trtrace dispatcher closed with problems: {}", report);
    }
    closeReport.complete(report);
    return report;
  }

  private CloseReport awaitFirstReport(long timeoutNanos) {
    try {
      return closeReport.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // first close still running: say where it stands
    }
    return report(true);
  }

  /** What close achieved so far: per sink, accepted records that did not reach it. */
  private CloseReport report(boolean timedOut) {
    Map<String, Long> unwritten = new LinkedHashMap<>();
    long[] written = new long[sinks.length];
    for (int i = 0; i < sinks.length; i++) {
      written[i] = sinks[i].counts.written;
    }
    long accepted = queues.accepted(); // after the sink counters, so never below them
    for (int i = 0; i < sinks.length; i++) {
      unwritten.put(sinks[i].name, accepted - written[i]);
    }
    return new CloseReport(
        worker.drainedOnClose,
        worker.discardedOnClose,
        timedOut || sinksStillBusy(),
        Collections.unmodifiableMap(unwritten),
        copyCloseFailures());
  }

  private boolean sinksStillBusy() {
    for (SinkSlot s : sinks) {
      if (!s.isClosed()) {
        return true;
      }
    }
    return false;
  }

  private Map<String, String> copyCloseFailures() {
    synchronized (closeFailures) {
      return Collections.unmodifiableMap(new LinkedHashMap<>(closeFailures));
    }
  }

  private void removeShutdownHook() {
    if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running or about to: nothing to remove
      }
    }
  }

  @Override
  public DispatcherStats stats() {
    Map<String, SinkStats> perSink = new LinkedHashMap<>();
    SinkStats[] partial = new SinkStats[sinks.length];
    long discarded = worker.discardedOnClose;
    for (int i = 0; i < sinks.length; i++) {
      partial[i] = sinks[i].counts.snapshot(discarded);
    }
    long queued = queues.queued();
    long accepted = queues.accepted(); // read last: never below what the sinks account for
    for (int i = 0; i < sinks.length; i++) {
      SinkStats p = partial[i];
      long inFlight = accepted - p.written() - p.lost();
      perSink.put(
          sinks[i].name,
          new SinkCounts(
              p.written(), p.lostFailed(), p.lostStuck(), p.lostClosed(), inFlight, p.failures(), p.lastError()));
    }
    return new DispatcherCounts(
        drops.offered.sum(),
        accepted,
        drops.droppedQueueFull.sum(),
        drops.droppedBlockTimeout.sum(),
        drops.droppedClosed.sum(),
        queued,
        Collections.unmodifiableMap(perSink));
  }

  /** Times a caller unparked the parked worker (half a batch waiting, or a BLOCK wait; for tests). */
  long callerWakes() {
    return worker.callerWakes();
  }

  /** OutOfMemoryErrors and StackOverflowErrors the worker survived (for tests). */
  long workerErrors() {
    return worker.workerErrors();
  }

  /** Whether sink {@code index} holds a batch behind the call it is in (for tests). */
  boolean holdsNextBatch(int index) {
    return sinks[index].holdsNext();
  }

  void sinkFailed(SinkSlot s, String action, Throwable t) {
    String description = describe(t);
    if (worker.closePhase) {
      closeFailures.putIfAbsent(s.name, action + ": " + description);
    }
    s.log.warn("trtrace sink '{}' failed to {}: {}", s.name, action, description, t);
  }

  /** A sink thread met a fatal JVM error: stop the dispatcher (the worker closes the other sinks). */
  void fatalInSink(SinkSlot s, VirtualMachineError e) {
    LOG.error("trtrace sink '{}' raised a fatal JVM error; the dispatcher stops", s.name, e);
    fatal = e;
    offers.close(); // before any flush future completes: later offers are refused and counted
    closeDeadlineNanos = System.nanoTime() + closeTimeout.toNanos();
    worker.unpark();
    offers.releaseWaiters();
  }

  static boolean isFatal(Throwable t) {
    return t instanceof VirtualMachineError
        && !(t instanceof StackOverflowError)
        && !(t instanceof OutOfMemoryError);
  }

  static String describe(Throwable t) {
    String message = t.getMessage();
    return message == null ? t.getClass().getName() : t.getClass().getName() + ": " + message;
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE / 2;
    }
  }

  /** The worker and sink threads: offers made on them (a sink that records) never wait. */
  static final class DispatcherThread extends Thread {
    DispatcherThread(Runnable task, String name) {
      super(task, name);
      setDaemon(true);
    }
  }

  static RateLimitedLogger newSinkLog() {
    return RateLimitedLogger.of(LOG, LOG_INTERVAL_MILLIS);
  }
}
