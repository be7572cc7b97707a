package io.github.trtrace.cli.internal;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One line of a launch log ({@code launch-log.schema.json} in trace-core), reused from line to line by
 * {@link LaunchParser}: the launch, and its listed members with what each put through it and its share; or,
 * for a {@code kernels} line ({@link #kernelsLine}), the GPU activities CUPTI recorded for launch {@link #id}.
 * Unknown numbers are NaN; {@link #copy()} keeps one.
 */
final class LaunchLine {
  static final String PREFILL = "prefill";
  static final String DECODE = "decode";
  static final String MIXED = "mixed";

  long id = -1;
  long timestampMicros = Rec.NO_TIME;
  @Nullable String phase;
  int batchSize;
  long prefillTokens;
  int decodeRows;
  /** Enqueues of the launch when more than one (the line's {@code passes}); 1 when absent. */
  int passes = 1;
  double gpuMs = Double.NaN;
  double hostMs = Double.NaN;
  @Nullable String status;
  @Nullable String errorType;
  /** The engine's fingerprint (a launch line's {@code engine_fingerprint}), null when not written. */
  @Nullable String engineFingerprint;
  int membersTruncated;
  int members;
  String[] memberIds = new String[8];
  long[] memberPrefill = new long[8];
  int[] memberDecode = new int[8];
  double[] memberShare = new double[8];
  /** A {@code kernels} line (CUPTI's GPU activities of launch {@link #id}) rather than a launch line. */
  boolean kernelsLine;
  int kernels;
  String[] kernelKinds = new String[8];
  String[] kernelNames = new String[8];
  double[] kernelMs = new double[8];
  double spanMs = Double.NaN;
  int activitiesTruncated;
  /**
   * The recorder wrote the kernels line before every record of the launch came ({@code "complete": false}): its
   * list may miss activities. False for lines that say nothing (older versions).
   */
  boolean incomplete;
  /** With {@link #incomplete}: the launch's work-issuing calls whose GPU record had not come. */
  int unmatchedCalls;
  /**
   * {@code host_wait_ms}: of the launch's GPU window, the time the device waited for the host to issue its next
   * activity (NaN: the line does not say, older versions or no API records).
   */
  double hostWaitMs = Double.NaN;
  /** Sum of the line's kernel durations, all of them (set by {@link LaunchJoin#compact}, which keeps the slowest). */
  double kernelMsSum = Double.NaN;
  /**
   * A compacted kernels line joined with a build report ({@link LaunchJoin#compact}): its kernel time by engine
   * layer, the {@value LaunchJoin#KEPT_KERNELS} largest; null without a report.
   */
  java.util.@Nullable Map<String, Double> layerMs;
  /** Of those kernels, how many the report's layers named (the rest: {@code kernels} counted in the line). */
  int kernelsMatched;
  int kernelsInLine;
  /**
   * A profiled launch's layer table ({@code layers}: TensorRT's profiler, each engine layer's time in this launch),
   * the slowest the writer kept; 0 for a launch that was not profiled.
   */
  int profiledLayers;
  String[] profiledNames = new String[0];
  double[] profiledMs = new double[0];

  void clear() {
    kernelsLine = false;
    kernels = 0;
    kernelMsSum = Double.NaN;
    spanMs = Double.NaN;
    hostWaitMs = Double.NaN;
    activitiesTruncated = 0;
    incomplete = false;
    unmatchedCalls = 0;
    id = -1;
    timestampMicros = Rec.NO_TIME;
    phase = null;
    batchSize = 0;
    prefillTokens = 0;
    decodeRows = 0;
    passes = 1;
    gpuMs = Double.NaN;
    hostMs = Double.NaN;
    status = null;
    errorType = null;
    engineFingerprint = null;
    layerMs = null;
    kernelsMatched = 0;
    kernelsInLine = 0;
    profiledLayers = 0;
    membersTruncated = 0;
    members = 0;
  }

  /** Appends a member; returns its index. */
  int addMember(String requestId) {
    if (members == memberIds.length) {
      int n = members * 2;
      memberIds = Arrays.copyOf(memberIds, n);
      memberPrefill = Arrays.copyOf(memberPrefill, n);
      memberDecode = Arrays.copyOf(memberDecode, n);
      memberShare = Arrays.copyOf(memberShare, n);
    }
    memberIds[members] = requestId;
    memberPrefill[members] = 0;
    memberDecode[members] = 0;
    memberShare[members] = Double.NaN;
    return members++;
  }

  /** Appends one activity of a kernels line. */
  void addKernel(String kind, String name, double ms) {
    if (kernels == kernelNames.length) {
      int n = kernels * 2;
      kernelKinds = Arrays.copyOf(kernelKinds, n);
      kernelNames = Arrays.copyOf(kernelNames, n);
      kernelMs = Arrays.copyOf(kernelMs, n);
    }
    kernelKinds[kernels] = kind;
    kernelNames[kernels] = name;
    kernelMs[kernels] = ms;
    kernels++;
  }

  /** Appends one engine layer of a profiled launch's layer table. */
  void addProfiledLayer(String name, double ms) {
    if (profiledLayers == profiledNames.length) {
      int n = Math.max(8, profiledLayers * 2);
      profiledNames = Arrays.copyOf(profiledNames, n);
      profiledMs = Arrays.copyOf(profiledMs, n);
    }
    profiledNames[profiledLayers] = name;
    profiledMs[profiledLayers] = ms;
    profiledLayers++;
  }

  /** Index of {@code requestId} among the listed members, or -1. */
  int indexOf(String requestId) {
    for (int i = 0; i < members; i++) {
      if (requestId.equals(memberIds[i])) {
        return i;
      }
    }
    return -1;
  }

  /** Whether another listed member than {@code self} prefilled in this launch. */
  boolean othersPrefill(int self) {
    for (int i = 0; i < members; i++) {
      if (i != self && memberPrefill[i] > 0) {
        return true;
      }
    }
    return false;
  }

  boolean failed() {
    return "error".equals(status);
  }

  /**
   * The sum of the members' {@code share_ms}, NaN when the shares cannot be checked against {@code
   * gpu_ms}: no GPU time, members not all listed ({@code members_truncated}), or a member without a share.
   */
  double shareSum() {
    if (Double.isNaN(gpuMs) || membersTruncated > 0 || members == 0) {
      return Double.NaN;
    }
    double sum = 0;
    for (int i = 0; i < members; i++) {
      if (Double.isNaN(memberShare[i])) {
        return Double.NaN;
      }
      sum += memberShare[i];
    }
    return sum;
  }

  /**
   * Whether the shares are off their launch's GPU time by more than the log's rounding (each share and
   * {@code gpu_ms} are written to 0.001 ms, so the sum may be off by half of that per number).
   */
  boolean sharesOff() {
    double sum = shareSum();
    return !Double.isNaN(sum) && Math.abs(sum - gpuMs) > 0.0005 * (members + 1) + 1e-9;
  }

  /** The conservation finding for one launch, in words. */
  String sharesOffText() {
    return String.format(java.util.Locale.ROOT, "launch %d: its %d members' share_ms add up to %.3f ms, not its gpu_ms"
        + " %.3f ms (off by %.3f ms)", id, members, shareSum(), gpuMs, shareSum() - gpuMs);
  }

  /** A copy that the next line does not overwrite. */
  LaunchLine copy() {
    LaunchLine c = new LaunchLine();
    c.id = id;
    c.timestampMicros = timestampMicros;
    c.phase = phase;
    c.batchSize = batchSize;
    c.prefillTokens = prefillTokens;
    c.decodeRows = decodeRows;
    c.passes = passes;
    c.gpuMs = gpuMs;
    c.hostMs = hostMs;
    c.status = status;
    c.errorType = errorType;
    c.engineFingerprint = engineFingerprint;
    c.layerMs = layerMs;
    c.kernelsMatched = kernelsMatched;
    c.kernelsInLine = kernelsInLine;
    c.profiledLayers = profiledLayers;
    c.profiledNames = Arrays.copyOf(profiledNames, profiledLayers);
    c.profiledMs = Arrays.copyOf(profiledMs, profiledLayers);
    c.membersTruncated = membersTruncated;
    c.members = members;
    c.memberIds = Arrays.copyOf(memberIds, Math.max(1, members));
    c.memberPrefill = Arrays.copyOf(memberPrefill, Math.max(1, members));
    c.memberDecode = Arrays.copyOf(memberDecode, Math.max(1, members));
    c.memberShare = Arrays.copyOf(memberShare, Math.max(1, members));
    c.kernelsLine = kernelsLine;
    c.kernels = kernels;
    c.kernelKinds = Arrays.copyOf(kernelKinds, Math.max(1, kernels));
    c.kernelNames = Arrays.copyOf(kernelNames, Math.max(1, kernels));
    c.kernelMs = Arrays.copyOf(kernelMs, Math.max(1, kernels));
    c.spanMs = spanMs;
    c.hostWaitMs = hostWaitMs;
    c.kernelMsSum = kernelMsSum;
    c.activitiesTruncated = activitiesTruncated;
    c.incomplete = incomplete;
    c.unmatchedCalls = unmatchedCalls;
    return c;
  }
}
