package io.github.trtrace.examples.demo;

import io.github.trtrace.examples.tensorrt.Roofline;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The host side of one pass of {@link TransformerNetwork#defineSlotted} (one enqueue; a step is one pass or several,
 * {@link StepPlan}), as plain arithmetic (no CUDA, so it is tested without a GPU): chunk m (a prefill chunk or one
 * decode token) brings {@code tokens[m]} after the {@code past[m]} positions its request has cached in key/value slot
 * {@code slots[m]}. A pass's row r <em>is</em> slot {@link #base()} + r, the lowest slot of the pass: the cache is
 * bound where it lies from that slot on, so the pass has as many rows as its highest slot + 1 − base, and a slot in
 * between with no chunk here is a masked row whose outputs are dropped. S is the longest chunk, every row padded to
 * it.
 *
 * <ul>
 *   <li>{@link #ids()}, {@link #positions()}: {@code [B, S]}; a padding position repeats the row's token 0 at its
 *       cache length (a row with no chunk: token 0 at position 0), valid and masked from the real ones.
 *   <li>{@link #cacheMask()}: additive, {@code [B, 1, 1, C]}: 0 at the row's cached positions, masked elsewhere
 *       (every position of a row with no chunk).
 *   <li>{@link #stepMask()}: additive, {@code [1, 1, S, S]}: new position i sees new positions up to itself. A
 *       padding query sees real and padding positions; its output is dropped, and it never sees an empty row.
 *   <li>{@link #appends}: after the step, each chunk's new keys and values from the network's {@code new_*} outputs
 *       ({@code [B, H, S, Dh]} each, bound one after another) to its slot after its cached positions: one 3-D copy a
 *       chunk for every block's K and V at once.
 * </ul>
 *
 * <pre>{@code
 * BatchLayout l = BatchLayout.of(new int[][] {prompt, {next}}, new int[] {0, 37}, new int[] {3, 0}, slots);
 * // stage l.ids(), l.positions(), l.cacheMask(), l.stepMask(); enqueue l.rows() x l.step(), the cache bound from
 * // slot l.base(); then
 * for (BatchLayout.Append a : l.appends(kv)) device.copy3d(a);
 * }</pre>
 */
final class BatchLayout {

  /**
   * The geometry of the key/value cache: {@code 2 × blocks} buffers (block i's K at {@code 2i}, V at {@code 2i + 1}),
   * each {@code [slots, heads, slotPositions, headDim]}, laid one after another.
   */
  record Kv(int blocks, int heads, int headDim, int slotPositions, int slots) {
    Kv {
      if (blocks < 1 || heads < 1 || headDim < 1 || slotPositions < 1 || slots < 1) {
        throw new IllegalArgumentException("key/value geometry must be positive: " + blocks + ", " + heads + ", "
            + headDim + ", " + slotPositions + ", " + slots);
      }
    }

    /** Elements of one buffer (one block's K or V for every slot). */
    long bufferElements() {
      return slots * slotElements();
    }

    /** Elements of one slot in one buffer ({@code [heads, slotPositions, headDim]}): where slot s starts is s times it. */
    long slotElements() {
      return (long) heads * slotPositions * headDim;
    }

    /** Buffers: every block's K and V. */
    int buffers() {
      return 2 * blocks;
    }
  }

  /**
   * A 3-D copy in elements ({@code cudaMemcpy3DAsync} in bytes: every figure times the element size): {@code depth}
   * slices of {@code height} lines of {@code width}; line j of slice z from {@code srcOffset + z * srcSlice + j *
   * srcPitch} to {@code dstOffset + z * dstSlice + j * dstPitch}. Each slice pitch is its line pitch times a whole
   * number of lines, as {@code cudaMemcpy3DAsync} takes them.
   */
  record Append(long srcOffset, long srcPitch, long srcSlice, long dstOffset, long dstPitch, long dstSlice,
      long width, long height, long depth) {
    /** One past the last element read. */
    long srcEnd() {
      return srcOffset + (depth - 1) * srcSlice + (height - 1) * srcPitch + width;
    }

    /** One past the last element written. */
    long dstEnd() {
      return dstOffset + (depth - 1) * dstSlice + (height - 1) * dstPitch + width;
    }
  }

  private final int base;
  private final int rows;
  private final int step;
  private final int context;
  private final int[] slots;
  private final int[] newLen;
  private final int[] pastLen;
  private final int[] ids;
  private final int[] positions;
  private final float[] cacheMask;
  private final float[] stepMask;

  private BatchLayout(int base, int rows, int step, int context, int[] slots, int[] newLen, int[] pastLen, int[] ids,
      int[] positions, float[] cacheMask, float[] stepMask) {
    this.base = base;
    this.rows = rows;
    this.step = step;
    this.context = context;
    this.slots = slots;
    this.newLen = newLen;
    this.pastLen = pastLen;
    this.ids = ids;
    this.positions = positions;
    this.cacheMask = cacheMask;
    this.stepMask = stepMask;
  }

  /**
   * The pass of chunks {@code tokens} (each at least one token) after {@code pastLen} cached positions each, in
   * slots {@code slots} (distinct) of {@code context} positions.
   *
   * @throws IllegalArgumentException when it is empty, a chunk is empty, two chunks share a slot, a chunk would
   *     overrun its slot, or the pass exceeds {@code max} (rows or S)
   */
  static BatchLayout of(int[][] tokens, int[] pastLen, int[] slots, TransformerNetwork.Slots max, int context) {
    int n = tokens.length;
    if (n == 0 || pastLen.length != n || slots.length != n) {
      throw new IllegalArgumentException("a pass needs chunks, and one cache length and one slot a chunk: " + n
          + " chunks, " + pastLen.length + " cache lengths, " + slots.length + " slots");
    }
    int s = 1;
    int b = 0;
    int lo = Integer.MAX_VALUE;
    int[] newLen = new int[n];
    boolean[] seen = new boolean[max.maxRows()];
    for (int m = 0; m < n; m++) {
      if (tokens[m].length == 0 || pastLen[m] < 0) {
        throw new IllegalArgumentException("chunk " + m + ": " + tokens[m].length + " tokens after " + pastLen[m]);
      }
      if (slots[m] < 0 || slots[m] >= max.maxRows()) {
        throw new IllegalArgumentException("chunk " + m + " is in slot " + slots[m] + "; the engine's profile has "
            + max.maxRows() + " rows (slots 0 to " + (max.maxRows() - 1) + ")");
      }
      if (seen[slots[m]]) {
        throw new IllegalArgumentException("two chunks in slot " + slots[m]);
      }
      seen[slots[m]] = true;
      if ((long) pastLen[m] + tokens[m].length > context) {
        throw new IllegalArgumentException("chunk " + m + " would hold " + (pastLen[m] + tokens[m].length)
            + " positions in a slot of " + context);
      }
      newLen[m] = tokens[m].length;
      s = Math.max(s, newLen[m]);
      b = Math.max(b, slots[m] + 1);
      lo = Math.min(lo, slots[m]);
    }
    b -= lo;
    if (s > max.maxStep()) {
      throw new IllegalArgumentException("a pass of " + s + " new positions a row exceeds the engine's profile "
          + max);
    }
    int[] idv = new int[b * s];
    int[] posv = new int[b * s];
    float[] cache = new float[Math.multiplyExact(b, context)];
    Arrays.fill(cache, TransformerNetwork.MASKED);
    for (int m = 0; m < n; m++) {
      int r = slots[m] - lo;
      for (int i = 0; i < s; i++) {
        idv[r * s + i] = i < newLen[m] ? tokens[m][i] : tokens[m][0];
        posv[r * s + i] = i < newLen[m] ? pastLen[m] + i : pastLen[m];
      }
      Arrays.fill(cache, r * context, r * context + pastLen[m], 0f);
    }
    float[] causal = new float[s * s];
    for (int i = 0; i < s; i++) {
      Arrays.fill(causal, i * s, i * s + i + 1, 0f);
      Arrays.fill(causal, i * s + i + 1, (i + 1) * s, TransformerNetwork.MASKED);
    }
    return new BatchLayout(lo, b, s, context, slots.clone(), newLen, pastLen.clone(), idv, posv, cache, causal);
  }

  /** Rows (B): the highest slot of the pass + 1 − {@link #base()}. */
  int rows() {
    return rows;
  }

  /** The pass's lowest slot: its row 0, where its cache binding starts. */
  int base() {
    return base;
  }

  /** Chunks (members) of the pass, at most its rows. */
  int chunks() {
    return slots.length;
  }

  /** New positions a row, padded (S). */
  int step() {
    return step;
  }

  int[] ids() {
    return ids;
  }

  int[] positions() {
    return positions;
  }

  float[] cacheMask() {
    return cacheMask;
  }

  float[] stepMask() {
    return stepMask;
  }

  /**
   * The copies of each chunk's new positions from the {@code new_*} outputs (buffer z of {@code [B, H, S, Dh]} at
   * {@code z × B × H × S × Dh}) into its slot of the cache (buffer z at {@code z × kv.bufferElements()}), after its
   * cached positions: every head (lines) of every block's K and V (slices) in one copy.
   *
   * @throws IllegalArgumentException when the cache geometry is not the one the pass was laid out for
   */
  List<Append> appends(Kv kv) {
    if (kv.slotPositions() != context || kv.slots() < base + rows) {
      throw new IllegalArgumentException("a pass of " + rows + " rows from slot " + base + " in slots of " + context
          + " positions does not fit the cache " + kv);
    }
    List<Append> out = new ArrayList<>(slots.length);
    long line = kv.headDim();
    for (int m = 0; m < slots.length; m++) {
      long srcRow = (long) (slots[m] - base) * kv.heads() * step * line;
      long dstRow = slots[m] * kv.slotElements() + pastLen[m] * line;
      out.add(new Append(srcRow, step * line, newElements(kv), dstRow, context * line, kv.bufferElements(),
          newLen[m] * line, kv.heads(), kv.buffers()));
    }
    return out;
  }

  /**
   * Elements of one {@code new_*} output of this pass ({@code [B, H, S, Dh]}): where each buffer's output starts
   * after the one before, as the pass binds them and {@link #appends} reads them.
   */
  long newElements(Kv kv) {
    return (long) rows * kv.heads() * step * kv.headDim();
  }

  /** Where chunk m's last real position's logits start in the {@code logits} output ({@code [B, S, V]}), in floats. */
  long lastLogits(int m, int vocab) {
    return ((long) (slots[m] - base) * step + newLen[m] - 1) * vocab;
  }

  /**
   * Each chunk's cost weight for sharing the launch's measured time ({@link
   * io.github.trtrace.core.SharedLaunch.ShareMethod#WEIGHTED}): the roofline's estimate of the chunk's own time on
   * {@code peak}, bytes at peak bandwidth plus FLOPs at peak rate. The weights are read once for the whole pass
   * and shared by its chunks in proportion to their new tokens; everything else (its token and position rows, its
   * key/value traffic, its attention and matrix FLOPs, its logits) is the chunk's own at its own lengths, not the
   * padded ones. So a decode row over a long context weighs more than one over a short context, and a prefill
   * chunk weighs by its FLOPs.
   */
  double[] weights(Roofline roofline, Roofline.Peak peak) {
    Roofline.Work shared = roofline.launch(0, 0); // the weights alone
    int tokens = 0;
    for (int n : newLen) {
      tokens += n;
    }
    double[] w = new double[newLen.length];
    for (int m = 0; m < newLen.length; m++) {
      Roofline.Work all = roofline.launch(newLen[m], pastLen[m]);
      double bytes = all.bytes() - shared.bytes() + shared.bytes() * newLen[m] / tokens;
      double flops = all.flops() - shared.flops();
      w[m] = bytes / peak.bytesPerSecond() + flops / peak.flopsPerSecond();
    }
    return w;
  }
}
