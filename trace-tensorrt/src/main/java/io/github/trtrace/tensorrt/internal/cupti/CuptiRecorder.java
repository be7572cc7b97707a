package io.github.trtrace.tensorrt.internal.cupti;

import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.tensorrt.internal.shim.Demangler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.cuda.cupti.CUpti_Activity;
import org.bytedeco.cuda.cupti.CUpti_BuffersCallbackCompleteFunc;
import org.bytedeco.cuda.cupti.CUpti_BuffersCallbackRequestFunc;
import org.bytedeco.cuda.cupti.CUpti_CallbackFunc;
import org.bytedeco.cuda.cupti.CUpti_Subscriber_st;
import org.bytedeco.cuda.global.cupti;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's CUPTI activity recorder (CUPTI's activity API is process-wide: one per process). Started on
 * the first launch an engine chooses to record, never before: a process whose engines record nothing loads no
 * CUPTI library. Starting subscribes to CUPTI (which fails when another tool, Nsight for one, already did: then
 * kernel records stay off, said once), registers the buffer callbacks and checks that the concurrent-kernel,
 * memcpy, memset, external-correlation, runtime-API and driver-API activity kinds can be enabled, every return
 * code checked.
 *
 * <p>Threads: the launching thread only pushes and pops the external id around the enqueue and queues the
 * launch's completion. CUPTI's buffer-completed callback (CUPTI's thread, or the flushing one) copies records
 * into {@link ActivityRow}s on a bounded queue (drops counted). One daemon thread, {@code trtrace-cupti},
 * flushes CUPTI's completed buffers ({@code cuptiActivityFlushAll(0)}, never on the launch path) while launches
 * await their records, joins rows to launches ({@link KernelJoiner}) and writes their lines to the launch log.
 *
 * <p>The activity kinds are process-wide: while enabled, CUPTI records every kernel of the process. So they are
 * enabled only while a recorded launch is in flight: the first {@link #begin} enables them, the last {@link
 * #completed} disables them (a count under a lock, on the launching threads), and launches that are not recorded
 * run with CUPTI's activity collection off. Work of other launches overlapping a recorded one is recorded too and
 * counted as uncorrelated.
 */
public final class CuptiRecorder implements LaunchRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(CuptiRecorder.class);
  private static final Object LOCK = new Object();
  private static @Nullable LaunchRecorder shared;

  static final int BUFFER_BYTES = 1 << 20;
  static final int MAX_BUFFERS = 32;
  static final int ROW_QUEUE = 64 * 1024;
  static final int COMPLETION_QUEUE = 4096;
  static final int MAX_PER_LAUNCH = 512;
  static final long SETTLE_NANOS = 20_000_000L;
  /**
   * The GPU work, and the external correlations. CUPTI writes an external-correlation record before each API
   * activity record made while an external id is pushed, so the runtime and driver API kinds are enabled too (their
   * records carry the correlation id a kernel shares with the call that launched it; they are read past, not kept).
   */
  private static final int[] KINDS = {
      cupti.CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, cupti.CUPTI_ACTIVITY_KIND_MEMCPY,
      cupti.CUPTI_ACTIVITY_KIND_MEMSET, cupti.CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
      cupti.CUPTI_ACTIVITY_KIND_RUNTIME, cupti.CUPTI_ACTIVITY_KIND_DRIVER};

  private final CuptiRecords records;
  private final KernelJoiner joiner;
  private final ArrayBlockingQueue<ActivityRow> rows = new ArrayBlockingQueue<>(ROW_QUEUE);
  private final ArrayBlockingQueue<Completion> completions = new ArrayBlockingQueue<>(COMPLETION_QUEUE);
  private final ConcurrentLinkedQueue<CompletableFuture<Void>> flushes = new ConcurrentLinkedQueue<>();
  private final Map<Long, BytePointer> buffers = new ConcurrentHashMap<>();
  private final AtomicInteger outstanding = new AtomicInteger();
  private final LongAdder queueDropped = new LongAdder();
  private final LongAdder cuptiDropped = new LongAdder();
  private final LongAdder failedCalls = new LongAdder();
  private final LongAdder completionsDropped = new LongAdder();
  private final Once warned = new Once();
  // strong references: CUPTI calls these for as long as the process runs
  private final RequestBuffer request = new RequestBuffer();
  private final BufferCompleted complete = new BufferCompleted();
  private final NoCallbacks subscriberCallback = new NoCallbacks();
  private final CUpti_Subscriber_st subscriber = new CUpti_Subscriber_st((Pointer) null);
  private final Thread worker;
  private volatile RecorderStats stats = RecorderStats.NONE;
  /** Recorded launches between begin and completed; the kinds are enabled while it is above zero. */
  private final Object kindsLock = new Object();
  private int inFlight;
  private boolean kindsEnabled;

  private record Completion(long launchId, SharedLaunch.ActivityLog log, long nanos) {}

  /**
   * The process's recorder, started on the first call; {@link LaunchRecorder#OFF} when CUPTI cannot record
   * here (library missing, another subscriber, an activity kind refused): said once through SLF4J.
   */
  public static LaunchRecorder shared() {
    synchronized (LOCK) {
      if (shared == null) {
        shared = start();
      }
      return shared;
    }
  }

  private static LaunchRecorder start() {
    try {
      Loader.load(cupti.class);
    } catch (Throwable e) { // UnsatisfiedLinkError, NoClassDefFoundError: no libcupti / libjnicupti here
      LOG.warn("trtrace: kernel records are off: CUPTI could not be loaded ({}). Put libcupti and the cuda"
          + " preset's libjnicupti on the library path to record kernels.", e.toString());
      return OFF;
    }
    CuptiRecorder r;
    try {
      r = new CuptiRecorder();
    } catch (ReflectiveOperationException e) {
      LOG.warn("trtrace: kernel records are off: this cuda preset's CUPTI record classes are not usable: {}",
          e.toString());
      return OFF;
    }
    String refused = r.subscribeAndEnable();
    if (refused != null) {
      LOG.warn("trtrace: kernel records are off: {}", refused);
      return OFF;
    }
    r.worker.start();
    LOG.info("trtrace: kernel records on: CUPTI activity (concurrent kernel, memcpy, memset, external correlation,"
        + " runtime and driver API), enabled while a recorded launch runs");
    return r;
  }

  private CuptiRecorder() throws ReflectiveOperationException {
    this.records = new CuptiRecords();
    this.joiner = new KernelJoiner(MAX_PER_LAUNCH, COMPLETION_QUEUE, SETTLE_NANOS, CuptiRecords::stringAt,
        Demangler::demangle);
    this.worker = new Thread(this::run, "trtrace-cupti");
    worker.setDaemon(true);
  }

  /** Null when recording is on; otherwise why not (everything it had done is undone). */
  private @Nullable String subscribeAndEnable() {
    int rc = cupti.cuptiSubscribe(subscriber, subscriberCallback, null);
    if (rc == cupti.CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      return "another CUPTI subscriber is attached to this process (a profiler such as Nsight Systems or Nsight"
          + " Compute, or another tracing library); running without kernel records";
    }
    if (rc != cupti.CUPTI_SUCCESS) {
      return "cuptiSubscribe failed: " + result(rc);
    }
    rc = cupti.cuptiActivityRegisterCallbacks(request, complete);
    if (rc != cupti.CUPTI_SUCCESS) {
      unsubscribe();
      return "cuptiActivityRegisterCallbacks failed: " + result(rc);
    }
    // enabled once here to learn whether CUPTI lets us, then off until a recorded launch begins
    String refused = enableKinds();
    if (refused != null) {
      unsubscribe();
      return refused;
    }
    disableKinds();
    return null;
  }

  /** Enables the activity kinds; null when all are on, else why not (the ones enabled are disabled again). */
  private @Nullable String enableKinds() {
    for (int i = 0; i < KINDS.length; i++) {
      int rc = cupti.cuptiActivityEnable(KINDS[i]);
      if (rc != cupti.CUPTI_SUCCESS) {
        for (int j = i - 1; j >= 0; j--) {
          check("cuptiActivityDisable", cupti.cuptiActivityDisable(KINDS[j]));
        }
        return "cuptiActivityEnable(activity kind " + KINDS[i] + ") failed: " + result(rc)
            + (rc == cupti.CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? " (another CUPTI client is attached)" : "");
      }
    }
    return null;
  }

  private void disableKinds() {
    for (int i = KINDS.length - 1; i >= 0; i--) {
      check("cuptiActivityDisable", cupti.cuptiActivityDisable(KINDS[i]));
    }
  }

  private void unsubscribe() {
    check("cuptiUnsubscribe", cupti.cuptiUnsubscribe(subscriber));
  }

  /** CUPTI's text for a result code. */
  static String result(int rc) {
    try (PointerPointer<BytePointer> text = new PointerPointer<>(1)) {
      if (cupti.cuptiGetResultString(rc, text) == cupti.CUPTI_SUCCESS && text.get(0) != null) {
        return new BytePointer(text.get(0)).getString() + " (" + rc + ")";
      }
    }
    return "CUPTI error " + rc;
  }

  private void check(String call, int rc) {
    if (rc != cupti.CUPTI_SUCCESS) {
      failedCalls.increment();
      warned.warn(call, "trtrace: {} failed: {} (said once per call)", call, result(rc));
    }
  }

  @Override
  public boolean begin(long launchId) {
    synchronized (kindsLock) {
      if (!kindsEnabled) {
        String refused = enableKinds();
        if (refused != null) {
          failedCalls.increment();
          warned.warn("enable", "trtrace: kernels of launch {} not recorded: {} (said once)", launchId, refused);
          return false;
        }
        kindsEnabled = true;
      }
      inFlight++;
    }
    int rc = cupti.cuptiActivityPushExternalCorrelationId(cupti.CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, launchId);
    if (rc != cupti.CUPTI_SUCCESS) {
      check("cuptiActivityPushExternalCorrelationId", rc);
      release();
      return false;
    }
    return true;
  }

  /** One recorded launch less in flight; the last one disables the activity kinds. */
  private void release() {
    synchronized (kindsLock) {
      if (--inFlight == 0 && kindsEnabled) {
        disableKinds();
        kindsEnabled = false;
      }
    }
  }

  @Override
  public void end(long launchId) {
    check("cuptiActivityPopExternalCorrelationId",
        cupti.cuptiActivityPopExternalCorrelationId(cupti.CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, (LongPointer) null));
  }

  @Override
  public void completed(long launchId, SharedLaunch.ActivityLog log) {
    release();
    if (!completions.offer(new Completion(launchId, log, System.nanoTime()))) {
      completionsDropped.increment();
      warned.warn("completions", "trtrace: kernel records of launch {} not kept: {} launches await their records",
          launchId, COMPLETION_QUEUE);
    }
  }

  @Override
  public CompletableFuture<Void> flush() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    flushes.add(done);
    LockSupport.unpark(worker);
    return done;
  }

  @Override
  public RecorderStats stats() {
    return stats;
  }

  private void run() {
    List<ActivityRow> batch = new ArrayList<>();
    while (true) {
      try {
        CompletableFuture<Void> forced = flushes.poll();
        long now = System.nanoTime();
        for (Completion c; (c = completions.poll()) != null; ) {
          joiner.completed(c.launchId(), c.log(), c.nanos());
        }
        if (forced != null || joiner.pending() > 0) {
          check("cuptiActivityFlushAll", cupti.cuptiActivityFlushAll(forced != null ? cupti.CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0));
        }
        batch.clear();
        rows.drainTo(batch);
        if (!batch.isEmpty() || forced != null || joiner.pending() > 0) {
          joiner.rows(batch, now);
          joiner.round(System.nanoTime(), forced != null);
          stats = joiner.stats(queueDropped.sum(), cuptiDropped.sum(), failedCalls.sum());
          if (completionsDropped.sum() > 0) {
            RecorderStats s = stats;
            stats = new RecorderStats(s.launches(), s.activities(), s.truncated(), s.queueDropped(), s.cuptiDropped(),
                s.late(), s.launchesDropped() + completionsDropped.sum(), s.uncorrelated(), s.incomplete(),
                s.failedCalls());
          }
        }
        if (forced != null) {
          forced.complete(null);
          continue;
        }
        LockSupport.parkNanos(joiner.pending() > 0 ? 5_000_000L : 50_000_000L);
      } catch (RuntimeException | LinkageError e) {
        warned.warn("worker", "trtrace: kernel record worker failed once and goes on: {}", e.toString());
        LockSupport.parkNanos(50_000_000L);
      }
    }
  }

  /** Gives CUPTI a buffer (1 MiB, at most {@value #MAX_BUFFERS} outstanding; beyond, none: CUPTI drops and counts). */
  private final class RequestBuffer extends CUpti_BuffersCallbackRequestFunc {
    @Override
    public void call(PointerPointer buffer, SizeTPointer size, SizeTPointer maxNumRecords) {
      try {
        maxNumRecords.put(0L, 0L);
        if (outstanding.incrementAndGet() > MAX_BUFFERS) {
          outstanding.decrementAndGet();
          buffer.put(0L, (Pointer) null);
          size.put(0L, 0L);
          return;
        }
        BytePointer b = new BytePointer((long) BUFFER_BYTES); // malloc: 16-byte aligned (CUPTI needs 8)
        buffers.put(b.address(), b);
        buffer.put(0L, b);
        size.put(0L, (long) BUFFER_BYTES);
      } catch (Throwable e) { // never throw into CUPTI
        warned.warn("request", "trtrace: CUPTI buffer request failed once: {}", e.toString());
        size.put(0L, 0L);
      }
    }
  }

  /** Copies a completed buffer's records into rows, counts CUPTI's drops, frees the buffer. */
  private final class BufferCompleted extends CUpti_BuffersCallbackCompleteFunc {
    @Override
    public void call(CUctx_st context, int streamId, BytePointer buffer, long size, long validSize) {
      try {
        if (buffer != null && validSize > 0) {
          parse(buffer, validSize);
        }
        try (SizeTPointer dropped = new SizeTPointer(1)) {
          int rc = cupti.cuptiActivityGetNumDroppedRecords(context, streamId, dropped);
          if (rc == cupti.CUPTI_SUCCESS) {
            long n = dropped.get(0);
            if (n > 0) {
              cuptiDropped.add(n);
              warned.warn("cuptiDropped", "trtrace: CUPTI dropped {} activity records (no buffer in time; said once)", n);
            }
          } else {
            check("cuptiActivityGetNumDroppedRecords", rc);
          }
        }
      } catch (Throwable e) { // never throw into CUPTI
        warned.warn("complete", "trtrace: reading a CUPTI buffer failed once: {}", e.toString());
      } finally {
        if (buffer != null) {
          BytePointer b = buffers.remove(buffer.address());
          if (b != null) {
            outstanding.decrementAndGet();
            b.close();
          }
        }
      }
    }

    private void parse(BytePointer buffer, long validSize) throws Throwable {
      CUpti_Activity record = new CUpti_Activity((Pointer) null);
      while (true) {
        int rc = cupti.cuptiActivityGetNextRecord(buffer, validSize, record);
        if (rc == cupti.CUPTI_ERROR_MAX_LIMIT_REACHED) {
          return;
        }
        if (rc != cupti.CUPTI_SUCCESS) {
          check("cuptiActivityGetNextRecord", rc);
          return;
        }
        ActivityRow row = records.read(record.kind(), record);
        if (row != null && !rows.offer(row)) {
          queueDropped.increment();
        }
      }
    }
  }

  /** The subscriber's callback: no callback domain is enabled, so CUPTI never calls it. */
  private static final class NoCallbacks extends CUpti_CallbackFunc {
    @Override
    public void call(Pointer userdata, int domain, int callbackId, Pointer data) {}
  }

  /** Warns once per key. */
  private static final class Once {
    private final Map<String, Boolean> said = new ConcurrentHashMap<>();

    void warn(String key, String format, Object... args) {
      if (said.putIfAbsent(key, Boolean.TRUE) == null) {
        LOG.warn(format, args);
      }
    }
  }
}
