package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import java.util.List;

/**
 * Where {@link BatchEngine} reports its steps: the seam between the demo's scheduler and the tracing of
 * shared work. One engine step is one launch (its members and what each contributed, its wall time and the
 * engine thread's CPU time measured once, each member's share of it); a request admitted but not in a step
 * waits for a slot; a request whose key/value cache was dropped for lack of room is preempted.
 * {@link BatchRecorder} records all of it through the tracer's record API (attributes) and a launch log of
 * its own.
 *
 * <pre>{@code
 * LaunchRecorder r = BatchRecorder.create(Path.of("logs/launches.log"));
 * BatchEngine engine = BatchEngine.start(cpu, BatchEngine.Settings.continuous(), 0, ids::incrementAndGet, r);
 * }</pre>
 */
interface LaunchRecorder extends AutoCloseable {

  /** One member of a launch: a prefill chunk ({@code prefillTokens > 0}) or a decode row. */
  record Member(InferenceTrace trace, int prefillTokens, int decodeRows, long cpuShareNanos) {}

  /**
   * One engine step.
   *
   * @param id unique over the service's engines, rising
   * @param engine which engine (replica) ran it
   * @param startEpochMicros when it started
   * @param wallNanos its wall time
   * @param cpuNanos the engine thread's CPU time for it (what another process on the machine does not
   *     inflate); the members' shares add up to it
   */
  record Launch(long id, int engine, long startEpochMicros, long wallNanos, long cpuNanos, List<Member> members) {
    int prefillTokens() {
      return members.stream().mapToInt(Member::prefillTokens).sum();
    }

    int decodeRows() {
      return members.stream().mapToInt(Member::decodeRows).sum();
    }
  }

  /**
   * {@code trace} starts waiting for a batch slot now: admitted to an engine, or put back after a preemption
   * (on the engine thread, before the step that follows). For a recorder that times the wait itself.
   */
  default void waiting(InferenceTrace trace) {}

  /**
   * {@code trace} is preempted now ({@code reason}, e.g. {@code kv_cache_full}): its cache is dropped and it
   * waits to be recomputed. For a recorder that times the loss itself; {@link #preempted} reports it done.
   */
  default void preempting(InferenceTrace trace, String reason) {}

  /** A launch ran. */
  void launched(Launch launch);

  /** {@code trace} was admitted but not in a launch for {@code nanos} (waiting for a batch slot or its turn). */
  void waited(InferenceTrace trace, long nanos);

  /**
   * {@code trace}'s key/value cache was dropped for lack of room and recomputed; reported once it is back
   * where it was, with the time that cost it.
   */
  void preempted(InferenceTrace trace, long lostNanos);

  /** {@code trace} is done with the engine (before it ends): the request's summary goes on its record. */
  void finished(InferenceTrace trace);

  /** Flushes and closes the launch log. */
  @Override
  void close();

  /** Records nothing (the capacity measurement). */
  static LaunchRecorder none() {
    return new LaunchRecorder() {
      @Override public void launched(Launch launch) {}
      @Override public void waited(InferenceTrace trace, long nanos) {}
      @Override public void preempted(InferenceTrace trace, long lostNanos) {}
      @Override public void finished(InferenceTrace trace) {}
      @Override public void close() {}
    };
  }
}
