package io.github.trtrace.examples.demo;

import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * How the TensorRT backend lays out one step of continuous batching: its chunks in passes of one shape each
 * ({@link BatchLayout}), enqueued one after another between one pair of CUDA events (one launch, {@link
 * io.github.trtrace.tensorrt.engine.TracedEngine#launch(io.github.trtrace.core.SharedLaunch, List)}).
 *
 * <ul>
 *   <li>Every one-token chunk (the decode rows, and a prompt's last chunk when one token is left) goes to one pass of
 *       S = 1 over the slots from the lowest to the highest of them; a slot between them without such a chunk is an
 *       idle row, which costs about one decode row.
 *   <li>The longer chunks (prefill) go to one pass per run of adjacent slots, S the run's longest chunk. An idle row
 *       in such a pass would cost a real row's work at that S (the network masks, it does not skip), so chunks in
 *       slots 3 and 7 are two passes rather than one of five rows.
 * </ul>
 *
 * <p>Before, a step was one pass, every row padded to its longest chunk: a step that took a 256-token prefill chunk
 * among 15 decode rows ran 16 × 256 positions, each query over the whole slot (run 30 on the H200: such steps took
 * 50.7 ms at p50 against 5.5 ms for 16 decode rows alone).
 *
 * <pre>{@code
 * for (StepPlan.Pass p : StepPlan.of(tokens, pastLen, slots, extents, context)) {
 *   stage(p.layout());            // p.chunks()[j] is the step's chunk of the layout's chunk j
 * }
 * }</pre>
 */
final class StepPlan {

  /** One pass: its layout, and for each of its chunks the index of that chunk in the step. */
  record Pass(BatchLayout layout, int[] chunks) {}

  private StepPlan() {}

  /**
   * The passes of the step whose chunk m brings {@code tokens[m]} after {@code pastLen[m]} cached positions in slot
   * {@code slots[m]}: the one-token pass first, then the prefill passes by slot.
   *
   * @throws IllegalArgumentException when the step is empty, two chunks share a slot, or a pass is refused by {@link
   *     BatchLayout#of}
   */
  static List<Pass> of(int[][] tokens, int[] pastLen, int[] slots, TransformerNetwork.Slots max, int context) {
    int n = tokens.length;
    if (n == 0 || pastLen.length != n || slots.length != n) {
      throw new IllegalArgumentException("a step needs chunks, and one cache length and one slot a chunk: " + n
          + " chunks, " + pastLen.length + " cache lengths, " + slots.length + " slots");
    }
    Integer[] bySlot = new Integer[n];
    for (int m = 0; m < n; m++) {
      bySlot[m] = m;
    }
    Arrays.sort(bySlot, Comparator.comparingInt(m -> slots[m]));
    List<Integer> single = new ArrayList<>();
    List<List<Integer>> runs = new ArrayList<>();
    int lastLong = Integer.MIN_VALUE;
    for (int k = 0; k < n; k++) {
      int m = bySlot[k];
      if (k > 0 && slots[m] == slots[bySlot[k - 1]]) {
        throw new IllegalArgumentException("two chunks in slot " + slots[m]);
      }
      if (tokens[m].length == 1) {
        single.add(m);
      } else {
        if (runs.isEmpty() || slots[m] != lastLong + 1) {
          runs.add(new ArrayList<>());
        }
        runs.get(runs.size() - 1).add(m);
        lastLong = slots[m];
      }
    }
    List<Pass> passes = new ArrayList<>(1 + runs.size());
    if (!single.isEmpty()) {
      passes.add(pass(single, tokens, pastLen, slots, max, context));
    }
    for (List<Integer> run : runs) {
      passes.add(pass(run, tokens, pastLen, slots, max, context));
    }
    return passes;
  }

  private static Pass pass(List<Integer> members, int[][] tokens, int[] pastLen, int[] slots,
      TransformerNetwork.Slots max, int context) {
    int k = members.size();
    int[][] t = new int[k][];
    int[] p = new int[k];
    int[] s = new int[k];
    int[] chunks = new int[k];
    for (int j = 0; j < k; j++) {
      int m = members.get(j);
      t[j] = tokens[m];
      p[j] = pastLen[m];
      s[j] = slots[m];
      chunks[j] = m;
    }
    return new Pass(BatchLayout.of(t, p, s, max, context), chunks);
  }
}
