package io.github.trtrace.tensorrt.internal.cupti;

import io.github.trtrace.core.SharedLaunch;
import java.util.concurrent.CompletableFuture;

/**
 * Records the GPU work of chosen launches: the seam between the engine's execution path (pure Java, tested in
 * CI) and CUPTI ({@link CuptiRecorder}, run on the GPU). The launching thread calls {@link #begin} just before
 * the enqueue and {@link #end} just after it (CUPTI's external correlation id is per thread), then {@link
 * #completed} once the launch finished on the device; everything else happens on the recorder's own thread.
 *
 * <pre>{@code
 * boolean on = recorder.begin(launch.id());
 * try { context.enqueueV3(stream); } finally { if (on) recorder.end(launch.id()); }
 * stream.synchronize();
 * if (on) recorder.completed(launch.id(), launch.activityLog());
 * }</pre>
 */
public interface LaunchRecorder {

  /** Records nothing; every call is free. */
  LaunchRecorder OFF = new LaunchRecorder() {
    @Override public boolean begin(long launchId) { return false; }
    @Override public void end(long launchId) {}
    @Override public void completed(long launchId, SharedLaunch.ActivityLog log) {}
    @Override public CompletableFuture<Void> flush() { return CompletableFuture.completedFuture(null); }
    @Override public RecorderStats stats() { return RecorderStats.NONE; }
  };

  /**
   * Just before the enqueue of launch {@code launchId}, on the launching thread: the GPU work the thread
   * issues until {@link #end} is correlated with {@code launchId}. False when it is not (recording
   * unavailable in this process, or the call failed; said once, counted): then call neither {@code end} nor
   * {@code completed}.
   */
  boolean begin(long launchId);

  /**
   * Just after the enqueue, on the same thread as {@link #begin}: closes the launch's scope (CUPTI's recorder first
   * makes a marker call in it, telling its joiner that the enqueue's calls are all recorded).
   */
  void end(long launchId);

  /**
   * The launch finished on the device (or its wait failed): its records, once CUPTI delivered them, are written
   * to {@code log}. Called once after every {@link #begin} that returned true.
   */
  void completed(long launchId, SharedLaunch.ActivityLog log);

  /**
   * Asks CUPTI for every record so far (a forced flush, on the recorder's thread) and writes every completed
   * launch, complete or not (each line says which); completes when done. For tests, checks and shutdown: it does not
   * wait for the device.
   */
  CompletableFuture<Void> flush();

  /** Counters: launches written, activities recorded, and every loss by cause. */
  RecorderStats stats();

  /** CUPTI's buffer requests so far (none for a recorder that is off). */
  default BufferStats bufferStats() {
    return BufferStats.NONE;
  }
}
