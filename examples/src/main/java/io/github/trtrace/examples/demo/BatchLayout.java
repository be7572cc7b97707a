package io.github.trtrace.examples.demo;

import io.github.trtrace.examples.tensorrt.Roofline;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The host side of one launch of {@link TransformerNetwork#defineBatched}, as plain arithmetic (no CUDA, so it is
 * tested without a GPU): row r of the launch brings {@code tokens[r]} (a prefill chunk or one decode token) after
 * the {@code past[r]} positions its request has cached; the launch's S is the longest row and P the longest
 * cache, every row padded to them.
 *
 * <ul>
 *   <li>{@link #ids()}, {@link #positions()}: {@code [B, S]}; a padding position repeats the row's token 0 at its
 *       cache length (any valid ID and position: it is masked from the real ones and its outputs are dropped).
 *   <li>{@link #mask()}: additive, {@code [B, 1, S, P + S]}: row r's query i sees its own cached positions
 *       (columns {@code 0 .. past[r] - 1}) and its new positions up to itself (columns {@code P .. P + i}); a
 *       padding query sees one column ({@code P}), so its softmax has no empty row (no NaN).
 *   <li>{@link #gather}, {@link #scatter}: the 2-D copies between the requests' key/value slots (one buffer a
 *       layer and K or V, {@code [slots, H, C, Dh]}, C positions a slot) and the launch's {@code past_*} rows
 *       ({@code [B, H, P, Dh]}) and {@code present_*} rows ({@code [B, H, P + S, Dh]}: the past, then the S new
 *       positions, as the network concatenates them). One copy per row and buffer, H lines of the row's length.
 * </ul>
 *
 * <pre>{@code
 * BatchLayout l = BatchLayout.of(new int[][] {prompt, {next}}, new int[] {0, 37}, batch);
 * for (BatchLayout.Copy c : l.gather(slots, kv)) device.copy2d(c);   // then launch, then l.scatter(...)
 * }</pre>
 */
final class BatchLayout {

  /**
   * The geometry of the key/value slots: {@code heads} × {@code slotPositions} × {@code headDim} floats a slot,
   * in each layer's K and V buffer.
   */
  record Kv(int heads, int headDim, int slotPositions) {
    Kv {
      if (heads < 1 || headDim < 1 || slotPositions < 1) {
        throw new IllegalArgumentException("key/value geometry must be positive: " + heads + ", " + headDim
            + ", " + slotPositions);
      }
    }

    /** Floats of one slot in one buffer. */
    long slotFloats() {
      return (long) heads * slotPositions * headDim;
    }
  }

  /**
   * A 2-D copy in floats ({@code cudaMemcpy2DAsync} in bytes: every figure times 4): {@code height} lines of
   * {@code width}, line j from {@code srcOffset + j * srcPitch} to {@code dstOffset + j * dstPitch}.
   */
  record Copy(long srcOffset, long srcPitch, long dstOffset, long dstPitch, long width, long height) {
    /** One past the last float read. */
    long srcEnd() {
      return srcOffset + (height - 1) * srcPitch + width;
    }

    /** One past the last float written. */
    long dstEnd() {
      return dstOffset + (height - 1) * dstPitch + width;
    }
  }

  private final int rows;
  private final int step;
  private final int past;
  private final int[] newLen;
  private final int[] pastLen;
  private final int[] ids;
  private final int[] positions;
  private final float[] mask;

  private BatchLayout(int rows, int step, int past, int[] newLen, int[] pastLen, int[] ids, int[] positions,
      float[] mask) {
    this.rows = rows;
    this.step = step;
    this.past = past;
    this.newLen = newLen;
    this.pastLen = pastLen;
    this.ids = ids;
    this.positions = positions;
    this.mask = mask;
  }

  /**
   * The launch of rows {@code tokens} (each at least one token) after {@code pastLen} cached positions each.
   *
   * @throws IllegalArgumentException when it is empty, a row is empty, or it exceeds {@code max} (rows, S or P)
   */
  static BatchLayout of(int[][] tokens, int[] pastLen, TransformerNetwork.Batch max) {
    int n = tokens.length;
    if (n == 0 || pastLen.length != n) {
      throw new IllegalArgumentException("a launch needs one cache length per row, and rows: " + n + " rows, "
          + pastLen.length + " cache lengths");
    }
    int s = 1;
    int p = 0;
    int[] newLen = new int[n];
    for (int r = 0; r < n; r++) {
      if (tokens[r].length == 0 || pastLen[r] < 0) {
        throw new IllegalArgumentException("row " + r + ": " + tokens[r].length + " tokens after " + pastLen[r]);
      }
      newLen[r] = tokens[r].length;
      s = Math.max(s, newLen[r]);
      p = Math.max(p, pastLen[r]);
    }
    if (n > max.maxRows() || s > max.maxStep() || p > max.maxPast()) {
      throw new IllegalArgumentException("a launch of " + n + " rows x " + s + " new positions after " + p
          + " cached exceeds the engine's profile " + max);
    }
    int t = p + s;
    int[] idv = new int[n * s];
    int[] posv = new int[n * s];
    float[] m = new float[Math.multiplyExact(n * s, t)];
    Arrays.fill(m, TransformerNetwork.MASKED);
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < s; i++) {
        int at = r * s + i;
        int base = at * t;
        if (i < newLen[r]) {
          idv[at] = tokens[r][i];
          posv[at] = pastLen[r] + i;
          Arrays.fill(m, base, base + pastLen[r], 0f);   // its own cache
          Arrays.fill(m, base + p, base + p + i + 1, 0f); // its new positions up to itself
        } else {
          idv[at] = tokens[r][0];
          posv[at] = pastLen[r];
          m[base + p] = 0f;
        }
      }
    }
    return new BatchLayout(n, s, p, newLen, pastLen.clone(), idv, posv, m);
  }

  /** Rows (B). */
  int rows() {
    return rows;
  }

  /** New positions a row, padded (S). */
  int step() {
    return step;
  }

  /** Cached positions a row, padded (P). */
  int past() {
    return past;
  }

  int[] ids() {
    return ids;
  }

  int[] positions() {
    return positions;
  }

  float[] mask() {
    return mask;
  }

  /**
   * The copies from each row's slot (row r's request holds slot {@code slots[r]}) into the launch's {@code past_*}
   * buffer of the same layer and K or V: its {@code pastLen[r]} cached positions, for every head. Rows with
   * nothing cached need none.
   */
  List<Copy> gather(int[] slots, Kv kv) {
    List<Copy> out = new ArrayList<>(rows);
    long slotPitch = (long) kv.slotPositions() * kv.headDim();
    for (int r = 0; r < rows; r++) {
      if (pastLen[r] > 0) {
        out.add(new Copy(slots[r] * kv.slotFloats(), slotPitch, (long) r * kv.heads() * past * kv.headDim(),
            (long) past * kv.headDim(), (long) pastLen[r] * kv.headDim(), kv.heads()));
      }
    }
    return out;
  }

  /**
   * The copies of each row's new positions from the launch's {@code present_*} buffer (after the past P
   * positions) into its slot, after its {@code pastLen[r]} cached ones.
   *
   * @throws IllegalArgumentException when a row would overrun its slot
   */
  List<Copy> scatter(int[] slots, Kv kv) {
    List<Copy> out = new ArrayList<>(rows);
    long slotPitch = (long) kv.slotPositions() * kv.headDim();
    int t = past + step;
    for (int r = 0; r < rows; r++) {
      if (pastLen[r] + newLen[r] > kv.slotPositions()) {
        throw new IllegalArgumentException("row " + r + " would hold " + (pastLen[r] + newLen[r])
            + " positions in a slot of " + kv.slotPositions());
      }
      out.add(new Copy(((long) r * kv.heads() * t + past) * kv.headDim(), (long) t * kv.headDim(),
          slots[r] * kv.slotFloats() + (long) pastLen[r] * kv.headDim(), slotPitch,
          (long) newLen[r] * kv.headDim(), kv.heads()));
    }
    return out;
  }

  /** Where row r's last real position's logits start in the {@code logits} output ({@code [B, S, V]}), in floats. */
  long lastLogits(int r, int vocab) {
    return ((long) r * step + newLen[r] - 1) * vocab;
  }

  /**
   * Each row's cost weight for sharing the launch's measured time ({@link
   * io.github.trtrace.core.SharedLaunch.ShareMethod#WEIGHTED}): the roofline's estimate of the row's own time on
   * {@code peak}, bytes at peak bandwidth plus FLOPs at peak rate. The weights are read once for the whole launch
   * and shared by the rows in proportion to their new tokens; everything else (its token and position rows, its
   * key/value traffic, its attention and matrix FLOPs, its logits) is the row's own at its own lengths, not the
   * padded ones. So a decode row over a long context weighs more than one over a short context, and a prefill
   * chunk weighs by its FLOPs.
   */
  double[] weights(Roofline roofline, Roofline.Peak peak) {
    Roofline.Work shared = roofline.launch(0, 0); // the weights alone
    int tokens = 0;
    for (int n : newLen) {
      tokens += n;
    }
    double[] w = new double[rows];
    for (int r = 0; r < rows; r++) {
      Roofline.Work all = roofline.launch(newLen[r], pastLen[r]);
      double bytes = all.bytes() - shared.bytes() + shared.bytes() * newLen[r] / tokens;
      double flops = all.flops() - shared.flops();
      w[r] = bytes / peak.bytesPerSecond() + flops / peak.flopsPerSecond();
    }
    return w;
  }
}
