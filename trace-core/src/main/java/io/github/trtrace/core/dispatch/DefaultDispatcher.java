package io.github.trtrace.core.dispatch;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.dispatch.DispatcherStats.SinkStats;
import io.github.trtrace.core.internal.RateLimitedLogger;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher: two bounded MPSC array queues (main, and a reserve only priority records use
 * when the main one is full) drained, reserve first, by one daemon worker thread.
 *
 * <p>Hand-off: the idle worker parks for at most the max write delay and then drains what arrived.
 * Producers unpark it early only when half a batch is waiting and it has announced that it is about
 * to park ({@code workerParked}); the worker re-checks for work after announcing, so a wake-up is
 * never lost and a busy worker is never unparked. Most offers therefore cost no system call.
 *
 * <p>Sink failures: every {@link Exception} and every {@link Error} a sink throws is counted and
 * logged, and the worker goes on with the next sink and batch, including {@link
 * StackOverflowError} and {@link OutOfMemoryError}, which in a sink are almost always local to the
 * batch (deep recursion, a huge buffer) and released by unwinding. Any other {@link
 * VirtualMachineError} ({@link InternalError}, {@link UnknownError}) means the JVM itself is broken:
 * the worker then stops, the dispatcher turns closed (later offers are counted as dropped after
 * close) and the error is rethrown to the thread's uncaught-exception handler.
 */
final class DefaultDispatcher implements Dispatcher {
  private static final Logger LOG = LoggerFactory.getLogger("io.github.trtrace.dispatch");
  private static final long LOG_INTERVAL_MILLIS = 10_000;
  private static final long DROP_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final int BLOCK_SPINS = 64;
  private static final long BLOCK_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

  private final SinkSlot[] sinks;
  private final MpscAtomicArrayQueue<InferenceRecord> mainQueue;
  private final int mainCapacity;
  private final MpscAtomicArrayQueue<InferenceRecord> reserveQueue;
  private final int reservedCapacity;
  private final QueueFullPolicy policy;
  private final long blockTimeoutNanos;
  private final long flushIntervalNanos;
  private final long maxWriteDelayNanos;
  private final int wakeThreshold;
  private final int batchSize;
  private final Duration closeTimeout;
  private final Thread worker;
  private final @Nullable Thread shutdownHook;

  private final LongAdder offered = new LongAdder();
  private final LongAdder droppedQueueFull = new LongAdder();
  private final LongAdder droppedBlockTimeout = new LongAdder();
  private final LongAdder droppedClosed = new LongAdder();
  private final RateLimitedLogger dropLog = RateLimitedLogger.of(LOG, LOG_INTERVAL_MILLIS);
  private final RateLimitedLogger misuseLog = RateLimitedLogger.of(LOG, LOG_INTERVAL_MILLIS);

  private final AtomicBoolean workerParked = new AtomicBoolean();
  private final ConcurrentLinkedQueue<CompletableFuture<Void>> flushRequests =
      new ConcurrentLinkedQueue<>();

  // Written only by the worker thread; volatile so that stats() and close() read them.
  private volatile long written;
  private volatile long failed;
  private volatile boolean closePhase;
  private volatile long drainedOnClose;
  private final Map<String, String> closeFailures = Collections.synchronizedMap(new LinkedHashMap<>());
  private long lastReportedDrops;

  private final AtomicBoolean closeCalled = new AtomicBoolean();
  private volatile long closeDeadlineNanos;
  private volatile boolean closing;
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final CompletableFuture<Void> terminatedFuture = new CompletableFuture<>();
  private final CompletableFuture<CloseReport> closeReport = new CompletableFuture<>();

  private DefaultDispatcher(Builder b) {
    this.sinks = new SinkSlot[b.sinks.size()];
    for (int i = 0; i < sinks.length; i++) {
      sinks[i] = new SinkSlot(b.sinks.get(i));
    }
    this.mainCapacity = b.queueCapacity;
    this.mainQueue = new MpscAtomicArrayQueue<>(Math.max(2, b.queueCapacity));
    this.reservedCapacity = b.reservedCapacity;
    this.reserveQueue = new MpscAtomicArrayQueue<>(Math.max(2, b.reservedCapacity));
    this.policy = b.policy;
    this.blockTimeoutNanos = b.blockTimeout.toNanos();
    this.flushIntervalNanos = b.flushInterval.toNanos();
    this.batchSize = b.batchSize;
    this.maxWriteDelayNanos = b.maxWriteDelay.toNanos();
    this.wakeThreshold = Math.max(1, Math.min(b.batchSize, b.queueCapacity) / 2);
    this.closeTimeout = b.closeTimeout;
    this.worker = new Thread(this::runWorker, THREAD_NAME);
    this.worker.setDaemon(true);
    this.shutdownHook =
        b.shutdownHook ? new Thread(() -> close(closeTimeout), THREAD_NAME + "-shutdown") : null;
  }

  static DefaultDispatcher start(Builder b) {
    DefaultDispatcher d = new DefaultDispatcher(b);
    d.worker.start();
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
    offered.increment();
    if (closing) {
      droppedClosed.increment();
      return false;
    }
    if (tryEnqueue(record, priority)) {
      if (mainQueue.size() >= wakeThreshold) {
        wakeWorker();
      }
      return true;
    }
    if (policy == QueueFullPolicy.DROP || Thread.currentThread() == worker) {
      droppedQueueFull.increment();
      return false;
    }
    return blockingOffer(record, priority);
  }

  private boolean tryEnqueue(InferenceRecord record, boolean priority) {
    return mainQueue.offerIfBelowThreshold(record, mainCapacity)
        || (priority
            && reservedCapacity > 0
            && reserveQueue.offerIfBelowThreshold(record, reservedCapacity));
  }

  private boolean blockingOffer(InferenceRecord record, boolean priority) {
    long deadline = System.nanoTime() + blockTimeoutNanos;
    LockSupport.unpark(worker);
    for (int spins = 0; ; spins++) {
      if (closing) {
        droppedClosed.increment();
        return false;
      }
      if (tryEnqueue(record, priority)) {
        wakeWorker();
        return true;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || Thread.currentThread().isInterrupted()) {
        droppedBlockTimeout.increment();
        return false;
      }
      if (spins < BLOCK_SPINS) {
        Thread.onSpinWait();
      } else {
        LockSupport.parkNanos(this, Math.min(left, BLOCK_PARK_NANOS));
      }
    }
  }

  private void wakeWorker() {
    if (workerParked.get() && workerParked.compareAndSet(true, false)) {
      LockSupport.unpark(worker);
    }
  }

  @Override
  public CompletableFuture<Void> flush() {
    if (closing) {
      return terminatedFuture.handle((ignored, fatal) -> null);
    }
    CompletableFuture<Void> request = new CompletableFuture<>();
    flushRequests.add(request);
    if (closing) {
      // The worker may already be past its last look at the requests.
      terminatedFuture.whenComplete((ignored, error) -> request.complete(null));
    }
    wakeWorker();
    return request;
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
    closing = true;
    removeShutdownHook();
    LockSupport.unpark(worker);
    boolean finished = false;
    if (Thread.currentThread() != worker) {
      try {
        finished = terminated.await(timeoutNanos, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
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

  /** What close achieved so far. */
  private CloseReport report(boolean timedOut) {
    return new CloseReport(drainedOnClose, notWritten(), timedOut, copyCloseFailures());
  }

  /**
   * Records accepted into a queue and not (yet) through every sink's {@code write}: queued, in the
   * batch a sink holds, or discarded at the close deadline. Counted from the queues' producer
   * indices (every record ever accepted) rather than from what the worker has taken out, so the
   * answer does not depend on where the worker is (mid-batch, mid-discard). {@code written} and
   * {@code failed} are read first: they only grow, so the result may be high by a record the
   * worker finishes meanwhile, never low.
   */
  private long notWritten() {
    long done = written + failed;
    return mainQueue.currentProducerIndex() + reserveQueue.currentProducerIndex() - done;
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
    for (SinkSlot s : sinks) {
      perSink.put(s.name, s.snapshot());
    }
    return new DispatcherStats(
        offered.sum(),
        written,
        failed,
        droppedQueueFull.sum(),
        droppedBlockTimeout.sum(),
        droppedClosed.sum(),
        queued(),
        Collections.unmodifiableMap(perSink));
  }

  private long queued() {
    return (long) mainQueue.size() + reserveQueue.size();
  }

  // ---------------------------------------------------------------- worker side

  private void runWorker() {
    List<InferenceRecord> batch = new ArrayList<>(Math.min(batchSize, 4096));
    List<InferenceRecord> view = Collections.unmodifiableList(batch);
    long lastFlush = System.nanoTime();
    long lastDropCheck = lastFlush;
    boolean dirty = false;
    try {
      while (!closing) {
        if (!flushRequests.isEmpty()) {
          serveFlushRequests(batch, view);
          dirty = false;
          lastFlush = System.nanoTime();
          continue;
        }
        int n = fill(batch, Long.MAX_VALUE, Long.MAX_VALUE);
        if (n > 0) {
          writeBatch(batch, view);
          dirty = true;
        }
        long now = System.nanoTime();
        if (dirty && now - lastFlush >= flushIntervalNanos) {
          flushSinks();
          dirty = false;
          lastFlush = now;
        }
        if (now - lastDropCheck >= DROP_CHECK_NANOS) {
          reportDrops();
          lastDropCheck = now;
        }
        if (n == 0) {
          park(dirty ? Math.min(maxWriteDelayNanos, flushIntervalNanos - (now - lastFlush)) : maxWriteDelayNanos);
        }
      }
      finishOnClose(batch, view);
      terminatedFuture.complete(null);
    } catch (Throwable fatal) {
      closing = true;
      LOG.error("trtrace dispatcher stopped by a fatal JVM error; records are no longer written", fatal);
      terminatedFuture.completeExceptionally(fatal);
      throw fatal;
    } finally {
      for (CompletableFuture<Void> f; (f = flushRequests.poll()) != null; ) {
        f.complete(null);
      }
      terminated.countDown();
    }
  }

  private void park(long nanos) {
    workerParked.set(true);
    if (!mainQueue.isEmpty() || !reserveQueue.isEmpty() || !flushRequests.isEmpty() || closing) {
      workerParked.set(false);
      return;
    }
    Thread.interrupted(); // a stray interrupt must not turn parking into spinning
    LockSupport.parkNanos(this, Math.max(1, nanos));
    workerParked.set(false);
  }

  /** Moves up to a batch of records into {@code batch}, reserve first; at most the given counts. */
  private int fill(List<InferenceRecord> batch, long maxReserved, long maxMain) {
    int n = take(reserveQueue, batch, batchSize, maxReserved);
    return n + take(mainQueue, batch, batchSize - n, maxMain);
  }

  private static int take(
      MpscAtomicArrayQueue<InferenceRecord> queue, List<InferenceRecord> batch, int room, long max) {
    int n = 0;
    while (n < room && n < max) {
      InferenceRecord r = queue.poll();
      if (r == null) {
        break;
      }
      batch.add(r);
      n++;
    }
    return n;
  }

  /**
   * Writes exactly the records queued when the requests were seen (everything offered before each
   * flush() call), then flushes the sinks and completes the requests.
   */
  private void serveFlushRequests(List<InferenceRecord> batch, List<InferenceRecord> view) {
    List<CompletableFuture<Void>> requests = new ArrayList<>();
    for (CompletableFuture<Void> f; (f = flushRequests.poll()) != null; ) {
      requests.add(f);
    }
    try {
      long reserved = reserveQueue.size();
      long main = mainQueue.size();
      while (reserved > 0 || main > 0) {
        int fromReserve = take(reserveQueue, batch, batchSize, reserved);
        int fromMain = take(mainQueue, batch, batchSize - fromReserve, main);
        if (fromReserve + fromMain == 0) {
          break;
        }
        reserved -= fromReserve;
        main -= fromMain;
        writeBatch(batch, view);
      }
      flushSinks();
    } finally {
      // also when a fatal error stops the worker here: these requests are no longer in the queue
      // the worker's last act completes, and a caller waiting without a timeout would hang
      for (CompletableFuture<Void> f : requests) {
        f.complete(null);
      }
    }
  }

  private void finishOnClose(List<InferenceRecord> batch, List<InferenceRecord> view) {
    closePhase = true;
    long deadline = closeDeadlineNanos;
    while (System.nanoTime() - deadline < 0 && fill(batch, Long.MAX_VALUE, Long.MAX_VALUE) > 0) {
      writeBatch(batch, view);
    }
    long discarded = 0;
    while (reserveQueue.poll() != null || mainQueue.poll() != null) {
      discarded++;
    }
    if (discarded > 0) {
      LOG.warn("trtrace dispatcher close timed out: {} queued records discarded unwritten", discarded);
    }
    flushSinks();
    for (SinkSlot s : sinks) {
      try {
        s.sink.close();
      } catch (Throwable t) {
        sinkFailed(s, "close", false, t);
      }
    }
    reportDrops();
  }

  private void writeBatch(List<InferenceRecord> batch, List<InferenceRecord> view) {
    int n = batch.size();
    boolean allWrote = true;
    for (SinkSlot s : sinks) {
      try {
        s.sink.write(view);
        s.recordsWritten += n;
      } catch (Throwable t) {
        allWrote = false;
        s.batchesFailed++;
        s.recordsFailed += n;
        sinkFailed(s, "write " + n + " records", true, t);
      }
    }
    if (allWrote) {
      written += n;
    } else {
      failed += n;
    }
    if (closePhase) {
      drainedOnClose += n;
    }
    batch.clear();
  }

  private void flushSinks() {
    for (SinkSlot s : sinks) {
      try {
        s.sink.flush();
      } catch (Throwable t) {
        sinkFailed(s, "flush", false, t);
      }
    }
  }

  private void sinkFailed(SinkSlot s, String action, boolean write, Throwable t) {
    if (!write) {
      s.flushesFailed++;
    }
    String description = describe(t);
    s.lastError = description;
    if (closePhase) {
      closeFailures.putIfAbsent(s.name, action + ": " + description);
    }
    s.log.warn("trtrace sink '{}' failed to {}: {}", s.name, action, description, t);
    if (t instanceof VirtualMachineError
        && !(t instanceof StackOverflowError)
        && !(t instanceof OutOfMemoryError)) {
      closing = true; // before any flush future completes: later offers are refused and counted
      throw (VirtualMachineError) t;
    }
  }

  private void reportDrops() {
    long queueFull = droppedQueueFull.sum();
    long blockTimeout = droppedBlockTimeout.sum();
    long afterClose = droppedClosed.sum();
    long total = queueFull + blockTimeout + afterClose;
    if (total != lastReportedDrops) {
      lastReportedDrops = total;
      dropLog.warn(
          "trtrace dispatcher has dropped {} inference records so far (queue full: {}, block timeout: {},"
              + " offered after close: {}); raise queueCapacity or make the sinks faster",
          total,
          queueFull,
          blockTimeout,
          afterClose);
    }
  }

  private static String describe(Throwable t) {
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

  /** One sink and its counters; counters are written by the worker thread only. */
  private static final class SinkSlot {
    final RecordSink sink;
    final String name;
    final RateLimitedLogger log = RateLimitedLogger.of(LOG, LOG_INTERVAL_MILLIS);
    volatile long recordsWritten;
    volatile long batchesFailed;
    volatile long recordsFailed;
    volatile long flushesFailed;
    volatile @Nullable String lastError;

    SinkSlot(RecordSink sink) {
      this.sink = sink;
      this.name = sink.name();
    }

    SinkStats snapshot() {
      return new SinkStats(recordsWritten, batchesFailed, recordsFailed, flushesFailed, lastError);
    }
  }
}
