package io.github.trtrace.core.internal.batch;

import io.github.trtrace.core.SharedLaunch;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One request's batching figures as plain mutable fields: what its launches added up ({@link
 * MemberState}, on the trace) and what its record carries ({@link #copyFrom}, into the pooled record
 * entry, then {@link #toBatching()} on the worker). Reused; no allocation to fill or copy.
 */
public class BatchTally {
  /** Neighbours kept per request (the "slowed by" list): the ones with most prefill tokens. */
  public static final int NEIGHBOURS = 3;

  int launches;
  long firstLaunchId;
  long lastLaunchId;
  long batchSizeSum;
  int batchSizeMax;
  double shareMs;
  /** The method of every launch with GPU time so far; {@link #MIXED} when they differed; null: none. */
  @Nullable Object method;
  double slotWaitMs;
  int neighbourPrefillLaunches;
  double neighbourPrefillMs;
  final String[] neighbourIds = new String[NEIGHBOURS];
  final long[] neighbourTokens = new long[NEIGHBOURS];
  final int[] neighbourLaunches = new int[NEIGHBOURS];
  int neighbours;
  int preemptions;
  double preemptedMs;
  int failedLaunches;
  long failedLaunchId;
  /** The engine fingerprint of the last launch that had one, or null. */
  @Nullable String engineFingerprint;

  static final Object MIXED = "mixed";

  public BatchTally() {
    reset();
  }

  /** Back to "no launch". */
  public void reset() {
    launches = 0;
    firstLaunchId = -1;
    lastLaunchId = -1;
    batchSizeSum = 0;
    batchSizeMax = 0;
    shareMs = 0;
    method = null;
    slotWaitMs = 0;
    neighbourPrefillLaunches = 0;
    neighbourPrefillMs = 0;
    for (int i = 0; i < NEIGHBOURS; i++) {
      neighbourIds[i] = null;
      neighbourTokens[i] = 0;
      neighbourLaunches[i] = 0;
    }
    neighbours = 0;
    preemptions = 0;
    preemptedMs = 0;
    failedLaunches = 0;
    failedLaunchId = -1;
    engineFingerprint = null;
  }

  /** Whether anything batching-related happened (a launch, a slot wait, a preemption). */
  public boolean isEmpty() {
    return launches == 0 && slotWaitMs == 0 && preemptions == 0;
  }

  /** The summed GPU shares, 0 when no launch had GPU time. */
  public double shareMs() {
    return shareMs;
  }

  /** Whether a launch of this request had GPU time (so {@link #shareMs()} is an estimate to add). */
  public boolean hasShare() {
    return method != null;
  }

  public void copyFrom(BatchTally o) {
    launches = o.launches;
    firstLaunchId = o.firstLaunchId;
    lastLaunchId = o.lastLaunchId;
    batchSizeSum = o.batchSizeSum;
    batchSizeMax = o.batchSizeMax;
    shareMs = o.shareMs;
    method = o.method;
    slotWaitMs = o.slotWaitMs;
    neighbourPrefillLaunches = o.neighbourPrefillLaunches;
    neighbourPrefillMs = o.neighbourPrefillMs;
    System.arraycopy(o.neighbourIds, 0, neighbourIds, 0, NEIGHBOURS);
    System.arraycopy(o.neighbourTokens, 0, neighbourTokens, 0, NEIGHBOURS);
    System.arraycopy(o.neighbourLaunches, 0, neighbourLaunches, 0, NEIGHBOURS);
    neighbours = o.neighbours;
    preemptions = o.preemptions;
    preemptedMs = o.preemptedMs;
    failedLaunches = o.failedLaunches;
    failedLaunchId = o.failedLaunchId;
    engineFingerprint = o.engineFingerprint;
  }

  /** The engine fingerprint of the request's last launch that named one, or null. */
  public @Nullable String engineFingerprint() {
    return engineFingerprint;
  }

  /** Adds one launch this request rode in. */
  final void addLaunch(long id, int batchSize, double share, SharedLaunch.@Nullable ShareMethod by,
      @Nullable String fingerprint) {
    if (fingerprint != null) {
      engineFingerprint = fingerprint;
    }
    if (launches == 0) {
      firstLaunchId = id;
    }
    launches++;
    lastLaunchId = id;
    batchSizeSum += batchSize;
    if (batchSize > batchSizeMax) {
      batchSizeMax = batchSize;
    }
    if (by != null) {
      shareMs += share;
      method = method == null || method == by ? by : MIXED;
    }
  }

  /**
   * Counts {@code tokens} of prefill by neighbour {@code id} in one shared launch. Bounded: the
   * {@value #NEIGHBOURS} neighbours with most tokens are kept; a new one replaces the smallest when it
   * brought more tokens in this launch than that one in all (so the list is exact for the top
   * neighbours whenever each kept one outweighs any replaced one, as a long prompt does).
   */
  final void addNeighbour(String id, long tokens) {
    int min = 0;
    for (int i = 0; i < neighbours; i++) {
      String n = neighbourIds[i];
      if (n == id || n.equals(id)) {
        neighbourTokens[i] += tokens;
        neighbourLaunches[i]++;
        return;
      }
      if (neighbourTokens[i] < neighbourTokens[min]) {
        min = i;
      }
    }
    if (neighbours < NEIGHBOURS) {
      min = neighbours++;
    } else if (tokens <= neighbourTokens[min]) {
      return;
    }
    neighbourIds[min] = id;
    neighbourTokens[min] = tokens;
    neighbourLaunches[min] = 1;
  }

  /** The record's value; null when nothing batching-related happened. Allocates (the worker's job). */
  public SharedLaunch.@Nullable Summary toBatching() {
    if (isEmpty()) {
      return null;
    }
    List<SharedLaunch.Neighbour> slowedBy = new ArrayList<>(neighbours);
    for (int i = 0; i < neighbours; i++) {
      slowedBy.add(new SharedLaunch.Neighbour(neighbourIds[i], neighbourTokens[i], neighbourLaunches[i]));
    }
    slowedBy.sort((a, b) -> Long.compare(b.prefillTokens(), a.prefillTokens()));
    SharedLaunch.Summary.Builder b = SharedLaunch.Summary.builder()
        .slotWaitMs(slotWaitMs)
        .preemptions(preemptions)
        .preemptedMs(preemptedMs);
    if (launches > 0) {
      b.launches(launches, firstLaunchId, lastLaunchId)
          .batchSize((double) batchSizeSum / launches, batchSizeMax)
          .neighbourPrefill(neighbourPrefillLaunches, neighbourPrefillMs, slowedBy);
    }
    Object m = method;
    if (m != null) {
      b.shareMethod(m instanceof SharedLaunch.ShareMethod sm ? sm.wireName() : (String) m);
    }
    if (failedLaunches > 0) {
      b.failedLaunches(failedLaunches, failedLaunchId);
    }
    return b.build();
  }
}
