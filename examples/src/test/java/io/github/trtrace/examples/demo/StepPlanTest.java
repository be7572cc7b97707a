package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a step of continuous batching is laid out in passes: decode rows unpadded, prefill runs without idle rows. */
class StepPlanTest {
  private static final TransformerNetwork.Slots MAX = new TransformerNetwork.Slots(16, 256);
  private static final int C = 4096;

  @Test
  void aMixedStepRunsItsDecodeRowsAtOnePositionAndItsPrefillChunkApart() {
    // 15 decode rows in slots 0..15 but 7, a 256-token chunk in slot 7: one pass was 16 x 256
    int[][] tokens = new int[16][];
    int[] past = new int[16];
    int[] slots = new int[16];
    for (int m = 0; m < 16; m++) {
      slots[m] = 15 - m;
      tokens[m] = slots[m] == 7 ? new int[256] : new int[] {m};
      past[m] = slots[m] == 7 ? 0 : 100 + m;
    }
    List<StepPlan.Pass> passes = StepPlan.of(tokens, past, slots, MAX, C);
    assertThat(passes).hasSize(2);
    BatchLayout decode = passes.get(0).layout();
    assertThat(decode.rows()).as("slots 0..15, slot 7 an idle row").isEqualTo(16);
    assertThat(decode.step()).isEqualTo(1);
    assertThat(decode.chunks()).isEqualTo(15);
    BatchLayout prefill = passes.get(1).layout();
    assertThat(prefill.base()).isEqualTo(7);
    assertThat(prefill.rows()).isEqualTo(1);
    assertThat(prefill.step()).isEqualTo(256);
    assertThat(passes.get(1).chunks()).containsExactly(8);
    // every chunk in exactly one pass, each pass's chunks in slot order
    assertThat(passes.stream().flatMapToInt(p -> java.util.Arrays.stream(p.chunks())).sorted().toArray())
        .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    assertThat(passes.get(0).chunks()).startsWith(15, 14, 13, 12, 11, 10, 9, 7);
    // positions run: 16 x 1 + 1 x 256 against 16 x 256 in one padded pass
    assertThat(passes.stream().mapToInt(p -> p.layout().rows() * p.layout().step()).sum()).isEqualTo(272);
    assertThat(passes.stream().mapToLong(p -> (long) p.layout().rows() * p.layout().step()).sum())
        .isLessThanOrEqualTo(TensorRtSteps.capacityTokens(MAX));
  }

  @Test
  void prefillChunksShareAPassOnlyInAdjacentSlots() {
    int[][] tokens = {new int[40], new int[256], new int[3], new int[9]};
    List<StepPlan.Pass> passes = StepPlan.of(tokens, new int[4], new int[] {4, 3, 9, 0}, MAX, C);
    assertThat(passes).extracting(p -> p.layout().base()).containsExactly(0, 3, 9);
    assertThat(passes).extracting(p -> p.layout().rows()).containsExactly(1, 2, 1);
    assertThat(passes).extracting(p -> p.layout().step()).containsExactly(9, 256, 3);
    assertThat(passes.get(1).chunks()).containsExactly(1, 0);
  }

  @Test
  void aDecodeOnlyOrPrefillOnlyStepIsOnePass() {
    assertThat(StepPlan.of(new int[][] {{1}, {2}, {3}}, new int[] {5, 6, 7}, new int[] {0, 1, 2}, MAX, C)).hasSize(1);
    assertThat(StepPlan.of(new int[][] {new int[7], new int[8]}, new int[2], new int[] {5, 6}, MAX, C))
        .singleElement().satisfies(p -> assertThat(p.layout().rows()).isEqualTo(2));
  }

  @Test
  void aStepWithTwoChunksInOneSlotOrNoChunkIsRefused() {
    assertThatThrownBy(() -> StepPlan.of(new int[][] {{1}, new int[4]}, new int[2], new int[] {2, 2}, MAX, C))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two chunks in slot 2");
    assertThatThrownBy(() -> StepPlan.of(new int[0][], new int[0], new int[0], MAX, C))
        .hasMessageContaining("a step needs chunks");
  }

  @Test
  void everyPassHasItsOwnAlignedPlaceInTheStepsBuffersWithinTheirSize() {
    // a small head (H x Dh = 12) so the new keys and values of a pass are not a whole number of 256 bytes by themselves
    TransformerNetwork.Config c = new TransformerNetwork.Config(633, 12, 4, 48, 2, C);
    BatchLayout.Kv kv = new BatchLayout.Kv(c.blocks(), c.heads(), c.headDim(), C, 16);
    // decode rows in the even slots, prefill chunks of odd lengths in the odd ones: one pass and eight
    int[][] tokens = new int[16][];
    int[] past = new int[16];
    int[] slots = new int[16];
    for (int m = 0; m < 16; m++) {
      slots[m] = m;
      tokens[m] = m % 2 == 0 ? new int[] {m} : new int[m == 15 ? 256 : 37 + m];
      past[m] = m % 2 == 0 ? 50 : 0;
    }
    List<StepPlan.Pass> passes = StepPlan.of(tokens, past, slots, MAX, C);
    assertThat(passes).hasSize(9);
    List<TensorRtSteps.At> at = TensorRtSteps.places(passes, kv);
    long tokensEnd = 0;
    long cacheMaskEnd = 0;
    long stepMaskEnd = 0;
    long freshEnd = 0;
    for (int i = 0; i < passes.size(); i++) {
      BatchLayout l = passes.get(i).layout();
      TensorRtSteps.At a = at.get(i);
      assertThat(a.tokens()).as("pass %d after the one before", i).isGreaterThanOrEqualTo(tokensEnd);
      assertThat(a.cacheMask()).isGreaterThanOrEqualTo(cacheMaskEnd);
      assertThat(a.stepMask()).isGreaterThanOrEqualTo(stepMaskEnd);
      assertThat(a.fresh()).isGreaterThanOrEqualTo(freshEnd);
      // every address TensorRT is given is 256-byte aligned: ids and positions, logits, masks, new keys and values
      assertThat(4 * a.tokens() % 256).isZero();
      assertThat(4 * a.tokens() * c.vocab() % 256).isZero();
      assertThat(4 * a.cacheMask() % 256).isZero();
      assertThat(4 * a.stepMask() % 256).isZero();
      assertThat(TensorRtSteps.CACHE_BYTES * a.fresh() % 256).isZero();
      tokensEnd = a.tokens() + (long) l.rows() * l.step();
      cacheMaskEnd = a.cacheMask() + l.cacheMask().length;
      stepMaskEnd = a.stepMask() + l.stepMask().length;
      freshEnd = a.fresh() + kv.buffers() * l.newElements(kv);
    }
    assertThat(tokensEnd).isLessThanOrEqualTo(TensorRtSteps.capacityTokens(MAX));
    assertThat(cacheMaskEnd).isLessThanOrEqualTo(TensorRtSteps.capacityCacheMask(MAX, c));
    assertThat(stepMaskEnd).isLessThanOrEqualTo(TensorRtSteps.capacityStepMask(MAX));
    assertThat(freshEnd).isLessThanOrEqualTo(kv.buffers() * TensorRtSteps.capacityTokens(MAX) * c.heads() * c.headDim());
  }
}
