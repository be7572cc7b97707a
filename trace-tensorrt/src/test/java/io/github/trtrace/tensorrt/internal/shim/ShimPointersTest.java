package io.github.trtrace.tensorrt.internal.shim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ShimPointersTest {

  @Test
  void wrapsTheGivenAddressWithoutChangingIt() {
    assertThat(ShimPointers.at(0x7f00_1234_5678L).address()).isEqualTo(0x7f00_1234_5678L);
  }
}
