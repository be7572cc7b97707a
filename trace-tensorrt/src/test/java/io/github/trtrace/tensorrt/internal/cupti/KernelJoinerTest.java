package io.github.trtrace.tensorrt.internal.cupti;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.SharedLaunch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Joining CUPTI rows to launches, over plain values (no CUPTI in CI). */
class KernelJoinerTest {
  static final long MS = 1_000_000L;
  static final Map<Long, String> NAMES = Map.of(0x10L, "_Z4gemmPfS_i", 0x20L, "sm90_xmma_gelu", 0x30L, "_Zbroken");

  /** A launch log that keeps what it is given. */
  static final class Lines implements SharedLaunch.ActivityLog {
    final List<Long> ids = new ArrayList<>();
    final List<List<SharedLaunch.GpuActivity>> activities = new ArrayList<>();
    final List<Integer> notListed = new ArrayList<>();
    final List<Boolean> complete = new ArrayList<>();
    final List<Integer> unmatched = new ArrayList<>();
    final List<SharedLaunch.HostTiming> host = new ArrayList<>();
    boolean accept = true;

    @Override
    public boolean write(long launchId, List<SharedLaunch.GpuActivity> list, int more, boolean whole, int calls,
        SharedLaunch.HostTiming timing) {
      if (!accept) {
        return false;
      }
      ids.add(launchId);
      activities.add(List.copyOf(list));
      notListed.add(more);
      complete.add(whole);
      unmatched.add(calls);
      host.add(timing);
      return true;
    }
  }

  static final long MAX_WAIT = 2_000 * MS;

  static KernelJoiner joiner(int maxPerLaunch) {
    return new KernelJoiner(maxPerLaunch, 8, MAX_WAIT, Calls.CALLS, NAMES::get,
        s -> s.equals("_Z4gemmPfS_i") ? "gemm(float*, float*, int)" : null);
  }

  /** Rounds every 5 ms from {@code from} (inclusive) to {@code to} (exclusive), nothing delivered: lines written. */
  static int idle(KernelJoiner j, long from, long to) {
    int lines = 0;
    for (long t = from; t < to; t += 5 * MS) {
      j.rows(List.of(), t);
      lines += j.round(t, false);
    }
    return lines;
  }

  /**
   * One delivery of rows for launch {@code launchId}: an external correlation binding each API call's correlation id
   * to the launch (as CUPTI writes one before each API record made while the id is pushed), then {@code rows}.
   */
  static List<ActivityRow> bound(long launchId, ActivityRow... rows) {
    List<ActivityRow> out = new ArrayList<>();
    for (ActivityRow r : rows) {
      if (r.isApi()) {
        out.add(ActivityRow.external(r.correlationId(), launchId));
      }
    }
    out.addAll(List.of(rows));
    return out;
  }

  /** A kernel of correlation {@code c}. */
  static ActivityRow kernel(int c, long start) {
    return ActivityRow.kernel(c, start, start + 1_000, 0x20, 1, 1, 1, 32, 1, 1);
  }

  @Test
  void rowsAreJoinedToTheirLaunchThroughTheExternalCorrelationWhateverOrderTheyArriveIn() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    // the kernel's buffer comes before the buffer with its external correlation: it waits one round
    j.rows(List.of(ActivityRow.kernel(7, 5_000, 35_000, 0x10, 64, 2, 1, 128, 1, 1)), 0);
    j.completed(42, log, 0);
    assertThat(j.round(1 * MS, false)).isZero();
    j.rows(List.of(ActivityRow.external(7, 42), ActivityRow.external(8, 42), ActivityRow.external(9, 42),
        ActivityRow.external(10, 42), Calls.runtime(8, Calls.MEMCPY_ASYNC, 100, 200),
        Calls.runtime(7, Calls.LAUNCH_KERNEL, 300, 400), Calls.runtime(9, Calls.LAUNCH_KERNEL, 500, 600),
        ActivityRow.memcpy(8, 1_000, 3_000, 1, 4096),
        ActivityRow.kernel(9, 40_000, 50_000, 0x20, 16, 1, 1, 256, 1, 1)), 2 * MS);
    assertThat(j.round(2 * MS, false)).as("the marker has not come: the calls may go on").isZero();
    j.rows(bound(42, Calls.marker(10, 700)), 3 * MS);
    assertThat(j.round(3 * MS, false)).isEqualTo(1);
    assertThat(log.ids).containsExactly(42L);
    assertThat(log.complete).containsExactly(true);
    List<SharedLaunch.GpuActivity> a = log.activities.get(0);
    assertThat(a).extracting(SharedLaunch.GpuActivity::kind).containsExactly("memcpy", "kernel", "kernel");
    assertThat(a.get(0).name()).isEqualTo("HtoD");
    assertThat(a.get(0).bytes()).isEqualTo(4096);
    assertThat(a.get(1).name()).isEqualTo("gemm(float*, float*, int)");
    assertThat(a.get(1).ms()).isEqualTo(0.030);
    assertThat(a.get(1).gridY()).isEqualTo(2);
    assertThat(a.get(2).name()).as("not mangled: as CUPTI gave it").isEqualTo("sm90_xmma_gelu");
    RecorderStats s = j.stats(0, 0, 0);
    assertThat(s.launches()).isEqualTo(1);
    assertThat(s.activities()).isEqualTo(3);
    assertThat(s.uncorrelated()).isZero();
    assertThat(s.launchesIncomplete()).isZero();
  }

  /**
   * The host's part of a launch's GPU window: its start event is recorded at 100-200 ns; the first kernel's launch
   * call returns at 5,000 and it starts at 6,000 (lead-in 5,800 ns, of which 4,800 host-bound); the second kernel's
   * call returns at 7,500, after the first kernel ended at 7,000: the device waited 500 ns for the host (the 300 ns to
   * its start are the device's); the third was issued before the second ended (its 200 ns gap is the device's). The
   * end event is recorded at 10,300-10,450, after the last kernel ended at 10,000: the device waited 300 ns for it
   * (lead-out), and its timestamp may lie up to 150 ns later (end call).
   */
  @Test
  void aCompleteLineSaysTheLeadInTheLeadOutTheirCallsAndHowLongTheDeviceWaitedForTheHost() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.rows(bound(9, Calls.runtime(1, Calls.EVENT_RECORD, 100, 200),
        Calls.runtime(2, Calls.LAUNCH_KERNEL, 1_000, 5_000),
        Calls.runtime(3, Calls.LAUNCH_KERNEL, 5_100, 7_500),
        Calls.runtime(4, Calls.LAUNCH_KERNEL, 7_600, 7_700),
        Calls.runtime(5, Calls.EVENT_RECORD, 10_300, 10_450),
        Calls.marker(6, 10_500),
        kernel(2, 6_000), // 6,000-7,000
        kernel(3, 7_800), // 7,800-8,800: 500 of its 800 ns gap before its call returned
        kernel(4, 9_000)), 0); // 9,000-10,000: issued at 7,700, the 200 ns gap is the device's
    j.completed(9, log, 0);
    assertThat(j.round(0, false)).isEqualTo(1);
    assertThat(log.complete).containsExactly(true);
    // the start event's call ran 100-200: its timestamp is at 100 or later, so at most 5,900 ns before the kernel
    assertThat(log.host.get(0)).isEqualTo(new SharedLaunch.HostTiming(5_800, 100, 300, 150, 4_800 + 500));
  }

  /** The device-bound case: the end event is recorded while the last kernel still runs, so nothing waits for it. */
  @Test
  void anEndEventRecordedBeforeTheLastActivityEndedLeavesNoLeadOut() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.rows(bound(9, Calls.runtime(1, Calls.EVENT_RECORD, 100, 200),
        Calls.runtime(2, Calls.LAUNCH_KERNEL, 300, 400),
        Calls.runtime(3, Calls.EVENT_RECORD, 500, 600),
        Calls.marker(4, 700),
        kernel(2, 1_000)), 0); // 1,000-2,000, after the end event's call; 200 ns of its lead-in before its call returned
    j.completed(9, log, 0);
    assertThat(j.round(0, false)).isEqualTo(1);
    assertThat(log.host.get(0)).isEqualTo(new SharedLaunch.HostTiming(800, 100, 0, 0, 200));
  }

  @Test
  void aLineWithoutTheLaunchsApiCallsOrIncompleteSaysNoHostTiming() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.rows(bound(9, Calls.runtime(1, Calls.LAUNCH_KERNEL, 1_000, 5_000)), 0);
    j.completed(9, log, 0);
    j.round(0, true); // forced: written without its kernel nor its marker
    assertThat(log.complete).containsExactly(false);
    assertThat(log.host).containsExactly((SharedLaunch.HostTiming) null);
  }

  /** The H200's defect (run 4): the old joiner wrote such a launch empty 20 ms after its completion. */
  @Test
  void recordsArriving500MsAfterTheCompletionAreInTheLineNotLate() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.rows(bound(42, Calls.runtime(7, Calls.LAUNCH_KERNEL, 100, 200),
        Calls.marker(8, 300)), 0);
    j.completed(42, log, 0);
    assertThat(idle(j, 0, 500 * MS)).isZero();
    j.rows(List.of(kernel(7, 5_000)), 500 * MS);
    assertThat(j.round(500 * MS, false)).isEqualTo(1);
    assertThat(log.ids).containsExactly(42L);
    assertThat(log.activities.get(0)).hasSize(1);
    assertThat(log.complete).containsExactly(true);
    assertThat(j.stats(0, 0, 0).late()).isZero();
  }

  @Test
  void aLaunchWhoseRecordsComeInTwoDeliveriesIsWrittenAfterTheSecondNotTheFirst() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.completed(5, log, 0);
    j.rows(bound(5, Calls.runtime(1, Calls.LAUNCH_KERNEL, 100, 200), Calls.runtime(2, Calls.LAUNCH_KERNEL, 300, 400),
        Calls.marker(3, 500), kernel(1, 10_000)), 10 * MS);
    assertThat(j.round(10 * MS, false)).isZero();
    assertThat(idle(j, 15 * MS, 300 * MS)).as("the second kernel is owed").isZero();
    j.rows(List.of(kernel(2, 20_000)), 300 * MS);
    assertThat(j.round(300 * MS, false)).isEqualTo(1);
    assertThat(log.activities.get(0)).hasSize(2);
    assertThat(log.complete).containsExactly(true);
    assertThat(j.stats(0, 0, 0).late()).isZero();
  }

  @Test
  void aLaunchWhoseApiRowsAreSplitWaitsForItsMarker() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.completed(5, log, 0);
    j.rows(bound(5, Calls.runtime(1, Calls.LAUNCH_KERNEL, 100, 200), kernel(1, 10_000)),
        1 * MS);
    assertThat(idle(j, 1 * MS, 100 * MS)).as("every call so far has its kernel, but the calls may go on").isZero();
    j.rows(bound(5, Calls.runtime(2, Calls.LAUNCH_KERNEL, 300, 400),
        Calls.marker(3, 500)), 100 * MS);
    assertThat(j.round(100 * MS, false)).as("the second call's kernel is owed").isZero();
    j.rows(List.of(kernel(2, 20_000)), 120 * MS);
    assertThat(j.round(120 * MS, false)).isEqualTo(1);
    assertThat(log.activities.get(0)).hasSize(2);
  }

  @Test
  void aCallOfTheMarkersKindFollowedByLaterCallsIsNotTheClosingMarker() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.completed(5, log, 0);
    // the enqueue itself peeks at the last error before a launch: not the end of its calls
    j.rows(bound(5, Calls.marker(1, 100), Calls.runtime(2, Calls.LAUNCH_KERNEL, 300, 400), kernel(2, 10_000)), 1 * MS);
    assertThat(idle(j, 1 * MS, 50 * MS)).isZero();
    j.rows(bound(5, Calls.marker(3, 500)), 50 * MS);
    assertThat(j.round(50 * MS, false)).isEqualTo(1);
    assertThat(log.complete).containsExactly(true);
  }

  @Test
  void aRuntimeCallAndTheDriverCallNestedInItAreSatisfiedByOneKernelOfEither() {
    for (int carried : new int[] {1, 2}) {
      KernelJoiner j = joiner(16);
      Lines log = new Lines();
      j.completed(5, log, 0);
      j.rows(bound(5, Calls.runtime(1, Calls.LAUNCH_KERNEL, 100, 200),
          Calls.driver(2, Calls.CU_LAUNCH_KERNEL, 120, 180),
          Calls.marker(3, 300), kernel(carried, 10_000)), 1 * MS);
      assertThat(j.round(1 * MS, false)).as("kernel carrying correlation %d", carried).isEqualTo(1);
      assertThat(log.complete).containsExactly(true);
      assertThat(log.activities.get(0)).hasSize(1);
    }
  }

  @Test
  void aDriverLaunchOutsideTheRuntimeCallsSpanIsAGroupOfItsOwn() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.completed(5, log, 0);
    j.rows(bound(5, Calls.runtime(1, Calls.LAUNCH_KERNEL, 100, 200), Calls.driver(2, Calls.CU_LAUNCH_KERNEL, 210, 250),
        Calls.marker(3, 300), kernel(1, 10_000)), 1 * MS);
    assertThat(idle(j, 1 * MS, MAX_WAIT)).isZero();
    assertThat(j.round(MAX_WAIT, false)).isEqualTo(1);
    assertThat(log.complete).containsExactly(false);
    assertThat(log.unmatched).containsExactly(1);
  }

  @Test
  void aGraphLaunchIsSatisfiedByItsKernelsAndListsThemAll() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.completed(5, log, 0);
    j.rows(bound(5, Calls.runtime(1, Calls.GRAPH_LAUNCH, 100, 200), Calls.marker(2, 300),
        kernel(1, 10_000), kernel(1, 12_000), kernel(1, 14_000)), 1 * MS);
    assertThat(j.round(1 * MS, false)).isEqualTo(1);
    assertThat(log.complete).containsExactly(true);
    assertThat(log.activities.get(0)).hasSize(3);
  }

  @Test
  void callsThatIssueNoGpuWorkOweNoRecord() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.completed(5, log, 0);
    j.rows(bound(5, Calls.runtime(1, Calls.HOST_FUNC, 100, 200), Calls.runtime(2, Calls.EVENT_RECORD, 210, 250),
        Calls.marker(3, 300)), 1 * MS);
    assertThat(j.round(1 * MS, false)).isEqualTo(1);
    assertThat(log.complete).containsExactly(true);
    assertThat(log.activities.get(0)).isEmpty();
  }

  @Test
  void aLaunchStillOwingRecordsAtItsMaximumWaitIsWrittenIncompleteAndCounted() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.rows(bound(5, Calls.runtime(1, Calls.LAUNCH_KERNEL, 100, 200), Calls.runtime(2, Calls.MEMCPY_ASYNC, 300, 400),
        Calls.marker(3, 500), kernel(1, 10_000)), 0);
    j.completed(5, log, 10 * MS);
    // no marker ever for launch 6
    j.rows(bound(6, Calls.runtime(4, Calls.LAUNCH_KERNEL, 600, 700), kernel(4, 20_000)),
        0);
    j.completed(6, log, 10 * MS);
    assertThat(idle(j, 10 * MS, 10 * MS + MAX_WAIT)).isZero();
    assertThat(j.round(10 * MS + MAX_WAIT, false)).isEqualTo(2);
    assertThat(log.ids).containsExactlyInAnyOrder(5L, 6L);
    assertThat(log.complete).containsExactly(false, false);
    int five = log.ids.indexOf(5L);
    assertThat(log.unmatched.get(five)).as("the memcpy's record never came").isEqualTo(1);
    assertThat(log.activities.get(five)).hasSize(1);
    assertThat(log.unmatched.get(1 - five)).as("its calls were whole but not closed").isZero();
    RecorderStats s = j.stats(0, 0, 0);
    assertThat(s.launchesIncomplete()).isEqualTo(2);
    assertThat(s.launches()).isEqualTo(2);
    assertThat(j.pending()).isZero();
  }

  @Test
  void rowsOfWorkNoRecordedLaunchIssuedAreCountedAsUncorrelatedAfterOneMoreRoundAndItsCallsAreNot() {
    KernelJoiner j = joiner(16);
    j.rows(List.of(ActivityRow.kernel(100, 1_000, 2_000, 0x20, 1, 1, 1, 1, 1, 1),
        Calls.runtime(100, Calls.LAUNCH_KERNEL, 10, 20)), 0);
    j.round(0, false);
    assertThat(j.stats(0, 0, 0).uncorrelated()).isZero();
    j.round(1 * MS, false);
    assertThat(j.stats(0, 0, 0).uncorrelated()).isEqualTo(1);
  }

  @Test
  void aLaunchListsAtMostTheBoundAndCountsTheRest() {
    KernelJoiner j = joiner(3);
    Lines log = new Lines();
    List<ActivityRow> rows = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      rows.add(ActivityRow.external(i, 3));
      rows.add(Calls.runtime(i, Calls.LAUNCH_KERNEL, i * 100, i * 100 + 50));
      rows.add(ActivityRow.kernel(i, 1_000 + i * 100, 1_050 + i * 100, 0x20, 1, 1, 1, 32, 1, 1));
    }
    rows.add(ActivityRow.external(9, 3));
    rows.add(Calls.marker(9, 900));
    j.rows(rows, 0);
    j.completed(3, log, 0);
    assertThat(j.round(0, false)).as("complete: the kernels left off the list count as come").isEqualTo(1);
    assertThat(log.activities.get(0)).hasSize(3);
    assertThat(log.notListed).containsExactly(2);
    assertThat(log.complete).containsExactly(true);
    assertThat(j.stats(0, 0, 0).truncated()).isEqualTo(2);
  }

  @Test
  void moreApiCallsThanTheBoundLeaveTheLaunchUnjudgedUntilItsMaximumWait() {
    KernelJoiner j = joiner(2); // 4 API rows per launch at most
    Lines log = new Lines();
    List<ActivityRow> rows = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      rows.add(ActivityRow.external(i, 3));
      rows.add(Calls.runtime(i, Calls.EVENT_RECORD, i * 100, i * 100 + 50));
    }
    rows.add(ActivityRow.external(9, 3));
    rows.add(Calls.marker(9, 900));
    j.rows(rows, 0);
    j.completed(3, log, 0);
    assertThat(idle(j, 0, MAX_WAIT)).isZero();
    assertThat(j.round(MAX_WAIT, false)).isEqualTo(1);
    assertThat(log.complete).containsExactly(false);
  }

  @Test
  void rowsArrivingAfterTheirLaunchWasWrittenAreCountedLate() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.rows(bound(5, Calls.runtime(1, Calls.LAUNCH_KERNEL, 100, 200),
        Calls.marker(3, 300), kernel(1, 10_000)), 0);
    j.completed(5, log, 0);
    assertThat(j.round(0, false)).isEqualTo(1);
    j.rows(bound(5, ActivityRow.kernel(2, 30, 40, 0x20, 1, 1, 1, 1, 1, 1),
        Calls.runtime(2, Calls.LAUNCH_KERNEL, 150, 160)), 1 * MS);
    j.round(1 * MS, true);
    assertThat(log.ids).containsExactly(5L);
    assertThat(j.stats(0, 0, 0).late()).as("the kernel, not the call").isEqualTo(1);
  }

  @Test
  void aForcedFlushWritesEveryCompletedLaunchSayingWhetherItIsComplete() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.rows(bound(5, Calls.runtime(1, Calls.LAUNCH_KERNEL, 100, 200)), 0);
    j.completed(5, log, 0);
    assertThat(j.round(0, true)).isEqualTo(1);
    assertThat(log.complete).containsExactly(false);
    assertThat(log.unmatched).containsExactly(1);
  }

  @Test
  void incompleteRecordsAreLeftOutAndCounted() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.rows(List.of(ActivityRow.external(1, 6), ActivityRow.kernel(1, 0, 0, 0x20, 1, 1, 1, 1, 1, 1),
        ActivityRow.external(2, 6), ActivityRow.kernel(2, 10, 20, 0x20, 1, 1, 1, 1, 1, 1)), 0);
    j.completed(6, log, 0);
    j.round(0, true);
    assertThat(log.activities.get(0)).hasSize(1);
    assertThat(j.stats(0, 0, 0).incomplete()).isEqualTo(1);
  }

  @Test
  void moreLaunchesAwaitingRecordsThanTheBoundAreCountedNotKept() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    for (long id = 1; id <= 10; id++) {
      j.completed(id, log, 0);
    }
    assertThat(j.pending()).isEqualTo(8);
    j.round(0, true);
    assertThat(log.ids).hasSize(8);
    assertThat(j.stats(0, 0, 0).launchesDropped()).isEqualTo(2);
  }

  @Test
  void aLineTheLaunchLogRefusesIsCounted() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    log.accept = false;
    j.completed(9, log, 0);
    j.round(0, true);
    assertThat(j.stats(0, 0, 0).launchesDropped()).isEqualTo(1);
    assertThat(j.stats(0, 0, 0).launches()).isZero();
  }

  @Test
  void kernelNamesAreDemangledWhenMangledAndBounded() {
    assertThat(KernelJoiner.readable("_Z4gemmPfS_i", s -> "gemm(float*, float*, int)"))
        .isEqualTo("gemm(float*, float*, int)");
    assertThat(KernelJoiner.readable("_Zbroken", s -> null)).isEqualTo("_Zbroken");
    assertThat(KernelJoiner.readable("plain_kernel", s -> "never")).isEqualTo("plain_kernel");
    String longName = "k".repeat(2000);
    String bounded = KernelJoiner.bound(longName);
    assertThat(bounded).hasSize(KernelJoiner.MAX_NAME).endsWith("\u2026");
  }

  @Test
  void copyKindsAreNamedAsCuptiDoes() {
    assertThat(ActivityRow.copyKindName(1)).isEqualTo("HtoD");
    assertThat(ActivityRow.copyKindName(2)).isEqualTo("DtoH");
    assertThat(ActivityRow.copyKindName(8)).isEqualTo("DtoD");
    assertThat(ActivityRow.copyKindName(99)).isEqualTo("unknown");
  }
}
