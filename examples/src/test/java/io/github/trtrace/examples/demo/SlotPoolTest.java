package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SlotPoolTest {

  @Test
  void handsOutTheLowestFreeSlotAndTakesItBackOnce() {
    SlotPool pool = new SlotPool(3);
    assertThat(pool.acquire()).isZero();
    assertThat(pool.acquire()).isEqualTo(1);
    assertThat(pool.acquire()).isEqualTo(2);
    assertThat(pool.free()).isZero();
    assertThatThrownBy(pool::acquire).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("all 3 key/value slots are taken");
    pool.release(1);
    assertThat(pool.free()).isEqualTo(1);
    assertThatThrownBy(() -> pool.release(1)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("slot 1 is not taken");
    assertThatThrownBy(() -> pool.release(3)).isInstanceOf(IllegalArgumentException.class);
    assertThat(pool.acquire()).isEqualTo(1);
  }
}
