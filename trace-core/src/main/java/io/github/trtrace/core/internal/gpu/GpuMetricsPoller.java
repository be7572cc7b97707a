package io.github.trtrace.core.internal.gpu;

import io.github.trtrace.core.internal.log.RateLimitedLogger;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls a {@link GpuMetricsSource} on one background daemon thread ({@code trtrace-gpu-metrics})
 * at a fixed delay, so request threads only ever read the latest reading: {@link #latest()} is one
 * volatile read that never blocks and never calls the source.
 *
 * <pre>{@code
 * try (GpuMetricsPoller gpu = GpuMetricsPoller.start(NvmlMetricsSource.open(0), Duration.ofMillis(500))) {
 *   GpuMetricsSource.Reading r = gpu.latest();          // on the request path: free
 *   record.gpuUtil(r.utilPercent());
 * }
 * }</pre>
 *
 * <p>A read that throws (or returns null) is counted in {@link #failures()}, logged at most once a
 * minute, and the last good reading stays; polling goes on (it stops only on an {@link
 * InternalError} or another error of the JVM itself, logged at ERROR). A read that hangs (a
 * wedged driver) stalls only this poller's own thread: {@link #latest()} keeps answering with the
 * last good reading (its {@link GpuMetricsSource.Reading#epochMillis()} shows its age), reads are scheduled with
 * a fixed delay so they never pile up, and nothing else in trtrace waits for it. {@link #close()} interrupts the read and
 * waits at most one second; if the read still has not returned, the source is closed by the poller
 * thread as soon as it does, never concurrently with a read.
 */
public final class GpuMetricsPoller implements AutoCloseable {
  /** The interval of {@link #start(GpuMetricsSource)}. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(500);
  /** The shortest interval accepted. */
  public static final Duration MIN_INTERVAL = Duration.ofMillis(10);
  static final String THREAD_NAME = "trtrace-gpu-metrics";
  private static final long CLOSE_WAIT_MILLIS = 1_000;
  private static final Logger LOG = LoggerFactory.getLogger(GpuMetricsPoller.class);

  private final GpuMetricsSource source;
  private final ScheduledExecutorService executor;
  private final RateLimitedLogger failureLog = RateLimitedLogger.of(LOG, 60_000);
  private final AtomicLong polls = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean sourceClosed = new AtomicBoolean();
  private final GpuHistory history = new GpuHistory();

  private GpuMetricsPoller(GpuMetricsSource source, Duration interval) {
    this.source = source;
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, THREAD_NAME);
      t.setDaemon(true);
      return t;
    });
    executor.scheduleWithFixedDelay(this::poll, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Starts polling {@code source} every {@link #DEFAULT_INTERVAL} (500 ms). */
  public static GpuMetricsPoller start(GpuMetricsSource source) {
    return start(source, DEFAULT_INTERVAL);
  }

  /**
   * Starts polling {@code source} every {@code interval} (at least 10 ms), the first read right
   * away on the poller thread. The poller owns the source from now on and closes it on
   * {@link #close()}.
   *
   * @throws IllegalArgumentException if {@code interval} is shorter than 10 ms
   */
  public static GpuMetricsPoller start(GpuMetricsSource source, Duration interval) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(interval, "interval");
    if (interval.compareTo(MIN_INTERVAL) < 0) {
      throw new IllegalArgumentException("GPU metrics interval must be at least 10 ms: " + interval);
    }
    return new GpuMetricsPoller(source, interval);
  }

  /** The latest good reading, {@link GpuMetricsSource.Reading#UNKNOWN} before the first. Never blocks. */
  public GpuMetricsSource.Reading latest() {
    return history.head().reading;
  }

  /**
   * A point in the reading history, taken when a request starts; {@link #usageSince(Mark)} at its end
   * gives the mean and maximum over the request's lifetime. One volatile read; never blocks.
   */
  public Mark mark() {
    return history.head();
  }

  /**
   * Utilisation over the readings in effect since {@code start}: the one current at {@code mark()}
   * and every one taken since (the maximum over at most the last 256). Never blocks.
   */
  public GpuUsage usageSince(Mark start) {
    return history.usageSince(java.util.Objects.requireNonNull(start, "start"));
  }

  /** An opaque position in a poller's reading history, from {@link #mark()}. Immutable. */
  public static final class Mark {
    static final Mark NONE = new Mark(0, GpuMetricsSource.Reading.UNKNOWN, 0, 0, 0, 0);

    final long seq;
    final GpuMetricsSource.Reading reading;
    final double utilSum;
    final long utilCount;
    final double memUtilSum;
    final long memUtilCount;

    Mark(long seq, GpuMetricsSource.Reading reading, double utilSum, long utilCount, double memUtilSum, long memUtilCount) {
      this.seq = seq;
      this.reading = reading;
      this.utilSum = utilSum;
      this.utilCount = utilCount;
      this.memUtilSum = memUtilSum;
      this.memUtilCount = memUtilCount;
    }
  }

  /** Reads attempted and finished so far, successful or not. */
  public long polls() {
    return polls.get();
  }

  /** Reads that threw or returned null. */
  public long failures() {
    return failures.get();
  }

  /**
   * Stops polling and closes the source; idempotent. Waits at most one second for a read in
   * progress (see the class description for a read that hangs).
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    executor.shutdownNow();
    boolean finished;
    try {
      finished = executor.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      finished = false;
    }
    if (finished) {
      closeSourceOnce();
    } else {
      LOG.warn("GPU metrics source {} did not return within {} ms of close; it is closed when its read returns",
          source, CLOSE_WAIT_MILLIS);
    }
  }

  private void poll() {
    if (closed.get()) {
      closeSourceOnce();
      return;
    }
    try {
      GpuMetricsSource.Reading reading = source.read();
      if (reading == null) {
        failures.incrementAndGet();
        failureLog.warn("GPU metrics source {} returned no reading", source);
      } else {
        history.add(reading);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // only close() interrupts this thread
    } catch (Throwable t) {
      // A failing driver binding (LinkageError, a deep recursion, a huge buffer) must not end
      // polling; only an error of the JVM itself does. The executor would keep any error it ends
      // the task with to itself, so this is the one place it can be seen.
      failures.incrementAndGet();
      if (t instanceof VirtualMachineError
          && !(t instanceof StackOverflowError)
          && !(t instanceof OutOfMemoryError)) {
        LOG.error("GPU metrics polling stopped by a fatal JVM error; records keep the last reading", t);
        throw (VirtualMachineError) t;
      }
      failureLog.warn("GPU metrics source {} failed: {}", source, t.toString(), t);
    } finally {
      polls.incrementAndGet();
      if (closed.get()) {
        closeSourceOnce();
      }
    }
  }

  private void closeSourceOnce() {
    if (sourceClosed.compareAndSet(false, true)) {
      try {
        source.close();
      } catch (RuntimeException e) {
        LOG.warn("closing GPU metrics source {} failed", source, e);
      }
    }
  }

  @Override
  public String toString() {
    return "GpuMetricsPoller[source=" + source + ", polls=" + polls + ", failures=" + failures
        + (closed.get() ? ", closed" : "") + "]";
  }
}
