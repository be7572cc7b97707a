package io.github.trtrace.cli.internal;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The fields of one record that the statistics use, reused from line to line. Unknown numbers are
 * NaN (durations, utilisation) or -1 (counts); unknown strings null; flags empty.
 */
final class Rec {
  static final long NO_TIME = Long.MIN_VALUE;

  @Nullable String requestId;
  @Nullable String modelName;
  @Nullable String status;
  @Nullable String errorType;
  @Nullable String finishReason;
  long timestampMicros;
  double latencyMs;
  /** Stage times by {@link io.github.trtrace.core.Stage} ordinal, ms (NaN unknown). */
  final double[] stageMs = new double[Stages.COUNT];
  double gpuMs;
  double ttftMs;
  double tpotMs;
  /** Batching fields ({@code launch_count}, {@code neighbour_prefill_launches}, {@code slowed_by}); 0 or empty if absent. */
  long launchCount;
  long neighbourPrefillLaunches;
  final List<io.github.trtrace.core.SharedLaunch.Neighbour> slowedBy = new ArrayList<>(3);
  double gpuUtil;
  double gpuUtilMax;
  double gpuMemUtilMax;
  long inputTokens;
  long outputTokens;
  long maxTokens;
  final List<String> inputFlags = new ArrayList<>(4);
  final List<String> outputFlags = new ArrayList<>(4);

  Rec() {
    clear();
  }

  void clear() {
    requestId = null;
    modelName = null;
    status = null;
    errorType = null;
    finishReason = null;
    timestampMicros = NO_TIME;
    latencyMs = Double.NaN;
    java.util.Arrays.fill(stageMs, Double.NaN);
    gpuMs = Double.NaN;
    ttftMs = Double.NaN;
    tpotMs = Double.NaN;
    launchCount = 0;
    neighbourPrefillLaunches = 0;
    slowedBy.clear();
    gpuUtil = Double.NaN;
    gpuUtilMax = Double.NaN;
    gpuMemUtilMax = Double.NaN;
    inputTokens = -1;
    outputTokens = -1;
    maxTokens = -1;
    inputFlags.clear();
    outputFlags.clear();
  }

  double queueMs() {
    return stageMs[io.github.trtrace.core.Stage.QUEUE.ordinal()];
  }
}
