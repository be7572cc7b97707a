package io.github.trtrace.core.internal.batch;

import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.internal.json.JsonWriter;
import io.github.trtrace.core.sink.RecordSink;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The launch log: one JSON line per launch, written by one daemon thread to a {@link
 * io.github.trtrace.core.sink.JsonLinesFileSink} (the records' file sink: its buffering, flush interval,
 * fsync, rotation and loss counters). The scheduler thread only offers the closed launch object to a
 * bounded queue (no allocation, never blocks); the writer encodes it and gives it back to the pool.
 * A full queue drops the line, counted and logged; the members' records are complete all the same.
 *
 * <p>Not sampled: every launch is logged, because a request's record is kept or dropped at its end
 * (slow, failed), after its launches closed; logging all launches is what lets every kept record find
 * its launches. The volume follows the steps per second, not the requests.
 */
public final class LaunchLog implements AutoCloseable {
  /** Schema of the launch line; see {@code launch-log.schema.json}. */
  public static final String LAUNCH_ID = "launch_id";

  /** How a pre-encoded line reaches the file sink (installed by it; package access across packages). */
  public interface LineWriter {
    void writeLine(RecordSink sink, CharSequence line) throws IOException;
  }

  private static volatile @Nullable LineWriter lineWriter;

  /** Installed by the file sink's class initialisation. */
  public static void install(LineWriter writer) {
    lineWriter = writer;
  }

  /** Launches waiting to be written at most; more are dropped (counted, logged). */
  static final int CAPACITY = 1024;
  /** {@code kernels} lines waiting to be written at most; more are dropped (counted, logged). */
  static final int ACTIVITY_CAPACITY = 256;
  /** Activities listed on one {@code kernels} line at most; the rest are counted in {@code activities_truncated}. */
  public static final int MAX_ACTIVITIES = 1024;

  private final RecordSink sink;
  private final int maxMembers;
  /** Lock-free: a lock would allocate a wait node on the scheduler thread under contention. */
  private final org.jctools.queues.atomic.MpscAtomicArrayQueue<LaunchImpl> queue;
  /** GPU activities of closed launches, offered by a profiler's thread (never the scheduler's). */
  private final org.jctools.queues.atomic.MpscAtomicArrayQueue<ActivityLine> activities =
      new org.jctools.queues.atomic.MpscAtomicArrayQueue<>(ACTIVITY_CAPACITY);
  private final Thread worker;
  private final StringBuilder line = new StringBuilder(4096);
  private final JsonWriter json = JsonWriter.create(line, RecordConvention.MAX_TEXT_LENGTH);
  private final LongAdder offered = new LongAdder();
  private final LongAdder dropped = new LongAdder();
  private volatile long written;
  private volatile long lost;
  private final List<Flush> flushes = new ArrayList<>();
  private volatile boolean closed;
  /** Set by {@link #close()}: the worker drains what is queued and stops. */
  private volatile boolean stop;

  private record Flush(long target, CompletableFuture<Void> done) {}

  /**
   * One {@code kernels} line to write: a launch's GPU activities, copied and bounded when offered, and whether the
   * recorder saw them all come (when not, how many work-issuing calls still owed a record).
   */
  record ActivityLine(long launchId, long epochNanos, List<SharedLaunch.GpuActivity> list, int notListed,
      boolean complete, int unmatchedCalls, SharedLaunch.@Nullable HostTiming host) {}

  /**
   * @param sink a {@link io.github.trtrace.core.sink.JsonLinesFileSink}, owned (closed) by this log
   * @param maxMembers members listed per line; the rest are counted in {@code members_truncated}
   */
  public LaunchLog(RecordSink sink, int maxMembers) {
    if (lineWriterFor(sink) == null) {
      throw new IllegalArgumentException("the launch log is written by a JsonLinesFileSink: " + sink.name());
    }
    this.sink = sink;
    this.maxMembers = maxMembers;
    this.queue = new org.jctools.queues.atomic.MpscAtomicArrayQueue<>(CAPACITY);
    this.worker = new Thread(this::run, "trtrace-launch-log");
    worker.setDaemon(true);
    worker.start();
  }

  private static @Nullable LineWriter lineWriterFor(RecordSink sink) {
    if (!(sink instanceof io.github.trtrace.core.sink.JsonLinesFileSink)) {
      return null;
    }
    return lineWriter; // set: the sink's class is initialised, it exists
  }

  /** Queues a closed launch; false (counted, logged) when full or closed: the caller keeps it. */
  boolean offer(LaunchImpl l) {
    offered.increment();
    if (closed || !queue.offer(l)) {
      dropped.increment();
      Launches.warn("trtrace: launch log queue full or closed, launch {} not logged ({} dropped so far)",
          l.id, dropped.sum());
      return false;
    }
    return true;
  }

  /**
   * Queues a {@code kernels} line for launch {@code launchId} (see {@link SharedLaunch.ActivityLog}); false
   * (counted with the launch lines' drops, logged) when full or closed. Copies at most {@link #MAX_ACTIVITIES}.
   * {@code epochNanos}: the tracer's wall clock now (the line's timestamp).
   */
  boolean offerActivities(long launchId, long epochNanos, List<SharedLaunch.GpuActivity> list, int notListed,
      boolean complete, int unmatchedCalls, SharedLaunch.@Nullable HostTiming host) {
    int listed = Math.min(list.size(), MAX_ACTIVITIES);
    ActivityLine a = new ActivityLine(launchId, epochNanos, List.copyOf(list.subList(0, listed)),
        Math.max(0, notListed) + (list.size() - listed), complete, complete ? 0 : Math.max(0, unmatchedCalls),
        host);
    offered.increment();
    if (closed || !activities.offer(a)) {
      dropped.increment();
      Launches.warn("trtrace: launch log queue full or closed, kernels of launch {} not logged ({} dropped so far)",
          launchId, dropped.sum());
      return false;
    }
    java.util.concurrent.locks.LockSupport.unpark(worker);
    return true;
  }

  /** offered, written (as of the last flush), dropped (queue full), lost (I/O errors). */
  long[] counters() {
    return new long[] {offered.sum(), written, dropped.sum(), lost};
  }

  CompletableFuture<Void> flush() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    synchronized (flushes) {
      flushes.add(new Flush(offered.sum() - dropped.sum(), done));
    }
    return done;
  }

  private void run() {
    LineWriter w = lineWriter;
    long handled = 0;
    boolean dirty = false;
    while (true) {
      LaunchImpl next = queue.poll();
      ActivityLine kernels = next == null ? activities.poll() : null;
      if (next == null && kernels == null) {
        if (stop && queue.isEmpty() && activities.isEmpty()) {
          break;
        }
        if (!dirty && !hasFlushes()) {
          java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L); // idle: a launch line waits at most this long
          continue;
        }
      }
      if (next != null || kernels != null) {
        if (next != null) {
          LaunchImpl l = next;
          try {
            encode(l);
          } finally {
            l.owner.release(l);
          }
        } else {
          line.setLength(0);
          encode(kernels, json.reset(line));
          line.append('\n');
        }
        try {
          w.writeLine(sink, line);
        } catch (IOException | RuntimeException e) {
          Launches.warn("trtrace: launch log line not written: {}", e.toString());
        }
        handled++;
        dirty = true;
        if (!queue.isEmpty() || !activities.isEmpty()) {
          continue;
        }
      }
      if (dirty || hasFlushes()) {
        flushSink();
        dirty = false;
        complete(handled);
      }
    }
    flushSink();
    complete(Long.MAX_VALUE);
    try {
      sink.close();
    } catch (IOException e) {
      Launches.warn("trtrace: launch log close failed: {}", e.toString());
    }
  }

  private boolean hasFlushes() {
    synchronized (flushes) {
      return !flushes.isEmpty();
    }
  }

  private void flushSink() {
    try {
      sink.flush();
    } catch (IOException e) {
      Launches.warn("trtrace: launch log flush failed: {}", e.toString());
    }
    RecordSink.Delivery d = sink.delivery(); // the file sink's own counts: written once on disk, lost on I/O errors
    if (d != null) {
      written = d.written();
      lost = d.lost();
    }
  }

  private void complete(long handled) {
    synchronized (flushes) {
      long done = handled + dropped.sum();
      flushes.removeIf(f -> {
        if (f.target() <= done || handled == Long.MAX_VALUE) {
          f.done().complete(null);
          return true;
        }
        return false;
      });
    }
  }

  /** Drains what is queued, flushes and closes the sink. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    boolean interrupted = false;
    stop = true;
    java.util.concurrent.locks.LockSupport.unpark(worker);
    try {
      worker.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      interrupted = true;
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** One launch as a JSON line, its line feed included, into {@link #line}. */
  void encode(LaunchImpl l) {
    line.setLength(0);
    encode(l, json.reset(line), maxMembers);
    line.append('\n');
  }

  /** The launch line's fields, in order; see {@code launch-log.schema.json}. */
  static void encode(LaunchImpl l, JsonWriter j, int maxMembers) {
    j.beginObject();
    j.name("timestamp");
    StringBuilder raw = j.rawValue();
    raw.append('"');
    RecordConvention.appendTimestamp(instant(l.startEpochNanos), raw);
    raw.append('"');
    j.name(LAUNCH_ID).value(l.id);
    if (l.fingerprint != null) {
      j.name("engine_fingerprint").value(l.fingerprint);
    }
    j.name("phase").value(l.phase().wireName());
    j.name("batch_size").value(l.size);
    j.name("prefill_tokens").value(l.prefillTokens);
    j.name("decode_rows").value(l.decodeRows);
    if (l.rowCount > 0) {
      j.name("rows").value(l.rowCount);
    }
    if (!Double.isNaN(l.gpuMs)) {
      j.name("gpu_ms").value(l.gpuMs);
      j.name("share_method").value(l.method.wireName());
    }
    if (l.passes > 1) {
      j.name("passes").value(l.passes);
    }
    j.name("host_ms").value(l.hostMs);
    j.name("status").value(l.errorType == null ? "ok" : "error");
    if (l.errorType != null) {
      j.name("error_type").value(l.errorType);
    }
    int listed = Math.min(l.size, maxMembers);
    j.name("members").beginArray();
    for (int i = 0; i < listed; i++) {
      j.beginObject().name("request_id").value(l.ids[i]);
      if (l.prefill[i] > 0) {
        j.name("prefill_tokens").value(l.prefill[i]);
      }
      if (l.decode[i] > 0) {
        j.name("decode_rows").value(l.decode[i]);
      }
      if (l.rows[i] > 0) {
        j.name("rows").value(l.rows[i]);
      }
      if (!Double.isNaN(l.gpuMs)) {
        j.name("share_ms").value(l.share[i]);
      }
      j.endObject();
    }
    j.endArray();
    if (listed < l.size) {
      j.name("members_truncated").value(l.size - listed);
    }
    if (l.eventCount > 0) {
      j.name("events").beginArray();
      for (int e = 0; e < l.eventCount; e++) {
        j.beginObject()
            .name("kind").value(l.events[e * 3])
            .name("severity").value(l.events[e * 3 + 1])
            .name("message").value(l.events[e * 3 + 2])
            .endObject();
      }
      j.endArray();
      if (l.eventsDropped > 0) {
        j.name("events_truncated").value(l.eventsDropped);
      }
    }
    java.util.List<io.github.trtrace.core.InferenceRecord.LayerTime> layers = l.layers;
    if (layers != null && !layers.isEmpty()) {
      j.name("layers").beginArray();
      for (io.github.trtrace.core.InferenceRecord.LayerTime t : layers) {
        j.beginObject().name("name").value(t.name());
        if (t.ms() >= 0 && !Double.isInfinite(t.ms())) {
          j.name("ms").value(t.ms());
        }
        if (t.invocations() >= 0) {
          j.name("invocations").value(t.invocations());
        }
        j.endObject();
      }
      j.endArray();
    }
    j.endObject();
  }

  /**
   * A {@code kernels} line: the GPU activities recorded for one launch, after its launch line; see {@code
   * launch-log.schema.json}. Totals are over the listed activities.
   */
  static void encode(ActivityLine a, JsonWriter j) {
    j.beginObject();
    j.name("timestamp");
    StringBuilder raw = j.rawValue();
    raw.append('"');
    RecordConvention.appendTimestamp(instant(a.epochNanos()), raw);
    raw.append('"');
    j.name(LAUNCH_ID).value(a.launchId());
    int kernels = 0;
    long kernelNs = 0;
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    j.name("kernels").beginArray();
    for (SharedLaunch.GpuActivity g : a.list()) {
      j.beginObject().name("kind").value(g.kind()).name("name").value(g.name())
          .name("start_ns").value(g.startNs()).name("end_ns").value(g.endNs()).name("ms").value(g.ms());
      if (SharedLaunch.GpuActivity.KERNEL.equals(g.kind())) {
        kernels++;
        kernelNs += g.endNs() - g.startNs();
        j.name("grid").beginArray().value(g.gridX()).value(g.gridY()).value(g.gridZ()).endArray();
        j.name("block").beginArray().value(g.blockX()).value(g.blockY()).value(g.blockZ()).endArray();
      } else {
        j.name("bytes").value(g.bytes());
      }
      j.endObject();
      first = Math.min(first, g.startNs());
      last = Math.max(last, g.endNs());
    }
    j.endArray();
    j.name("kernel_count").value(kernels);
    j.name("kernel_ms").value(kernelNs / 1e6);
    if (!a.list().isEmpty()) {
      j.name("span_ms").value((last - first) / 1e6);
    }
    if (a.notListed() > 0) {
      j.name("activities_truncated").value(a.notListed());
    }
    SharedLaunch.HostTiming host = a.host();
    if (host != null) {
      j.name("lead_in_ms").value(host.leadInNanos() / 1e6);
      j.name("start_call_ms").value(host.startCallNanos() / 1e6);
      j.name("lead_out_ms").value(host.leadOutNanos() / 1e6);
      j.name("end_call_ms").value(host.endCallNanos() / 1e6);
      j.name("host_wait_ms").value(host.hostWaitNanos() / 1e6);
    }
    j.name("complete").value(a.complete());
    if (!a.complete()) {
      j.name("unmatched_calls").value(a.unmatchedCalls());
    }
    j.endObject();
  }

  private static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
  }
}
