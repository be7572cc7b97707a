// Over 400 lines: the launch API and its nested data types (Summary with its builder, Ended, Neighbour, Stats), nested so that trace-core keeps 21 public top-level types; the implementation is internal.batch.LaunchImpl.
package io.github.trtrace.core;

import org.jspecify.annotations.Nullable;

/**
 * One engine launch shared by several requests: a step of continuous (in-flight) batching, or one
 * dynamic batch. The scheduler thread opens it with {@link InferenceTracer#launch(String)}, declares
 * each member and what it contributes, gives the GPU time it measured once for the whole launch, and
 * closes it; every member's record then carries its share (see {@link InferenceRecord#batching()}) and
 * the launch log gets one line for the launch. A request served alone is a launch of one.
 *
 * <pre>{@code
 * try (SharedLaunch step = tracer.launch(engine.fingerprint())) {   // on the scheduler thread
 *   for (Req r : prefilling) step.prefill(r.trace(), r.chunkTokens()); // a prompt, or one chunk of it
 *   for (Req r : decoding) step.decode(r.trace());                     // one decode row each
 *   step.gpuMs(engine.step(batch));                                    // CUDA events, once per launch
 * }                                                                    // shares attributed, line logged
 * }</pre>
 *
 * <h2>Shares</h2>
 *
 * A member's share of the launch's GPU time is an <em>estimate</em> by a named {@link ShareMethod}
 * (default {@link ShareMethod#TOKENS}); the shares of a launch add up to its measured GPU time. The
 * record names the method in {@code gpu_ms_method}, so a share is never read as a measurement.
 *
 * <h2>Threads, reuse and misuse</h2>
 *
 * A launch is used by the thread that opened it, from {@code launch(...)} to {@code close()} (a second
 * scheduler on another thread opens its own). A request is a member of at most one open launch at a
 * time: joining it to a second one, joining an ended trace, or joining twice is ignored and counted in
 * {@link TracerStats#misuse()}. Launch objects are pooled: like a garbage-free trace, a launch must not
 * be used after {@code close()}. Attribution takes no lock per member: a member is held by its launch
 * through one compare-and-set when it joins and released when the launch closes. Messages and errors
 * of the launch go through {@link #event} and {@link #error(String)} to the launch and to every
 * member, never to the request that happens to be current on the scheduler thread.
 */
public interface SharedLaunch extends AutoCloseable {

  /** How a launch's GPU time is split among its members. */
  enum ShareMethod {
    /**
     * In proportion to the tokens each member puts through the launch: its prefill tokens plus one a
     * decode row, plus its {@linkplain #rows rows}. The default: a transformer step's matrix work
     * grows with the tokens it processes; attention over long contexts makes decode rows cost more
     * than one prefill token, which this method does not model.
     */
    TOKENS("tokens"),
    /** In proportion to rows: one for a member that prefills, one a decode row, plus its rows. */
    ROWS("rows"),
    /** Equal shares, whatever each member contributes. */
    EQUAL("equal"),
    /**
     * In proportion to a cost weight the scheduler gives each member with {@link #weight}: its own cost
     * model, e.g. the FLOPs or roofline time of each member's attention and matrix work, or what it
     * measured per member. A member given no weight weighs 0; equal shares when no member weighs anything.
     */
    WEIGHTED("weighted");

    private final String wireName;

    ShareMethod(String wireName) {
      this.wireName = wireName;
    }

    /** The name written to {@code gpu_ms_method} and to the launch log. */
    public String wireName() {
      return wireName;
    }
  }

  /** What a launch carried: only prefill, only decode rows (or rows), or both. */
  enum Phase {
    PREFILL("prefill"),
    DECODE("decode"),
    MIXED("mixed"),
    /** Rows of a dynamic batch (an embedding or reranking launch), no prefill or decode declared. */
    ROWS("rows"),
    /** No member. */
    EMPTY("empty");

    private final String wireName;

    Phase(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }
  }

  /** This launch's ID, unique within the tracer and increasing (seeded with the start's epoch microseconds). */
  long id();

  /**
   * Adds {@code trace} as a member that prefills {@code tokens} prompt tokens in this launch (the whole
   * prompt, or one chunk of a chunked prefill). Ends the member's wait for a slot (or its preemption).
   */
  SharedLaunch prefill(InferenceTrace trace, int tokens);

  /** Adds {@code trace} as a member with one decode row (one generated token). */
  SharedLaunch decode(InferenceTrace trace);

  /**
   * Adds {@code trace} as a member with {@code rows} rows of a dynamic batch (e.g. the documents of a
   * reranking request), for launches that are neither prefill nor decode.
   */
  SharedLaunch rows(InferenceTrace trace, int rows);

  /**
   * Sets the cost weight of member {@code trace} (already added by {@link #prefill}, {@link #decode} or
   * {@link #rows}) for {@link ShareMethod#WEIGHTED}: its share of the GPU time is its weight over the
   * members' total. Finite and >= 0; otherwise, or for a trace that is not a member, ignored and counted
   * in {@link TracerStats#misuse()}. Other share methods ignore weights.
   *
   * <pre>{@code
   * step.prefill(r.trace(), n).weight(r.trace(), costModel.flops(n, r.context()))
   *     .shareBy(SharedLaunch.ShareMethod.WEIGHTED);
   * }</pre>
   */
  SharedLaunch weight(InferenceTrace trace, double weight);

  /** The launch's measured GPU time (CUDA events around the launch), >= 0; unknown if never given. */
  SharedLaunch gpuMs(double ms);

  /**
   * How many enqueues the engine made for this launch, when more than one (a step whose rows differ in shape, run
   * in passes between one pair of CUDA events): written to its launch-log line as {@code passes} when {@code n > 1}.
   * Only says how the launch ran; the shares do not depend on it. {@code n < 1} is a misuse (ignored, counted).
   */
  default SharedLaunch passes(int n) {
    return this;
  }

  /** How the GPU time is split ({@link ShareMethod#TOKENS} unless set). */
  SharedLaunch shareBy(ShareMethod method);

  /**
   * A message reported during the launch (e.g. a TensorRT warning): on the launch's log line and as an
   * event on every member's record.
   */
  SharedLaunch event(String kind, String severity, String message);

  /**
   * Marks the launch failed with {@code errorType} (e.g. {@code "tensorrt.enqueue_failed"}): the log
   * line says so, and every member's record gets {@code error_type}, an error status, and {@code
   * failed_launch_id} = this launch.
   */
  SharedLaunch error(String errorType);

  /**
   * The launch's per-layer timing table (a profiled launch), written to its launch-log line as {@code
   * layers}; copied here, so the caller may reuse its list. Profile launches sampled, as the table costs.
   */
  SharedLaunch layers(java.util.List<InferenceRecord.LayerTime> layers);

  /**
   * Whether {@code requestId} is a member of this launch (added by {@link #prefill}, {@link #decode} or
   * {@link #rows}): how an engine picks the launches of one request, e.g. to record its GPU kernels.
   */
  default boolean hasMember(String requestId) {
    return false;
  }

  /**
   * Where the GPU activities of this tracer's launches go once a profiler delivered them, after the launches
   * closed (CUPTI hands its records over in buffers, late): the launch log, as a {@code kernels} line per
   * launch, joined to the launch line by {@code launch_id}. Without a launch log, a log that drops everything.
   * The same object for every launch of a tracer: keep it, not the launch.
   */
  default ActivityLog activityLog() {
    return ActivityLog.NONE;
  }

  /** {@link #error(String)} with the throwable's class name. */
  default SharedLaunch error(Throwable error) {
    return error(error == null ? "unknown" : error.getClass().getName());
  }

  /**
   * Ends the launch: host time (open to close) is measured here, the GPU time is split among the
   * members, each member's record is updated and released for its next launch, and the log line is
   * queued. Idempotent; never throws.
   */
  @Override
  void close();

  /**
   * The launch opened on the calling thread and not closed yet (the innermost one), or null: where a
   * message arriving on the scheduler thread (a TensorRT logger callback) belongs.
   */
  static @Nullable SharedLaunch current() {
    return io.github.trtrace.core.internal.trace.TracerFactory.currentLaunch();
  }

  /**
   * One piece of GPU work a launch ran, as a profiler (CUPTI) recorded it: a kernel, a memory copy or a
   * memset. Times are the profiler's clock in nanoseconds ({@code endNs >= startNs}); grid and block are a
   * kernel's (0 otherwise); {@code bytes} a copy's or memset's (0 for a kernel). The name is bounded (at most
   * {@link RecordConvention#MAX_TEXT_LENGTH} characters) when written.
   *
   * <pre>{@code
   * new SharedLaunch.GpuActivity(SharedLaunch.GpuActivity.KERNEL, "gemm_128x64", t0, t0 + 12_000,
   *     64, 1, 1, 128, 1, 1, 0);
   * }</pre>
   */
  record GpuActivity(String kind, String name, long startNs, long endNs,
      int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ, long bytes) {
    /** {@code kind} of a kernel. */
    public static final String KERNEL = "kernel";
    /** {@code kind} of a memory copy (its name says the direction, e.g. {@code HtoD}). */
    public static final String MEMCPY = "memcpy";
    /** {@code kind} of a memset. */
    public static final String MEMSET = "memset";

    public GpuActivity {
      java.util.Objects.requireNonNull(kind, "kind");
      java.util.Objects.requireNonNull(name, "name");
      if (endNs < startNs) {
        throw new IllegalArgumentException("endNs < startNs: " + endNs + " < " + startNs);
      }
    }

    /** Duration in milliseconds. */
    public double ms() {
      return (endNs - startNs) / 1e6;
    }
  }

  /**
   * Writes the GPU activities recorded for a closed launch to the launch log (a {@code kernels} line): from
   * any thread, never blocking; a full queue drops the line (counted in {@link Stats#dropped()}, logged).
   *
   * <pre>{@code
   * SharedLaunch.ActivityLog log = launch.activityLog();    // while the launch is open
   * // later, on the profiler's thread, once every record of the launch came:
   * log.write(launchId, activities, 0);
   * // or when it stopped waiting with 2 work-issuing calls still owing their records:
   * log.write(launchId, activities, 0, false, 2);
   * // with the host's part of the launch's GPU window (from the recorder's API-call records), in nanoseconds:
   * log.write(launchId, activities, 0, true, 0, new SharedLaunch.HostTiming(41_000, 3_000, 12_000, 2_000, 35_000));
   * }</pre>
   */
  interface ActivityLog {
    /** A log that writes nothing (a tracer without a launch log). */
    ActivityLog NONE = (launchId, activities, notListed, complete, unmatchedCalls, host) -> false;

    /**
     * Queues one {@code kernels} line for launch {@code launchId}: {@code activities} in start order (copied),
     * {@code notListed} more that the recorder left out (its bound), written as {@code activities_truncated};
     * {@code complete} whether the recorder saw every record of the launch come (written as {@code complete}),
     * and when not, {@code unmatchedCalls}: the launch's work-issuing API calls whose GPU record had not come
     * (written as {@code unmatched_calls}; 0 when what was missing was the end of the launch's API calls).
     * {@code host}: when the host made the launch's API calls, where the recorder knows it (null: not known,
     * not written).
     *
     * @return false when not queued (no launch log, queue full or closed)
     */
    boolean write(long launchId, java.util.List<GpuActivity> activities, int notListed, boolean complete,
        int unmatchedCalls, @Nullable HostTiming host);

    /** {@link #write(long, java.util.List, int, boolean, int, HostTiming)} without the host's timing. */
    default boolean write(long launchId, java.util.List<GpuActivity> activities, int notListed, boolean complete,
        int unmatchedCalls) {
      return write(launchId, activities, notListed, complete, unmatchedCalls, null);
    }

    /** {@link #write(long, java.util.List, int, boolean, int)} of a launch whose records all came. */
    default boolean write(long launchId, java.util.List<GpuActivity> activities, int notListed) {
      return write(launchId, activities, notListed, true, 0);
    }
  }

  /**
   * The host's part of a launch's GPU window, from a recorder's API-call records, in nanoseconds on the activities'
   * clock. An engine that times its launches records a start event first and an end event last; each event's GPU
   * timestamp is taken when the device reaches it: after the call that recorded it began, and for the end event not
   * before the last activity ended. So the launch's measured GPU time minus its activities' span lies between
   * {@code leadIn + leadOut} and {@code leadIn + startCall + leadOut + endCall}.
   *
   * <ul>
   *   <li>{@code leadInNanos}: from the end of the launch's first API call (recording the start event) to the start
   *       of its first activity, written as {@code lead_in_ms};
   *   <li>{@code startCallNanos}: how long that first call took, written as {@code start_call_ms};
   *   <li>{@code leadOutNanos}: from the end of the last activity to the start of the launch's last API call
   *       (recording the end event), 0 when that call began first: the device idle, waiting for the host to issue
   *       the end event; written as {@code lead_out_ms};
   *   <li>{@code endCallNanos}: how long of that last call lies after both its start and the last activity's end,
   *       written as {@code end_call_ms};
   *   <li>{@code hostWaitNanos}: how long of the lead-in and of the gaps between activities the device had
   *       nothing to run because the host had not yet issued the next activity (the gap up to the end of the call
   *       that issued it), written as {@code host_wait_ms}.
   * </ul>
   *
   * <pre>{@code
   * log.write(launchId, activities, 0, true, 0, new SharedLaunch.HostTiming(41_000, 3_000, 12_000, 2_000, 35_000));
   * }</pre>
   */
  record HostTiming(long leadInNanos, long startCallNanos, long leadOutNanos, long endCallNanos, long hostWaitNanos) {
    public HostTiming {
      if (leadInNanos < 0 || startCallNanos < 0 || leadOutNanos < 0 || endCallNanos < 0 || hostWaitNanos < 0) {
        throw new IllegalArgumentException("negative host timing: lead-in " + leadInNanos + " ns, start call "
            + startCallNanos + " ns, lead-out " + leadOutNanos + " ns, end call " + endCallNanos + " ns, host wait "
            + hostWaitNanos + " ns");
      }
    }
  }

  /**
   * A closed launch as {@link TraceListener#onLaunch} sees it: valid only during that call (the object
   * is reused afterwards), so copy what you keep.
   */
  interface Ended {
    long id();

    /** Wall-clock start, nanoseconds since the epoch. */
    long startEpochNanos();

    /** Wall-clock end, nanoseconds since the epoch. */
    long endEpochNanos();

    @Nullable String engineFingerprint();

    Phase phase();

    int batchSize();

    long prefillTokens();

    int decodeRows();

    /** Measured GPU time; NaN when not given. */
    double gpuMs();

    double hostMs();

    ShareMethod shareMethod();

    /** The failure of the launch, or null. */
    @Nullable String errorType();

    /** The i-th member's request ID, {@code 0 <= i < batchSize()}. */
    String memberRequestId(int i);

    /** The i-th member's share of {@link #gpuMs()} (NaN when the GPU time is unknown). */
    double memberShareMs(int i);
  }

  /**
   * One request's launches, summed up: the batching fields of its record ({@link
   * InferenceRecord#batching()}), absent for a request that never joined a launch nor waited for one.
   * Field names in the record are given per accessor.
   *
   * <pre>{@code
   * SharedLaunch.Summary b = record.batching();
   * if (b != null && b.neighbourPrefillMs() > record.latencyMs() / 2) {
   *   log.info("slowed by {}", b.slowedBy());   // other requests' prompts sharing its steps
   * }
   * }</pre>
   */
  final class Summary {
    private final int launchCount;
    private final long firstLaunchId;
    private final long lastLaunchId;
    private final double batchSizeMean;
    private final int batchSizeMax;
    private final @Nullable String shareMethod;
    private final double slotWaitMs;
    private final int neighbourPrefillLaunches;
    private final double neighbourPrefillMs;
    private final java.util.List<Neighbour> slowedBy;
    private final int preemptions;
    private final double preemptedMs;
    private final int failedLaunches;
    private final long failedLaunchId;

    private Summary(Builder b) {
      this.launchCount = b.launchCount;
      this.firstLaunchId = b.firstLaunchId;
      this.lastLaunchId = b.lastLaunchId;
      this.batchSizeMean = b.batchSizeMean;
      this.batchSizeMax = b.batchSizeMax;
      this.shareMethod = b.shareMethod;
      this.slotWaitMs = b.slotWaitMs;
      this.neighbourPrefillLaunches = b.neighbourPrefillLaunches;
      this.neighbourPrefillMs = b.neighbourPrefillMs;
      this.slowedBy = java.util.List.copyOf(b.slowedBy);
      this.preemptions = b.preemptions;
      this.preemptedMs = b.preemptedMs;
      this.failedLaunches = b.failedLaunches;
      this.failedLaunchId = b.failedLaunchId;
    }

    public static Builder builder() {
      return new Builder();
    }

    /** {@code launch_count}: launches the request was a member of. */
    public int launchCount() { return launchCount; }

    /** {@code first_launch_id}, -1 without a launch. */
    public long firstLaunchId() { return firstLaunchId; }

    /** {@code last_launch_id}, -1 without a launch. */
    public long lastLaunchId() { return lastLaunchId; }

    /** {@code batch_size_mean}: members per launch, averaged over its launches; NaN without a launch. */
    public double batchSizeMean() { return batchSizeMean; }

    /** {@code batch_size_max}. */
    public int batchSizeMax() { return batchSizeMax; }

    /**
     * {@code gpu_ms_method}: how the record's {@code gpu_ms} was split out of its launches' measured GPU
     * time ({@code tokens}, {@code rows}, {@code equal}, {@code mixed} when its launches used
     * different ones); null when no launch had GPU time. When set, {@code gpu_ms} is an estimate.
     */
    public @Nullable String shareMethod() { return shareMethod; }

    /** {@code slot_wait_ms}: admitted to the scheduler, waiting for a batch slot (not the admission queue). */
    public double slotWaitMs() { return slotWaitMs; }

    /** {@code neighbour_prefill_launches}: its launches that carried other requests' prefill. */
    public int neighbourPrefillLaunches() { return neighbourPrefillLaunches; }

    /** {@code neighbour_prefill_ms}: host time of those launches (time it spent in them). */
    public double neighbourPrefillMs() { return neighbourPrefillMs; }

    /** {@code slowed_by}: the neighbours with most prefill tokens in its launches, most first, at most 3. */
    public java.util.List<Neighbour> slowedBy() { return slowedBy; }

    /** {@code preemptions}: times the scheduler paused it ({@link InferenceTrace#preempted(String)}). */
    public int preemptions() { return preemptions; }

    /** {@code preempted_ms}: time from each preemption to its next launch (or its end). */
    public double preemptedMs() { return preemptedMs; }

    /** {@code failed_launches}: its launches that failed ({@link SharedLaunch#error(String)}). */
    public int failedLaunches() { return failedLaunches; }

    /** {@code failed_launch_id}: the last of them, -1 when none. */
    public long failedLaunchId() { return failedLaunchId; }

    @Override
    public String toString() {
      return "Summary{launches=" + launchCount + " [" + firstLaunchId + ".." + lastLaunchId + "], batch="
          + batchSizeMean + "/" + batchSizeMax + ", method=" + shareMethod + ", slotWaitMs=" + slotWaitMs
          + ", neighbourPrefill=" + neighbourPrefillLaunches + "/" + neighbourPrefillMs + "ms, slowedBy="
          + slowedBy + ", preemptions=" + preemptions + "/" + preemptedMs + "ms, failed=" + failedLaunches
          + "/" + failedLaunchId + "}";
    }

    /** Builds a summary (the tracer does; tools reading logs may). Not thread-safe. */
    public static final class Builder {
      private int launchCount;
      private long firstLaunchId = -1;
      private long lastLaunchId = -1;
      private double batchSizeMean = Double.NaN;
      private int batchSizeMax;
      private @Nullable String shareMethod;
      private double slotWaitMs;
      private int neighbourPrefillLaunches;
      private double neighbourPrefillMs;
      private java.util.List<Neighbour> slowedBy = java.util.List.of();
      private int preemptions;
      private double preemptedMs;
      private int failedLaunches;
      private long failedLaunchId = -1;

      private Builder() {}

      public Builder launches(int count, long firstId, long lastId) {
        launchCount = nonNegative(count, "launch_count");
        firstLaunchId = firstId;
        lastLaunchId = lastId;
        return this;
      }

      public Builder batchSize(double mean, int max) {
        batchSizeMean = mean;
        batchSizeMax = nonNegative(max, "batch_size_max");
        return this;
      }

      public Builder shareMethod(@Nullable String method) {
        shareMethod = method;
        return this;
      }

      public Builder slotWaitMs(double ms) {
        slotWaitMs = duration(ms, "slot_wait_ms");
        return this;
      }

      public Builder neighbourPrefill(int launches, double ms, java.util.List<Neighbour> slowedBy) {
        neighbourPrefillLaunches = nonNegative(launches, "neighbour_prefill_launches");
        neighbourPrefillMs = duration(ms, "neighbour_prefill_ms");
        this.slowedBy = java.util.Objects.requireNonNull(slowedBy, "slowedBy");
        return this;
      }

      public Builder preemptions(int count) {
        preemptions = nonNegative(count, "preemptions");
        return this;
      }

      public Builder preemptedMs(double ms) {
        preemptedMs = duration(ms, "preempted_ms");
        return this;
      }

      public Builder failedLaunches(int count, long lastId) {
        failedLaunches = nonNegative(count, "failed_launches");
        failedLaunchId = lastId;
        return this;
      }

      public Summary build() {
        return new Summary(this);
      }

      private static int nonNegative(int v, String field) {
        if (v < 0) {
          throw new IllegalArgumentException(field + " must be >= 0: " + v);
        }
        return v;
      }

      private static double duration(double v, String field) {
        if (!(v >= 0) || Double.isInfinite(v)) {
          throw new IllegalArgumentException(field + " must be a finite value >= 0: " + v);
        }
        return v;
      }
    }
  }

  /**
   * A request whose prefill shared launches with the request of the record ({@code slowed_by}):
   * its ID, its prefill tokens in those launches, and how many of them.
   */
  record Neighbour(String requestId, long prefillTokens, int launches) {
    public Neighbour {
      java.util.Objects.requireNonNull(requestId, "requestId");
    }
  }

  /** The tracer's launch counters ({@link InferenceTracer#launchStats()}); an interface, so counters can be added. */
  interface Stats {
    /** Launches opened. */
    long launches();

    /** Launch lines written to the launch log's file (as of its last flush). */
    long logged();

    /** Lines not logged because the launch log's queue was full or closed (logged as a warning). */
    long dropped();

    /** Lines the file sink could not write (I/O errors). */
    long lost();
  }
}
