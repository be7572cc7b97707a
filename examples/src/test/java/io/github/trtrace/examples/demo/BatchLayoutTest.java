package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.examples.tensorrt.Roofline;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The TensorRT step's host arithmetic, checked on host arrays: rows as slots, the padded inputs and both masks, and
 * the appends run through a simulation of the slotted network (each row reads its slot where it lies and returns only
 * its new positions) over several steps.
 */
class BatchLayoutTest {
  private static final TransformerNetwork.Slots MAX = new TransformerNetwork.Slots(4, 16);
  private static final int BLOCKS = 2;
  private static final int H = 2;
  private static final int DH = 3;
  private static final int C = 12;
  private static final BatchLayout.Kv KV = new BatchLayout.Kv(BLOCKS, H, DH, C, 4);
  private static final float M = TransformerNetwork.MASKED;

  @Test
  void rowsAreSlotsAndAQuerySeesItsRowsCachedPositionsAndItsNewPositionsUpToItself() {
    // chunk 0: a 3-token prefill in slot 2; chunk 1: a decode row in slot 0 after 5 cached; slot 1 runs nothing
    BatchLayout l = BatchLayout.of(new int[][] {{11, 12, 13}, {21}}, new int[] {0, 5}, new int[] {2, 0}, MAX, C);
    assertThat(l.rows()).isEqualTo(3);
    assertThat(l.chunks()).isEqualTo(2);
    assertThat(l.step()).isEqualTo(3);
    assertThat(l.ids()).containsExactly(21, 21, 21, 0, 0, 0, 11, 12, 13);
    assertThat(l.positions()).containsExactly(5, 5, 5, 0, 0, 0, 0, 1, 2);
    float[] cache = l.cacheMask();
    assertThat(cache).hasSize(3 * C);
    for (int j = 0; j < C; j++) {
      assertThat(cache[j]).as("slot 0 position %d", j).isEqualTo(j < 5 ? 0f : M);
      assertThat(cache[C + j]).as("slot 1 (not in the launch) position %d", j).isEqualTo(M);
      assertThat(cache[2 * C + j]).as("slot 2 (nothing cached) position %d", j).isEqualTo(M);
    }
    assertThat(l.stepMask()).containsExactly(0, M, M, 0, 0, M, 0, 0, 0);
    assertThat(l.lastLogits(0, 10)).isEqualTo((2 * 3 + 2) * 10);
    assertThat(l.lastLogits(1, 10)).isEqualTo(0);
  }

  @Test
  void aPassStartsAtItsLowestSlotAndItsRowsAndLogitsCountFromThere() {
    // decode rows in slots 3 and 1: rows 0..2 from slot 1, slot 2 idle
    BatchLayout l = BatchLayout.of(new int[][] {{31}, {11}}, new int[] {4, 2}, new int[] {3, 1}, MAX, C);
    assertThat(l.base()).isEqualTo(1);
    assertThat(l.rows()).isEqualTo(3);
    assertThat(l.ids()).containsExactly(11, 0, 31);
    assertThat(l.positions()).containsExactly(2, 0, 4);
    assertThat(l.cacheMask()[0]).isZero();
    assertThat(l.cacheMask()[C]).as("slot 2: idle").isEqualTo(M);
    assertThat(l.cacheMask()[2 * C + 3]).isZero();
    assertThat(l.lastLogits(0, 10)).isEqualTo(2 * 10);
    assertThat(l.lastLogits(1, 10)).isZero();
    // a pass from slot 3 of two rows does not fit a cache of four slots
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {{1}, {2}}, new int[2], new int[] {3, 4},
        new TransformerNetwork.Slots(8, 16), C).appends(KV)).hasMessageContaining("from slot 3");
  }

  @Test
  void aLaunchOutsideTheProfileOrTheSlotsIsRefusedWithTheReason() {
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {{1}}, new int[1], new int[] {4}, MAX, C))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slot 4").hasMessageContaining("4 rows");
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {{1}, {2}}, new int[2], new int[] {1, 1}, MAX, C))
        .hasMessageContaining("two chunks in slot 1");
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {new int[17]}, new int[1], new int[1], MAX, 32))
        .hasMessageContaining("17 new positions");
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {{1, 2}}, new int[] {11}, new int[1], MAX, C))
        .hasMessageContaining("13 positions in a slot of 12");
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {{}}, new int[1], new int[1], MAX, C))
        .hasMessageContaining("chunk 0: 0 tokens");
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {{1}}, new int[1], new int[] {3}, MAX, C)
        .appends(new BatchLayout.Kv(BLOCKS, H, DH, C, 2)))
        .hasMessageContaining("does not fit the cache");
  }

  /** The value a request's layer writes for its position p, buffer z (block and K or V), head h, element d. */
  private static float value(int request, int p, int z, int h, int d) {
    return request * 100_000 + p * 1_000 + z * 100 + h * 10 + d;
  }

  @Test
  void appendsKeepEveryRequestsCacheInItsSlotOverStepsAndTouchNothingElse() {
    float[] cache = new float[(int) (KV.buffers() * KV.bufferElements())];
    Arrays.fill(cache, -7f); // never written: must stay
    // request -> slot: A(1) in slot 2, B(2) in slot 0, C(3) in slot 3
    step(cache, new int[] {1, 2}, new int[] {2, 0}, new int[] {0, 0}, new int[] {3, 5});
    step(cache, new int[] {1, 2, 3}, new int[] {2, 0, 3}, new int[] {3, 5, 0}, new int[] {1, 2, 4});
    step(cache, new int[] {3, 1, 2}, new int[] {3, 2, 0}, new int[] {4, 4, 7}, new int[] {1, 1, 1});
    step(cache, new int[] {2}, new int[] {0}, new int[] {8}, new int[] {1}); // a launch of one row: B = 1
    step(cache, new int[] {3}, new int[] {3}, new int[] {5}, new int[] {2}); // one row from slot 3: bound from there
    step(cache, new int[] {1, 3}, new int[] {2, 3}, new int[] {5, 7}, new int[] {1, 3}); // two passes, from 2 and 3
    int[][] expect = {{1, 2, 6}, {2, 0, 9}, {3, 3, 10}}; // request, slot, positions held
    for (int z = 0; z < KV.buffers(); z++) {
      for (int[] e : expect) {
        for (int h = 0; h < H; h++) {
          for (int p = 0; p < C; p++) {
            for (int d = 0; d < DH; d++) {
              assertThat(cache[at(z, e[1], h, p, d)]).as("request %d buffer %d head %d position %d", e[0], z, h, p)
                  .isEqualTo(p < e[2] ? value(e[0], p, z, h, d) : -7f);
            }
          }
        }
      }
      for (int i = 0; i < H * C * DH; i++) { // slot 1: nobody's
        assertThat(cache[at(z, 1, 0, 0, 0) + i]).isEqualTo(-7f);
      }
    }
  }

  private static int at(int z, int slot, int h, int p, int d) {
    return (int) (z * KV.bufferElements() + (((long) slot * H + h) * C + p) * DH + d);
  }

  /**
   * One step on host arrays, in its passes ({@link StepPlan}): in each pass every chunk's row (its slot less the
   * pass's base) reads its cached positions where the cache mask lets it (they must be its request's history), the
   * network writes {@code new_*} (real positions from {@link #value}, padding and rows not in the pass garbage), the
   * appends copy them into the slots.
   */
  private static void step(float[] cache, int[] requests, int[] slots, int[] pastLen, int[] newLen) {
    int n = requests.length;
    int[][] tokens = new int[n][];
    for (int m = 0; m < n; m++) {
      tokens[m] = new int[newLen[m]];
    }
    for (StepPlan.Pass pass : StepPlan.of(tokens, pastLen, slots, MAX, C)) {
      BatchLayout l = pass.layout();
      int b = l.rows();
      int s = l.step();
      float[] fresh = new float[KV.buffers() * b * H * s * DH];
      Arrays.fill(fresh, -999f);
      for (int m : pass.chunks()) {
        int r = slots[m] - l.base();
        for (int z = 0; z < KV.buffers(); z++) {
          for (int h = 0; h < H; h++) {
            for (int p = 0; p < C; p++) {
              boolean visible = l.cacheMask()[r * C + p] == 0f;
              assertThat(visible).as("row %d position %d", r, p).isEqualTo(p < pastLen[m]);
              for (int d = 0; d < DH && visible; d++) {
                // the pass's cache binding starts at its base slot: row r reads slot base + r
                assertThat(cache[at(z, l.base() + r, h, p, d)]).isEqualTo(value(requests[m], p, z, h, d));
              }
            }
            for (int i = 0; i < newLen[m]; i++) {
              for (int d = 0; d < DH; d++) {
                fresh[(((z * b + r) * H + h) * s + i) * DH + d] = value(requests[m], pastLen[m] + i, z, h, d);
              }
            }
          }
        }
      }
      for (BatchLayout.Append a : l.appends(KV)) {
        assertThat(a.srcSlice() % a.srcPitch()).isZero();
        assertThat(a.dstSlice() % a.dstPitch()).isZero();
        apply(a, fresh, cache);
      }
    }
  }

  /** What {@code cudaMemcpy3DAsync} does, in elements. */
  private static void apply(BatchLayout.Append a, float[] src, float[] dst) {
    for (long z = 0; z < a.depth(); z++) {
      for (long line = 0; line < a.height(); line++) {
        System.arraycopy(src, (int) (a.srcOffset() + z * a.srcSlice() + line * a.srcPitch()), dst,
            (int) (a.dstOffset() + z * a.dstSlice() + line * a.dstPitch()), (int) a.width());
      }
    }
  }

  @Test
  void aDecodeRowOverALongContextWeighsMoreAndAPrefillChunkMoreThanADecodeRow() {
    TransformerNetwork.Config c = new TransformerNetwork.Config(633, 2048, 16, 8192, 8, 4096);
    Roofline roofline = Roofline.of(c, 2);
    Roofline.Peak h200 = Roofline.Peak.forGpu("NVIDIA H200");
    TransformerNetwork.Slots big = new TransformerNetwork.Slots(16, 256);
    double[] w = BatchLayout.of(new int[][] {{1}, {1}, new int[256]}, new int[] {100, 3000, 0}, new int[] {5, 0, 1},
        big, 4096).weights(roofline, h200);
    assertThat(w[1]).isGreaterThan(w[0] * 2);
    assertThat(w[2]).isGreaterThan(w[1]);
    for (double x : w) {
      assertThat(x).isPositive().isFinite();
    }
  }
}
