package io.github.trtrace.tensorrt.internal.cupti;

/**
 * A snapshot of a recorder's counters. Nothing is lost silently: every activity CUPTI recorded for a recorded
 * launch is either written ({@code activities}) or counted under one cause.
 *
 * @param launches kernels lines written
 * @param activities activities written on those lines
 * @param truncated activities of recorded launches left off their line (the per-launch bound)
 * @param queueDropped rows dropped because the queue from CUPTI's callback was full (activities, and the API-call rows
 *     that tell the joiner what a launch owes: a launch that lost one may be written incomplete)
 * @param cuptiDropped records CUPTI itself dropped (no buffer given in time; {@code cuptiActivityGetNumDroppedRecords})
 * @param late activities of a launch that arrived after its line was written
 * @param launchesDropped recorded launches not tracked (too many awaiting their records) or whose line the
 *     launch log refused
 * @param uncorrelated activities of work no recorded launch issued (other launches, the application's own)
 * @param incomplete activities of recorded launches CUPTI delivered without valid timestamps (left out)
 * @param failedCalls CUPTI calls on the launch path that returned an error (push, pop)
 * @param launchesIncomplete of {@code launches}, lines written before every record of their launch came (the
 *     maximum wait ran out, or a forced flush): marked {@code "complete": false}
 * @param kindToggles times the activity kinds were enabled or disabled around recorded launches (each counts one)
 * @param kindToggleNanos time spent in those toggles on the launching threads (the enables: a launch to record finds
 *     the kinds off)
 * @param recorderToggleNanos time spent in them on the recorder's thread (the disables, once no recorded launch is in
 *     flight)
 */
public record RecorderStats(long launches, long activities, long truncated, long queueDropped, long cuptiDropped,
    long late, long launchesDropped, long uncorrelated, long incomplete, long failedCalls, long launchesIncomplete,
    long kindToggles, long kindToggleNanos, long recorderToggleNanos) {
  /** All zero. */
  public static final RecorderStats NONE = new RecorderStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /**
   * These counts with the recorder's own added: {@code moreLaunchesDropped} (completions it could not queue) and
   * the activity kinds' toggles.
   */
  RecorderStats withRecorder(long moreLaunchesDropped, long toggles, long toggleNanos, long recorderNanos) {
    return new RecorderStats(launches, activities, truncated, queueDropped, cuptiDropped, late,
        launchesDropped + moreLaunchesDropped, uncorrelated, incomplete, failedCalls, launchesIncomplete, toggles,
        toggleNanos, recorderNanos);
  }
}
