package io.github.trtrace.core;

import org.jspecify.annotations.Nullable;

/**
 * SPI: receives each trace's lifecycle as it happens (OpenTelemetry spans and metrics are one
 * listener). Register listeners with {@link InferenceTracer.Builder#listener(TraceListener)}; several
 * are called in registration order on start and in reverse order on end.
 *
 * <p>A listener must be fast and must not block: {@code onStart} and the handle's stage, event and
 * {@code makeCurrent} callbacks run on the request's own threads, and {@link Handle#onEnd} on the
 * tracer's dispatcher thread, ahead of the sinks (see there). A listener
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
  default void onLaunch(SharedLaunch.Ended launch, java.util.List<@Nullable Handle> members) {}

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

    /**
     * A stage was opened, possibly inside another one (which pauses until this one ends). Returns what
     * this handle keeps for the stage, e.g. its span, or null: the trace holds it on its own stage stack
     * while the stage is open and hands it back as {@code parent} to the stages opened inside it, to
     * {@link #onStageEnd} and to {@link #onEvent}, so a handle needs no stack of its own.
     *
     * <pre>{@code
     * public Object onStageStart(Stage stage, Object parent, long epochNanos) {
     *   return tracer.spanBuilder(stage.name()).setParent(parent == null ? requestContext
     *       : Context.root().with((Span) parent)).setStartTimestamp(epochNanos, NANOSECONDS).startSpan();
     * }
     * }</pre>
     *
     * @param parent what this handle returned for the stage this one opened inside; null at the top level
     */
    default @Nullable Object onStageStart(Stage stage, @Nullable Object parent, long epochNanos) {
      return null;
    }

    /**
     * The stage opened last ended. When a stage ends with stages still open inside it, and when the
     * trace ends with stages open, those end first, innermost first, each with its own call.
     *
     * @param state what {@link #onStageStart} returned for this stage
     */
    default void onStageEnd(Stage stage, @Nullable Object state, long epochNanos) {}

    /**
     * An event was added to the trace (e.g. a TensorRT warning attributed to the request).
     *
     * @param stage what {@link #onStageStart} returned for the innermost open stage; null outside stages
     */
    default void onEvent(InferenceRecord.Event event, @Nullable Object stage) {}

    /**
     * Once, with the complete record, after the sampling decision: {@code record.sampledReason()} is
     * null when the SDK's sampler did not keep the record. When the record could not be built (a
     * failing sampler or redactor; counted in {@link TracerStats#recordErrors()}), {@code onEnd} still
     * comes, with a minimal record: request ID, model, timestamp, status, latency and error type {@code
     * "trtrace.record_error"}.
     *
     * <p>Thread: the record is built where the sinks' records are, off the request's thread, so that a
     * listener adds nothing to the request's own cost for building it. A record kept for the sinks is
     * built on the tracer's dispatcher thread, which calls {@code onEnd} with it before the sinks get it
     * (so {@code tracer.flush()} completes after it); a record that reaches no sink (sampled out, dropped
     * at a full queue, failed) comes on the thread that ended the trace. Either way it comes after the
     * trace ended, and after every other callback of this handle (they happen-before it), and never
     * concurrently with them. {@code endEpochNanos} is the trace's real end, which may be some time
     * before the call: end the listener's own work with it (e.g. {@code span.end(endEpochNanos,
     * NANOSECONDS)}), not with the time of the call. The request's context is not current there.
     */
    default void onEnd(InferenceRecord record, long endEpochNanos) {}
  }
}
