package io.github.trtrace.core;

/**
 * SPI: receives each trace's lifecycle as it happens (OpenTelemetry spans and metrics are one
 * listener). Register listeners with {@link InferenceTracer.Builder#listener(TraceListener)}; several
 * are called in registration order on start and in reverse order on end.
 *
 * <p>A listener must be fast and must not block: it runs on the request's own threads. A listener
 * that throws is logged (rate limited), counted in {@link TracerStats#misuse()} and skipped for the
 * rest of that trace; it never breaks the request nor the other listeners.
 *
 * <pre>{@code
 * TraceListener slowLog = (trace, startEpochNanos) -> new TraceListener.Handle() {
 *   @Override public void onEnd(InferenceRecord r, long endEpochNanos) {
 *     if (r.latencyMs() > 1000) log.warn("slow request {}", r.requestId());
 *   }
 * };
 * InferenceTracer tracer = InferenceTracer.builder().jsonLinesFile(path).listener(slowLog).build();
 * }</pre>
 */
@FunctionalInterface
public interface TraceListener {

  /**
   * Called on the starting thread right after the trace started (request ID known). Never returns
   * null (return {@link Handle#NOOP} to ignore the trace).
   *
   * @param trace the trace just started; read its {@code requestId()} and {@code modelName()} here
   * @param startEpochNanos the trace's start, nanoseconds since the epoch (the record's {@code timestamp})
   */
  Handle onStart(InferenceTrace trace, long startEpochNanos);

  /**
   * A {@link SharedLaunch} closed, on the scheduler thread that closed it, after its members' figures
   * were written: {@code members} holds this listener's handle of each member, in the launch's member
   * order (null for a member this listener has no handle for). {@code launch} and the list are valid
   * only during the call. The OpenTelemetry module makes a launch span here, linked to the members'
   * request spans. A listener that throws is counted as misuse and logged.
   *
   * <pre>{@code
   * public void onLaunch(SharedLaunch.Ended launch, List<TraceListener.Handle> members) {
   *   histogram.record(launch.batchSize());
   * }
   * }</pre>
   */
  default void onLaunch(SharedLaunch.Ended launch, java.util.List<@org.jspecify.annotations.Nullable Handle> members) {}

  /**
   * Per-trace callbacks; every method has a no-op default. Called with the trace's monitor NOT held.
   * Times are epoch nanoseconds: the tracer's wall clock at the trace's start plus the monotonic time
   * elapsed since, so they are consistent with the record's {@code timestamp} and never go backwards.
   */
  interface Handle {
    /** A handle that ignores everything. */
    Handle NOOP = new Handle() {};

    /** Makes this listener's per-trace state (e.g. an OTel span) current on the calling thread. */
    default TraceScope makeCurrent() {
      return TraceScope.NOOP;
    }

    /** A stage was opened (possibly inside another one, which pauses until this one ends). */
    default void onStageStart(Stage stage, long epochNanos) {}

    /** The stage opened last ended. */
    default void onStageEnd(Stage stage, long epochNanos) {}

    /** An event was added to the trace (e.g. a TensorRT warning attributed to the request). */
    default void onEvent(InferenceRecord.Event event) {}

    /**
     * Once, on the ending thread, with the complete record, after the sampling decision:
     * {@code record.sampledReason()} is null when the SDK's sampler did not keep the record. When the
     * record could not be built (a failing sampler or redactor; counted in {@link
     * TracerStats#recordErrors()}), {@code onEnd} still comes, with a minimal record: request ID, model,
     * timestamp, status, latency and error type {@code "trtrace.record_error"}.
     */
    default void onEnd(InferenceRecord record, long endEpochNanos) {}
  }
}
