package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.trtrace.examples.tensorrt.Roofline;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The TensorRT step's host arithmetic, checked on host arrays: the padded inputs and mask, and the slot gather and
 * scatter run through a simulation of the network's {@code present = concat(past, new)} over several steps.
 */
class BatchLayoutTest {
  private static final TransformerNetwork.Batch MAX = new TransformerNetwork.Batch(8, 16, 32);
  private static final int H = 2;
  private static final int DH = 3;
  private static final int C = 12;
  private static final BatchLayout.Kv KV = new BatchLayout.Kv(H, DH, C);

  @Test
  void eachRealQuerySeesItsOwnCacheAndItsNewPositionsUpToItselfAndPaddingSeesOneColumn() {
    BatchLayout l = BatchLayout.of(new int[][] {{11, 12, 13}, {21}, {31, 32}}, new int[] {0, 5, 2}, MAX);
    assertThat(l.rows()).isEqualTo(3);
    assertThat(l.step()).isEqualTo(3);
    assertThat(l.past()).isEqualTo(5);
    assertThat(l.ids()).containsExactly(11, 12, 13, 21, 21, 21, 31, 32, 31);
    assertThat(l.positions()).containsExactly(0, 1, 2, 5, 5, 5, 2, 3, 2);
    int t = l.past() + l.step();
    int[] past = {0, 5, 2};
    int[] len = {3, 1, 2};
    for (int r = 0; r < 3; r++) {
      for (int i = 0; i < 3; i++) {
        float[] row = Arrays.copyOfRange(l.mask(), (r * 3 + i) * t, (r * 3 + i + 1) * t);
        for (int j = 0; j < t; j++) {
          boolean visible = i < len[r] ? j < past[r] || (j >= 5 && j <= 5 + i) : j == 5;
          assertThat(row[j]).as("row %d query %d column %d", r, i, j)
              .isEqualTo(visible ? 0f : TransformerNetwork.MASKED);
        }
      }
    }
  }

  @Test
  void aLaunchOutsideTheProfileOrWithAnEmptyRowIsRefusedWithTheReason() {
    assertThatThrownBy(() -> BatchLayout.of(new int[9][1], new int[9], MAX))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("9 rows");
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {new int[17]}, new int[1], MAX))
        .hasMessageContaining("17 new positions");
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {{1}}, new int[] {33}, MAX))
        .hasMessageContaining("after 33 cached");
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {{}}, new int[1], MAX))
        .hasMessageContaining("row 0: 0 tokens");
    assertThatThrownBy(() -> BatchLayout.of(new int[][] {{1, 2}}, new int[] {11}, MAX).scatter(new int[] {0}, KV))
        .hasMessageContaining("13 positions in a slot of 12");
  }

  /** The value a request's layer writes for its position p, head h, element d: unique per request. */
  private static float value(int request, int p, int h, int d) {
    return request * 10_000 + p * 100 + h * 10 + d;
  }

  @Test
  void gatherThenLaunchThenScatterKeepsEveryRequestsCacheInItsSlotOverSteps() {
    int slots = 4;
    float[] kv = new float[(int) (slots * KV.slotFloats())];
    Arrays.fill(kv, -7f); // never written: must stay
    // request -> slot: A(1) in slot 2, B(2) in slot 0, C(3) in slot 3
    // step 1: A prefills 3, B prefills 5
    step(kv, new int[] {1, 2}, new int[] {2, 0}, new int[] {0, 0}, new int[] {3, 5});
    // step 2: A decodes one, B a chunk of 2, C prefills 4 (new)
    step(kv, new int[] {1, 2, 3}, new int[] {2, 0, 3}, new int[] {3, 5, 0}, new int[] {1, 2, 4});
    // step 3: decode rows only, at different cache lengths
    step(kv, new int[] {3, 1, 2}, new int[] {3, 2, 0}, new int[] {4, 4, 7}, new int[] {1, 1, 1});
    int[][] expect = {{1, 2, 5}, {2, 0, 8}, {3, 3, 5}}; // request, slot, positions held
    for (int[] e : expect) {
      for (int h = 0; h < H; h++) {
        for (int p = 0; p < C; p++) {
          for (int d = 0; d < DH; d++) {
            float got = kv[(int) (e[1] * KV.slotFloats() + ((long) h * C + p) * DH + d)];
            assertThat(got).as("request %d head %d position %d", e[0], h, p)
                .isEqualTo(p < e[2] ? value(e[0], p, h, d) : -7f);
          }
        }
      }
    }
    for (int i = 0; i < KV.slotFloats(); i++) { // slot 1: nobody's
      assertThat(kv[(int) (KV.slotFloats() + i)]).isEqualTo(-7f);
    }
  }

  /**
   * One launch on host arrays: gather into past, check every row's past is its request's history, simulate the
   * network's concatenation (new positions' values from {@link #value}, padding garbage), scatter.
   */
  private static void step(float[] kv, int[] requests, int[] slots, int[] pastLen, int[] newLen) {
    int n = requests.length;
    int[][] tokens = new int[n][];
    for (int r = 0; r < n; r++) {
      tokens[r] = new int[newLen[r]];
    }
    BatchLayout l = BatchLayout.of(tokens, pastLen, MAX);
    int p = l.past();
    int s = l.step();
    float[] past = new float[n * H * p * DH];
    Arrays.fill(past, Float.NaN);
    for (BatchLayout.Copy c : l.gather(slots, KV)) {
      apply(c, kv, past);
    }
    float[] present = new float[n * H * (p + s) * DH];
    for (int r = 0; r < n; r++) {
      for (int h = 0; h < H; h++) {
        for (int j = 0; j < p + s; j++) {
          for (int d = 0; d < DH; d++) {
            int at = ((r * H + h) * (p + s) + j) * DH + d;
            if (j < p) {
              present[at] = past[((r * H + h) * p + j) * DH + d];
              if (j < pastLen[r]) {
                assertThat(present[at]).as("gathered row %d head %d position %d", r, h, j)
                    .isEqualTo(value(requests[r], j, h, d));
              }
            } else {
              int i = j - p;
              present[at] = i < newLen[r] ? value(requests[r], pastLen[r] + i, h, d) : -999f;
            }
          }
        }
      }
    }
    for (BatchLayout.Copy c : l.scatter(slots, KV)) {
      apply(c, present, kv);
    }
  }

  /** What {@code cudaMemcpy2DAsync} does, in floats. */
  private static void apply(BatchLayout.Copy c, float[] src, float[] dst) {
    for (long line = 0; line < c.height(); line++) {
      System.arraycopy(src, (int) (c.srcOffset() + line * c.srcPitch()), dst, (int) (c.dstOffset() + line * c.dstPitch()),
          (int) c.width());
    }
  }

  @Test
  void theLastLogitsOfARowAreAtItsLastRealPosition() {
    BatchLayout l = BatchLayout.of(new int[][] {{1, 2, 3}, {4}}, new int[] {0, 9}, MAX);
    assertThat(l.lastLogits(0, 10)).isEqualTo(20);
    assertThat(l.lastLogits(1, 10)).isEqualTo(30);
  }

  @Test
  void aDecodeRowOverALongContextWeighsMoreAndAPrefillChunkMoreThanADecodeRow() {
    TransformerNetwork.Config c = new TransformerNetwork.Config(633, 2048, 16, 8192, 8, 4096);
    Roofline roofline = Roofline.of(c, 2);
    Roofline.Peak h200 = Roofline.Peak.forGpu("NVIDIA H200");
    TransformerNetwork.Batch big = new TransformerNetwork.Batch(16, 256, 4096);
    double[] w = BatchLayout.of(new int[][] {{1}, {1}, new int[256]}, new int[] {100, 3000, 0}, big)
        .weights(roofline, h200);
    assertThat(w[1]).isGreaterThan(w[0] * 2);
    assertThat(w[2]).isGreaterThan(w[1]);
    for (double x : w) {
      assertThat(x).isPositive().isFinite();
    }
  }
}
