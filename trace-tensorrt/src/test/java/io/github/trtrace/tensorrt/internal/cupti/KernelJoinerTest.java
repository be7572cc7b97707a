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
    boolean accept = true;

    @Override
    public boolean write(long launchId, List<SharedLaunch.GpuActivity> list, int more) {
      if (!accept) {
        return false;
      }
      ids.add(launchId);
      activities.add(List.copyOf(list));
      notListed.add(more);
      return true;
    }
  }

  static KernelJoiner joiner(int maxPerLaunch) {
    return new KernelJoiner(maxPerLaunch, 8, 20 * MS, NAMES::get,
        s -> s.equals("_Z4gemmPfS_i") ? "gemm(float*, float*, int)" : null);
  }

  @Test
  void rowsAreJoinedToTheirLaunchThroughTheExternalCorrelationWhateverOrderTheyArriveIn() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    // the kernel's buffer comes before the buffer with its external correlation: it waits one round
    j.rows(List.of(ActivityRow.kernel(7, 5_000, 35_000, 0x10, 64, 2, 1, 128, 1, 1)), 0);
    j.completed(42, log, 0);
    assertThat(j.round(1 * MS, false)).isZero();
    j.rows(List.of(ActivityRow.external(7, 42), ActivityRow.external(8, 42),
        ActivityRow.memcpy(8, 1_000, 3_000, 1, 4096),
        ActivityRow.kernel(9, 40_000, 50_000, 0x20, 16, 1, 1, 256, 1, 1), ActivityRow.external(9, 42)), 2 * MS);
    assertThat(j.round(2 * MS, false)).as("not settled yet: 20 ms after completion").isZero();
    assertThat(j.round(21 * MS, false)).isEqualTo(1);
    assertThat(log.ids).containsExactly(42L);
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
  }

  @Test
  void rowsOfWorkNoRecordedLaunchIssuedAreCountedAsUncorrelatedAfterOneMoreRound() {
    KernelJoiner j = joiner(16);
    j.rows(List.of(ActivityRow.kernel(100, 1_000, 2_000, 0x20, 1, 1, 1, 1, 1, 1)), 0);
    j.round(0, false);
    assertThat(j.stats(0, 0, 0).uncorrelated()).isZero();
    j.round(1 * MS, false);
    assertThat(j.stats(0, 0, 0).uncorrelated()).isEqualTo(1);
  }

  @Test
  void aLaunchListsAtMostTheBoundAndCountsTheRest() {
    KernelJoiner j = joiner(2);
    Lines log = new Lines();
    List<ActivityRow> rows = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      rows.add(ActivityRow.external(i, 3));
      rows.add(ActivityRow.kernel(i, 1_000 + i * 100, 1_050 + i * 100, 0x20, 1, 1, 1, 32, 1, 1));
    }
    j.rows(rows, 0);
    j.completed(3, log, 0);
    j.round(0, true);
    assertThat(log.activities.get(0)).hasSize(2);
    assertThat(log.notListed).containsExactly(3);
    assertThat(j.stats(0, 0, 0).truncated()).isEqualTo(3);
  }

  @Test
  void rowsArrivingAfterTheirLaunchWasWrittenAreCountedLate() {
    KernelJoiner j = joiner(16);
    Lines log = new Lines();
    j.rows(List.of(ActivityRow.external(1, 5), ActivityRow.kernel(1, 10, 20, 0x20, 1, 1, 1, 1, 1, 1)), 0);
    j.completed(5, log, 0);
    j.round(0, true);
    j.rows(List.of(ActivityRow.external(2, 5), ActivityRow.kernel(2, 30, 40, 0x20, 1, 1, 1, 1, 1, 1)), 0);
    j.round(0, true);
    assertThat(log.ids).containsExactly(5L);
    assertThat(j.stats(0, 0, 0).late()).isEqualTo(1);
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
