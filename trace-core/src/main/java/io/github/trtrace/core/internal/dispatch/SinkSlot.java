// Over 400 lines: the hand-off state, its two waits, close and abandon, and the sink's own thread share one lock and condition.
package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.internal.dispatch.DefaultDispatcher.DispatcherThread;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.core.sink.RecordSink.Delivery;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One sink, its own daemon thread and its counters. The dispatcher's worker gives it one call at a
 * time ({@link #offerWrite}, {@link #offer(Object) flush}, {@link #requestClose close}); the thread
 * runs the call and accounts for it under the slot's lock, so counters never disagree with each
 * other ({@link SinkLedger}).
 *
 * <p>While the sink writes a batch, the slot holds at most one more ({@code next}), which the
 * thread starts as soon as the call returns, without waiting for the worker: the sink does not sit
 * idle between batches while the worker wakes up, and the worker takes the following batch out of
 * the queue (freeing space for callers) while the sink is still busy. Only a batch waits there;
 * a flush or close is given only to an idle sink, so it comes after the held batch.
 */
final class SinkSlot {
  static final Object FLUSH = new Object();
  private static final Object CLOSE = new Object();

  final RecordSink sink;
  final String name;
  final DispatcherThread thread;
  final RateLimitedLogger log = DefaultDispatcher.newSinkLog();
  private final DefaultDispatcher dispatcher;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // guarded by lock
  private @Nullable Object task; // a batch (List), FLUSH or CLOSE
  private @Nullable List<InferenceRecord> next; // a batch to write after the running call
  private boolean busy; // a task is pending or running (and, if set, next is waiting)
  private boolean batchCall; // the pending or running task is a batch
  private long taskStartNanos;
  private boolean closeRequested;
  private boolean closed; // the thread has run the sink's close (or given up) and ended
  private boolean abandoned; // close stopped waiting for it: counters frozen
  private boolean dead; // a fatal JVM error in this sink
  private boolean stuckLogged;

  /** Guarded by the lock. */
  final SinkLedger counts;

  SinkSlot(DefaultDispatcher dispatcher, RecordSink sink, int index) {
    this.dispatcher = dispatcher;
    this.sink = sink;
    this.name = sink.name();
    this.counts = new SinkLedger(delivery());
    this.thread = new DispatcherThread(this::run, Dispatcher.THREAD_NAME + "-sink-" + index);
  }

  /**
   * Gives the sink a batch to write if it is idle, or holds it as the next one while the sink writes
   * (not behind a call that has run {@code exportTimeoutNanos} already); counts it as handed.
   */
  boolean offerWrite(List<InferenceRecord> batch, long exportTimeoutNanos) {
    lock.lock();
    try {
      if (busy && batchCall && next == null && !(closeRequested || dead || abandoned)
          && System.nanoTime() - taskStartNanos < exportTimeoutNanos) {
        next = batch;
      } else if (!startLocked(batch)) {
        return false;
      }
      counts.handed += batch.size();
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Whether a batch waits behind the sink's current call (for tests). */
  boolean holdsNext() {
    lock.lock();
    try {
      return next != null;
    } finally {
      lock.unlock();
    }
  }

  /** Whether the sink takes batches at all (not closing, not dead, not abandoned). */
  boolean accepting() {
    lock.lock();
    try {
      return !(closeRequested || dead || abandoned);
    } finally {
      lock.unlock();
    }
  }

  /** Whether the sink's close has run (or the sink died) and its thread is done with it. */
  boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Gives the sink a flush if it is idle. */
  boolean offer(Object flush) {
    lock.lock();
    try {
      return startLocked(flush);
    } finally {
      lock.unlock();
    }
  }

  private boolean startLocked(Object t) {
    if (busy || closeRequested || dead || abandoned) {
      return false;
    }
    begin(t);
    changed.signalAll();
    return true;
  }

  /** Under the lock: {@code t} is the sink's next call, from now. */
  private void begin(Object t) {
    task = t;
    busy = true;
    batchCall = t instanceof List;
    taskStartNanos = System.nanoTime();
  }

  /**
   * Waits until the sink is idle, at most until its current call has run {@code exportTimeoutNanos}
   * or until {@code deadline}, whichever comes first.
   */
  boolean awaitIdle(long deadline, long exportTimeoutNanos) {
    return awaitWhile(inCall, deadline, exportTimeoutNanos);
  }

  /**
   * Waits until the sink can take a batch ({@link #offerWrite}: idle, or writing one with none held),
   * at most until its current call has run {@code exportTimeoutNanos} or until {@code deadline}.
   */
  boolean awaitRoom(long deadline, long exportTimeoutNanos) {
    return awaitWhile(noRoom, deadline, exportTimeoutNanos);
  }

  /** The two waits' conditions, read under the lock (made once: the worker waits on them per batch). */
  private final java.util.function.BooleanSupplier inCall = () -> busy;
  private final java.util.function.BooleanSupplier noRoom = () -> busy && (next != null || !batchCall);

  /**
   * Waits, under the lock, while {@code waiting} holds, at most until the sink's current call has run
   * {@code exportTimeoutNanos} or until {@code deadline}, whichever comes first; true when it stopped holding.
   */
  private boolean awaitWhile(java.util.function.BooleanSupplier waiting, long deadline, long exportTimeoutNanos) {
    lock.lock();
    try {
      while (waiting.getAsBoolean()) {
        long now = System.nanoTime();
        long limit = taskStartNanos + exportTimeoutNanos;
        if (deadline - limit < 0) {
          limit = deadline;
        }
        long left = limit - now;
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !waiting.getAsBoolean();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the sink has been inside its current call for at least {@code exportTimeoutNanos}. */
  boolean stuck(long exportTimeoutNanos) {
    lock.lock();
    try {
      return busy && System.nanoTime() - taskStartNanos >= exportTimeoutNanos;
    } finally {
      lock.unlock();
    }
  }

  /** Records the dispatcher's worker lost to an OutOfMemoryError or StackOverflowError before handing them here. */
  void lostByWorker(int n, Throwable error) {
    lock.lock();
    try {
      counts.lostByWorker(n, error);
    } finally {
      lock.unlock();
    }
  }

  /** A batch this sink did not get: it was still busy after the export timeout, or it is dead. */
  void missed(int n, long exportTimeoutNanos) {
    boolean logNow;
    lock.lock();
    try {
      if (dead || closeRequested) {
        counts.lostBeforeSink(n);
        return;
      }
      counts.lostStuck += n;
      logNow = !stuckLogged;
      stuckLogged = true;
    } finally {
      lock.unlock();
    }
    if (logNow) {
      log.warn(
          "trtrace sink '{}' has not returned within the export timeout ({} ms); records for it are"
              + " counted as lost until it returns",
          name,
          TimeUnit.NANOSECONDS.toMillis(exportTimeoutNanos));
    }
  }

  /** Asks for the final flush and close, now if idle, else after the current call. */
  void requestClose() {
    lock.lock();
    try {
      closeRequested = true;
      if (!busy && !closed && !dead) {
        begin(CLOSE);
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  boolean awaitClosed(long deadline) {
    lock.lock();
    try {
      while (!closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** {@link #abandon()} if the sink is inside a call now. */
  void abandonIfBusy() {
    lock.lock();
    try {
      if (!busy) {
        return;
      }
    } finally {
      lock.unlock();
    }
    abandon();
  }

  /** Close gives up on this sink: what it holds is lost; later results of its calls are ignored. */
  void abandon() {
    long lost;
    lock.lock();
    try {
      if (closed || abandoned) {
        return;
      }
      abandoned = true;
      lost = counts.abandon();
    } finally {
      lock.unlock();
    }
    log.warn("trtrace sink '{}' did not return before the close deadline; {} records it held are lost",
        name, lost);
  }

  // ------------------------------------------------------------------------- the sink's thread

  private void run() {
    for (; ; ) {
      Object t;
      lock.lock();
      try {
        while (task == null) {
          changed.awaitUninterruptibly();
        }
        t = task;
        task = null;
      } finally {
        lock.unlock();
      }
      if (t == CLOSE) {
        closeSink();
        return;
      }
      int n = 0;
      Throwable failure = null;
      try {
        if (t == FLUSH) {
          sink.flush();
        } else {
          @SuppressWarnings("unchecked")
          List<InferenceRecord> batch = (List<InferenceRecord>) t;
          n = batch.size();
          sink.write(batch);
        }
      } catch (Throwable e) {
        failure = e;
      }
      boolean fatal = failure != null && DefaultDispatcher.isFatal(failure);
      if (fatal) {
        // before the worker can see this call finished: nothing offered after it is accepted
        dispatcher.fatalInSink(this, (VirtualMachineError) failure);
      }
      if (failure != null) {
        // before the worker can see this call finished, so that a close report includes it
        dispatcher.sinkFailed(this, t == FLUSH ? "flush" : "write " + n + " records", failure);
      }
      Delivery d = delivery();
      lock.lock();
      try {
        counts.account(n, failure, d, abandoned);
        busy = false;
        stuckLogged = false;
        dead = fatal;
        List<InferenceRecord> held = next;
        next = null;
        if (held != null && !fatal && !abandoned) {
          begin(held); // before a requested close: it was handed first
        } else {
          if (held != null && !abandoned) { // an abandoned slot counted what it held already
            counts.lostBeforeSink(held.size());
          }
          if ((closeRequested || abandoned) && !fatal) {
            begin(CLOSE);
          }
        }
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      if (fatal) {
        closeSink();
        throw (VirtualMachineError) failure;
      }
    }
  }

  private void closeSink() {
    Throwable flushFailure = null;
    Throwable closeFailure = null;
    try {
      sink.flush();
    } catch (Throwable e) {
      flushFailure = e;
    }
    try {
      sink.close();
    } catch (Throwable e) {
      closeFailure = e;
    }
    if (flushFailure != null) {
      dispatcher.sinkFailed(this, "flush", flushFailure);
    }
    if (closeFailure != null) {
      dispatcher.sinkFailed(this, "close", closeFailure);
    }
    Delivery d = delivery();
    lock.lock();
    try {
      counts.account(0, flushFailure, d, abandoned);
      if (closeFailure != null) {
        counts.account(0, closeFailure, null, abandoned);
      }
      busy = false;
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private @Nullable Delivery delivery() {
    try {
      return sink.delivery();
    } catch (RuntimeException e) {
      return null;
    }
  }
}
