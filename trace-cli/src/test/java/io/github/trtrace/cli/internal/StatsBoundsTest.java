package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Key maps stay bounded: keys beyond the cap are counted under "(other)", none lost. */
class StatsBoundsTest {
  private static Rec rec(String model, String flag, String errorType) {
    Rec r = new Rec();
    r.requestId = "id";
    r.modelName = model;
    r.status = "error";
    r.errorType = errorType;
    r.latencyMs = 5;
    r.inputFlags.add(flag);
    return r;
  }

  @Test
  void manyDistinctModelsFlagsAndErrorTypesAreCappedWithoutLosingCounts() {
    Stats s = new Stats(5);
    int n = Stats.MAX_KEYS * 3;
    for (int i = 0; i < n; i++) {
      s.add(rec("model-" + i, "flag-" + i, "Error" + i));
    }
    assertThat(s.groups).hasSizeLessThanOrEqualTo(Stats.MAX_KEYS + 1).containsKey(Stats.OTHER);
    assertThat(s.inputFlags).hasSizeLessThanOrEqualTo(Stats.MAX_KEYS + 1);
    assertThat(s.errorTypes).hasSizeLessThanOrEqualTo(Stats.MAX_KEYS + 1);
    assertThat(s.inputFlags.values().stream().mapToLong(c -> c.records).sum()).isEqualTo(n);
    assertThat(s.errorTypes.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(n);
    assertThat(s.groups.values().stream().flatMap(m -> m.values().stream()).mapToLong(g -> g.latency.count()).sum())
        .isEqualTo(n);
    assertThat(s.slowest()).hasSize(5);
  }
}
