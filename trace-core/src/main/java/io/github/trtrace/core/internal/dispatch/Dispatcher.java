package io.github.trtrace.core.internal.dispatch;

import io.github.trtrace.core.sink.Slf4jSink;
import io.github.trtrace.core.TracerStats.DispatcherStats;
import io.github.trtrace.core.InferenceTracer.QueueFullPolicy;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.sink.RecordSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Moves records from request threads to the sinks without slowing the requests down: a bounded
 * lock-free queue (plus a small reserve for error and slow records), one daemon worker thread
 * ({@value #THREAD_NAME}) that hands batches to every sink, each on a thread of its own with an
 * export timeout, counted drops and losses, periodic sink flushes and a draining {@link
 * #close(Duration)}.
 *
 * <p>The caller of {@link #offer} does no I/O, takes no lock and allocates nothing; it never waits
 * longer than the block timeout. It does not wake the worker for every record either (a wake-up is a
 * system call): the worker wakes by itself, every {@link Builder#maxWriteDelay max write delay} when
 * idle and sooner under steady traffic (paced to find about a quarter of a batch), and callers wake it
 * early only once half a batch is waiting (a burst). A sink that throws is counted and
 * skipped for that batch; a sink that has not returned within the {@link Builder#exportTimeout export
 * timeout} misses batches until it returns (counted); the other sinks still receive every batch.
 * Sinks may record (offer) themselves: such re-entrant offers never wait, they are dropped and
 * counted when the queue is full.
 *
 * <pre>{@code
 * Dispatcher dispatcher = Dispatcher.builder()
 *     .sink(Slf4jSink.builder().build())
 *     .queueCapacity(8192)
 *     .policy(QueueFullPolicy.BLOCK)
 *     .build();
 * dispatcher.offer(record, record.status().isFailure());
 * }</pre>
 */
public interface Dispatcher extends AutoCloseable {

  /** Name of the worker thread. */
  String THREAD_NAME = "trtrace-dispatcher";

  /** A builder with the defaults documented on each option. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Queues a record for the sinks. Never throws.
   *
   * @param record the immutable record
   * @param priority {@code true} for records that must get through a full queue (errors, slow
   *     requests): they may use the reserved capacity when the main queue is full
   * @return {@code true} when queued; {@code false} when dropped (and counted in {@link #stats()})
   */
  boolean offer(InferenceRecord record, boolean priority);

  /**
   * Asks the worker to write everything offered before this call to every sink and then flush the
   * sinks. The future completes normally once that is done, whether or not a sink failed (failures
   * are counted in {@link #stats()}); after {@link #close()} it completes when close has finished.
   * Do not wait on it from inside a sink: the sink runs on the thread that completes it.
   */
  CompletableFuture<Void> flush();

  /**
   * Stops accepting records, writes what is queued until {@code timeout}, then flushes and closes
   * every sink. Idempotent: later calls wait for and return the first call's report. Returns within
   * about {@code timeout} even when a sink is stuck; what such a sink holds is counted as lost and
   * reported, its thread closes it if it ever returns, and nothing more is written to it.
   *
   * @param timeout how long to wait for the queue to drain and the sinks to close; negative is zero
   */
  CloseReport close(Duration timeout);

  /** {@link #close(Duration)} with the builder's {@link Builder#closeTimeout close timeout}. */
  @Override
  void close();

  /** A snapshot of the counters. Cheap enough to poll every few seconds. */
  DispatcherStats stats();

  /**
   * Configures a {@link Dispatcher}. Not thread-safe. Every option is checked when set; a missing
   * sink is reported by {@link #build()}.
   *
   * <pre>{@code
   * Dispatcher d = Dispatcher.builder().sink(sink).policy(QueueFullPolicy.DROP).batchSize(256).build();
   * }</pre>
   */
  final class Builder {
    /** The largest {@link #queueCapacity} and {@link #reservedCapacity}. */
    public static final int MAX_CAPACITY = 1 << 30;
    /** The largest {@link #batchSize}. */
    public static final int MAX_BATCH_SIZE = 1 << 20;
    static final Duration MAX_BLOCK_TIMEOUT = Duration.ofSeconds(10);
    static final Duration MAX_FLUSH_INTERVAL = Duration.ofHours(1);
    static final Duration MAX_CLOSE_TIMEOUT = Duration.ofHours(1);
    /** The default {@link #shutdownDrain}: a server's drain of usual length, and a close timeout, within 30 s. */
    public static final Duration DEFAULT_SHUTDOWN_DRAIN = Duration.ofSeconds(10);

    final List<RecordSink> sinks = new ArrayList<>();
    private final Set<String> sinkNames = new HashSet<>();
    int queueCapacity = 8192;
    int reservedCapacity = 1024;
    QueueFullPolicy policy = QueueFullPolicy.BLOCK;
    Duration blockTimeout = Duration.ofSeconds(1);
    /**
     * 128, not 512 (before 2026-12-06): when the sinks fall behind, queue space comes back a batch at a time, and
     * a blocked caller waits for one batch's write. Measured at saturation (BENCHMARKS.md, "Batch size"): p99.9
     * 0.40-0.65x Log4j2's with 128 in all six interleaved cells against 0.26-1.72x with 512; records per second
     * 0.84-0.97x 512's in six paired rounds, 1.37-2.02x Log4j2's in eleven (at or above 1.5x in seven).
     */
    int batchSize = 128;
    Duration flushInterval = Duration.ofSeconds(1);
    Duration maxWriteDelay = Duration.ofMillis(20);
    boolean shutdownHook = true;
    Duration shutdownDrain = DEFAULT_SHUTDOWN_DRAIN;
    java.util.function.LongSupplier inFlight = () -> 0;
    Duration closeTimeout = Duration.ofSeconds(5);
    Duration exportTimeout = Duration.ofSeconds(2);

    Builder() {}

    /**
     * Adds a sink; records go to the sinks in the order they were added. Names must be unique.
     *
     * @throws IllegalArgumentException if the name is blank or already used by another sink
     */
    public Builder sink(RecordSink sink) {
      Objects.requireNonNull(sink, "sink");
      String name = sink.name();
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("sink name must not be blank: " + sink);
      }
      if (!sinkNames.add(name)) {
        throw new IllegalArgumentException(
            "duplicate sink name '" + name + "': names identify sinks in stats, give each a unique one");
      }
      sinks.add(sink);
      return this;
    }

    /** Records the main queue holds, 1 to 2^30; default 8192. */
    public Builder queueCapacity(int capacity) {
      queueCapacity = checkRange("queueCapacity", capacity, 1, MAX_CAPACITY);
      return this;
    }

    /**
     * Extra room used only by priority records when the main queue is full, 0 (no reserve) to 2^30;
     * default 1024.
     */
    public Builder reservedCapacity(int capacity) {
      reservedCapacity = checkRange("reservedCapacity", capacity, 0, MAX_CAPACITY);
      return this;
    }

    /** What {@link Dispatcher#offer} does when the queue is full; default {@link QueueFullPolicy#BLOCK}. */
    public Builder policy(QueueFullPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * The longest a caller waits for space under {@link QueueFullPolicy#BLOCK}, 0 to 10 s; default
     * 1 s. After it the record is dropped and counted. The queue is full only when the sinks fall
     * behind, and then a wait lasts until the worker next frees space: about one batch write, which on
     * a loaded machine (threads descheduled, GC pauses) was measured at up to 274 ms (issue 22); the
     * former 5 ms default dropped records there that Log4j2 and Logback, which wait without limit,
     * kept. While every sink is stuck past the export timeout a full queue refuses at once instead.
     */
    public Builder blockTimeout(Duration timeout) {
      blockTimeout = checkDuration("blockTimeout", timeout, false, MAX_BLOCK_TIMEOUT);
      return this;
    }

    /** The most records handed to a sink in one {@code write}, 1 to 2^20; default 128. */
    public Builder batchSize(int size) {
      batchSize = checkRange("batchSize", size, 1, MAX_BATCH_SIZE);
      return this;
    }

    /**
     * The longest a record waits in the queue before the worker writes it while fewer than half a
     * batch are waiting, more than 0 and at most 10 s; default 20 ms. Shorter means fresher files,
     * longer means fewer worker wake-ups. {@link Dispatcher#flush()} and {@code close} do not wait
     * for it.
     */
    public Builder maxWriteDelay(Duration delay) {
      maxWriteDelay = checkDuration("maxWriteDelay", delay, true, MAX_BLOCK_TIMEOUT);
      return this;
    }

    /**
     * How often, at most, the sinks are flushed after records were written to them, more than 0
     * and at most 1 h; default 1 s.
     */
    public Builder flushInterval(Duration interval) {
      flushInterval = checkDuration("flushInterval", interval, true, MAX_FLUSH_INTERVAL);
      return this;
    }

    /**
     * Whether to register a JVM shutdown hook that calls {@link Dispatcher#close(Duration)} with the close
     * timeout; default {@code true} (as Log4j2 does), so that a normal exit or a SIGTERM writes every
     * accepted record within the close timeout. An explicit close removes the hook. Turn it off only
     * when the application closes the dispatcher itself in its own shutdown sequence.
     */
    public Builder shutdownHook(boolean enabled) {
      shutdownHook = enabled;
      return this;
    }

    /**
     * The longest the worker waits for one sink's call ({@code write} or {@code flush}) before it
     * gives the next batch to the other sinks without it, more than 0 and at most 1 h; default 2 s.
     * A sink still inside a call after this misses the batches that come meanwhile (counted as
     * {@link TracerStats.SinkStats#lostStuck()}) and gets batches again once it returns, so a slow
     * or blocked sink never holds up the others for longer than this (as OpenTelemetry's {@code
     * BatchSpanProcessor} export timeout).
     */
    public Builder exportTimeout(Duration timeout) {
      exportTimeout = checkDuration("exportTimeout", timeout, true, MAX_FLUSH_INTERVAL);
      return this;
    }

    /**
     * How long the shutdown hook keeps the dispatcher open before it closes it, while requests are in
     * flight ({@link #inFlight}), 0 to 1 h; default 10 s. The hook closes as soon as none has been in
     * flight for {@value DefaultDispatcher#DRAIN_QUIET_MILLIS} ms, so that a server draining its requests
     * on SIGTERM (in its own hook, run at the same time) still has their records written; 0 closes at
     * once. An explicit close does not wait.
     */
    public Builder shutdownDrain(Duration drain) {
      shutdownDrain = checkDuration("shutdownDrain", drain, false, MAX_CLOSE_TIMEOUT);
      return this;
    }

    /** The requests in flight, for {@link #shutdownDrain}; default none (the tracer's started less ended traces). */
    public Builder inFlight(java.util.function.LongSupplier requestsInFlight) {
      inFlight = Objects.requireNonNull(requestsInFlight, "requestsInFlight");
      return this;
    }

    /** The timeout of {@link Dispatcher#close()} and of the shutdown hook, 0 to 1 h; default 5 s. */
    public Builder closeTimeout(Duration timeout) {
      closeTimeout = checkDuration("closeTimeout", timeout, false, MAX_CLOSE_TIMEOUT);
      return this;
    }

    /**
     * Starts the worker thread and returns the running dispatcher.
     *
     * @throws IllegalStateException if no sink was added
     */
    public Dispatcher build() {
      if (sinks.isEmpty()) {
        throw new IllegalStateException("a dispatcher needs at least one sink: call sink(...) before build()");
      }
      return DefaultDispatcher.start(this);
    }

    private static int checkRange(String option, int value, int min, int max) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(
            option + " must be between " + min + " and " + max + ": " + value);
      }
      return value;
    }

    private static Duration checkDuration(
        String option, Duration value, boolean strictlyPositive, Duration max) {
      Objects.requireNonNull(value, option);
      if (value.isNegative() || (strictlyPositive && value.isZero())) {
        throw new IllegalArgumentException(
            option + " must be " + (strictlyPositive ? "positive" : "zero or positive") + ": " + value);
      }
      if (value.compareTo(max) > 0) {
        throw new IllegalArgumentException(option + " must be at most " + max + ": " + value);
      }
      return value;
    }
  }
}
