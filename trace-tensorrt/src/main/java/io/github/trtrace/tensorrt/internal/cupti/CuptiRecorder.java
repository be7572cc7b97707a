package io.github.trtrace.tensorrt.internal.cupti;

import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.tensorrt.internal.shim.Demangler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.bytedeco.cuda.cupti.CUpti_CallbackFunc;
import org.bytedeco.cuda.cupti.CUpti_Subscriber_st;
import org.bytedeco.cuda.global.cupti;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's CUPTI activity recorder (CUPTI's activity API is process-wide: one per process). Started on
 * the first launch an engine chooses to record, never before: a process whose engines record nothing loads no
 * CUPTI library. Starting subscribes to CUPTI (which fails when another tool, Nsight for one, already did: then
 * kernel records stay off, said once), registers the buffer callbacks and checks that the concurrent-kernel,
 * memset, external-correlation, runtime-API and driver-API activity kinds (and memcpy, when {@value #COPIES_PROPERTY}
 * is true: {@link #kinds}) can be enabled, every return code checked.
 *
 * <p>Threads: the launching thread only pushes and pops the external id around the enqueue, makes one marker call
 * ({@code cudaPeekAtLastError}, see {@link #end}) before the pop, and queues the launch's completion. CUPTI's
 * buffer-completed callback (CUPTI's thread, or the flushing one) copies records into {@link ActivityRow}s on a
 * bounded queue (drops counted). One daemon thread, {@code trtrace-cupti}, flushes CUPTI's completed buffers
 * ({@code cuptiActivityFlushAll(0)}, never on the launch path) while launches await their records, joins rows to
 * launches ({@link KernelJoiner}) and writes their lines to the launch log.
 *
 * <p>A launch's line is written once all its records came: its completion is known, its marker's API record came
 * (so every API record of its enqueue is there), and each of its work-issuing calls (kernel or graph launch,
 * memcpy, memset) has its GPU record; or, at the latest, {@link KernelJoiner#MAX_WAIT_NANOS} after its completion,
 * marked incomplete ({@link KernelJoiner}).
 *
 * <p>The activity kinds are process-wide: while enabled, CUPTI records every kernel of the process. So they are
 * enabled only around recorded launches: the first {@link #begin} enables them (on the launching thread: the launch
 * needs them), and after the last {@link #completed} the recorder's thread disables them ({@link #release}: a
 * toggle costs about 0.6 ms); launches that are not recorded run with CUPTI's activity collection off, but for the
 * moment between. Work of other launches overlapping a recorded one is recorded too and counted as uncorrelated.
 */
public final class CuptiRecorder implements LaunchRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(CuptiRecorder.class);
  private static final Object LOCK = new Object();
  private static @Nullable LaunchRecorder shared;

  static final int COMPLETION_QUEUE = 4096;
  static final int MAX_PER_LAUNCH = 512;
  /** {@code -Dtrtrace.cupti.memcpy=true}: memory copies are recorded too ({@link #kinds}). */
  static final String COPIES_PROPERTY = "trtrace.cupti.memcpy";

  /**
   * The activity kinds enabled around recorded launches: the GPU work, and the external correlations. CUPTI writes an
   * external-correlation record before each API activity record made while an external id is pushed, so the runtime
   * and driver API kinds are enabled too (their records carry the correlation id a kernel shares with the call that
   * launched it; the joiner learns from them which GPU records a launch owes).
   *
   * <p>Memory copies only when {@code copies}: CUDA 12.6's CUPTI (libcupti.so.12, the 12.6 cuda preset's) crashed
   * the demo three times out of three on the H200 (driver 580) within seconds of its first recorded launches, SIGSEGV
   * in CUPTI's own thread while it completed a memcpy record whose timestamps come in several parts: the part it read
   * had been freed (its first word is glibc's encoding of a free list's link in all three crash logs), a fault inside
   * CUPTI. The kinds are process-wide, so the copies the application makes while they are enabled are recorded too:
   * the demo makes {@code cudaMemcpy2DAsync} and pageable copies right after each launch, the GPU check (never
   * crashed) only one-dimensional ones. TensorRT's enqueues there issued kernels only (9,920 of 9,920 activities, run
   * 23), so leaving copies out costs those launches' lines nothing; the memcpy calls of an enqueue owe no record then
   * ({@link ApiCalls#of(java.util.Map, boolean)}).
   */
  static int[] kinds(boolean copies) {
    int[] all = {
        cupti.CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, cupti.CUPTI_ACTIVITY_KIND_MEMCPY,
        cupti.CUPTI_ACTIVITY_KIND_MEMSET, cupti.CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
        cupti.CUPTI_ACTIVITY_KIND_RUNTIME, cupti.CUPTI_ACTIVITY_KIND_DRIVER};
    return copies ? all : java.util.Arrays.stream(all).filter(k -> k != cupti.CUPTI_ACTIVITY_KIND_MEMCPY).toArray();
  }

  private final boolean copies = "true".equals(System.getProperty(COPIES_PROPERTY));
  private final int[] kinds = kinds(copies);

  private final KernelJoiner joiner;
  private final ArrayBlockingQueue<Completion> completions = new ArrayBlockingQueue<>(COMPLETION_QUEUE);
  private final ConcurrentLinkedQueue<CompletableFuture<Void>> flushes = new ConcurrentLinkedQueue<>();
  private final LongAdder failedCalls = new LongAdder();
  private final LongAdder completionsDropped = new LongAdder();
  private final Once warned = new Once(LOG);
  // strong references: CUPTI calls these (and the buffers' callbacks) for as long as the process runs
  private final CuptiBuffers buffers;
  private final NoCallbacks subscriberCallback = new NoCallbacks();
  private final CUpti_Subscriber_st subscriber = new CUpti_Subscriber_st((Pointer) null);
  private final Thread worker;
  private volatile RecorderStats stats = RecorderStats.NONE;
  /** Recorded launches between begin and completed; the kinds are enabled while it is above zero. */
  private final Object kindsLock = new Object();
  private int inFlight;
  private boolean kindsEnabled;
  /** Enables and disables of the activity kinds around recorded launches, and the time they took. */
  private final LongAdder toggles = new LongAdder();
  private final LongAdder toggleNanos = new LongAdder();
  private final LongAdder recorderToggleNanos = new LongAdder();
  /** The last recorded launch in flight completed: the recorder's thread disables the kinds (under kindsLock). */
  private boolean disableWanted;

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
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      LOG.warn("trtrace: kernel records are off: this cuda preset's CUPTI record classes or constants are not"
          + " usable: {}", e.toString());
      return OFF;
    }
    String refused = r.subscribeAndEnable();
    if (refused != null) {
      LOG.warn("trtrace: kernel records are off: {}", refused);
      return OFF;
    }
    r.worker.start();
    LOG.info("trtrace: kernel records on: CUPTI activity (concurrent kernel, {}memset, external correlation,"
        + " runtime and driver API), enabled while a recorded launch runs{}", r.copies ? "memcpy, " : "",
        r.copies ? "" : "; memory copies not recorded (CUDA 12.6's CUPTI crashed completing copy records;"
            + " -D" + COPIES_PROPERTY + "=true records them)");
    return r;
  }

  private CuptiRecorder() throws ReflectiveOperationException {
    this.buffers = new CuptiBuffers(new CuptiRecords(), warned, this::check);
    this.joiner = new KernelJoiner(MAX_PER_LAUNCH, COMPLETION_QUEUE, KernelJoiner.MAX_WAIT_NANOS,
        ApiCalls.of(ApiCalls.constantsOf(cupti.class), copies), CuptiRecords::stringAt, Demangler::demangle);
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
    buffers.warm();
    rc = cupti.cuptiActivityRegisterCallbacks(buffers.request(), buffers.completed());
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
    for (int i = 0; i < kinds.length; i++) {
      int rc = cupti.cuptiActivityEnable(kinds[i]);
      if (rc != cupti.CUPTI_SUCCESS) {
        for (int j = i - 1; j >= 0; j--) {
          check("cuptiActivityDisable", cupti.cuptiActivityDisable(kinds[j]));
        }
        return "cuptiActivityEnable(activity kind " + kinds[i] + ") failed: " + result(rc)
            + (rc == cupti.CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? " (another CUPTI client is attached)" : "");
      }
    }
    return null;
  }

  private void disableKinds() {
    for (int i = kinds.length - 1; i >= 0; i--) {
      check("cuptiActivityDisable", cupti.cuptiActivityDisable(kinds[i]));
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

  void check(String call, int rc) {
    if (rc != cupti.CUPTI_SUCCESS) {
      failedCalls.increment();
      warned.warn(call, "trtrace: {} failed: {} (said once per call)", call, result(rc));
    }
  }

  @Override
  public boolean begin(long launchId) {
    synchronized (kindsLock) {
      if (!kindsEnabled) {
        long t0 = System.nanoTime();
        String refused = enableKinds();
        toggleNanos.add(System.nanoTime() - t0);
        toggles.increment();
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

  /**
   * One recorded launch less in flight; after the last one the recorder's thread disables the activity kinds (woken
   * now). A toggle cost 644 us on the H200 (run 7: 140 in 90 ms, TensorRT 10.6, CUDA 12.6's CUPTI), so doing both on the
   * launching thread added 1.3 ms to every recorded launch; now it pays the enable only, and none when the kinds are
   * still on from a recorded launch just before (at 100 % recording, most launches).
   */
  private void release() {
    boolean wake = false;
    synchronized (kindsLock) {
      if (--inFlight == 0 && kindsEnabled) {
        disableWanted = true;
        wake = true;
      }
    }
    if (wake) {
      LockSupport.unpark(worker);
    }
  }

  /**
   * On the recorder's thread: disables the kinds when the last recorded launch asked for it and none began since.
   * Until then, launches that are not recorded run with the kinds on (their work counted uncorrelated): at most one
   * turn of this thread after the last recorded launch completed.
   */
  private void disableIfIdle() {
    synchronized (kindsLock) {
      if (disableWanted && inFlight == 0 && kindsEnabled) {
        long t0 = System.nanoTime();
        disableKinds();
        recorderToggleNanos.add(System.nanoTime() - t0);
        toggles.increment();
        kindsEnabled = false;
      }
      disableWanted = false;
    }
  }

  /**
   * Makes the launch's closing marker, then pops the external id. The marker is one runtime call made while the id
   * is still pushed, so CUPTI writes its API record (and its external correlation) after every API record of the
   * enqueue: once it came, so had they. {@code cudaPeekAtLastError}: it takes no argument, allocates nothing, issues
   * no GPU work, and unlike {@code cudaGetLastError} it does not reset the thread's last error (the CUDA runtime API
   * reference: "Note that this call does not reset the error to cudaSuccess like cudaGetLastError()"), so the
   * application's own error checks after the enqueue see what they would without us (it reads the cuda preset's
   * runtime instance; a runtime linked statically into TensorRT keeps its own error state). Its result is ignored:
   * an error of the enqueue is the application's to see, not ours.
   */
  @Override
  public void end(long launchId) {
    org.bytedeco.cuda.global.cudart.cudaPeekAtLastError();
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

  @Override
  public BufferStats bufferStats() {
    return buffers.bufferStats();
  }

  private void run() {
    List<ActivityRow> batch = new ArrayList<>();
    while (true) {
      try {
        disableIfIdle();
        CompletableFuture<Void> forced = flushes.poll();
        long now = System.nanoTime();
        for (Completion c; (c = completions.poll()) != null; ) {
          joiner.completed(c.launchId(), c.log(), c.nanos());
        }
        if (forced != null || joiner.pending() > 0) {
          check("cuptiActivityFlushAll", cupti.cuptiActivityFlushAll(forced != null ? cupti.CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0));
        }
        batch.clear();
        buffers.drainTo(batch);
        if (!batch.isEmpty() || forced != null || joiner.pending() > 0) {
          joiner.rows(batch, now);
          joiner.round(System.nanoTime(), forced != null);
          stats = joiner.stats(buffers.queueDropped(), buffers.cuptiDropped(), failedCalls.sum())
              .withRecorder(completionsDropped.sum(), toggles.sum(), toggleNanos.sum(), recorderToggleNanos.sum());
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

  /** The subscriber's callback: no callback domain is enabled, so CUPTI never calls it. */
  private static final class NoCallbacks extends CUpti_CallbackFunc {
    @Override
    public void call(Pointer userdata, int domain, int callbackId, Pointer data) {}
  }
}
