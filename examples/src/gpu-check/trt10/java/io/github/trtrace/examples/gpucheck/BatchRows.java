package io.github.trtrace.examples.gpucheck;

import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.cuda.DeviceMemory;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;

/**
 * Device buffers for one batched launch of {@link TransformerNetwork#defineBatched}: B rows (requests), each
 * with its own new tokens (a prompt, or one decode token), positions and cache length, padded to the launch's
 * S new positions and P cached positions, the padding masked ({@code [B, 1, S, P + S]}: row r's query i sees
 * its own cached positions {@code 0 .. past[r]-1} and its new positions up to i). The cache rows are the
 * launch's {@code past_*} buffers ({@code [B, H, P, Dh]}, contiguous per row); a served load does not keep
 * real caches between launches (the check measures time and attribution, and compares rows with singles on
 * explicit caches), so their content is whatever was last written there. One thread at a time.
 */
final class BatchRows implements AutoCloseable {
  private final TransformerNetwork.Config c;
  private final TransformerNetwork.Batch max;
  private final CudaStream copies = CudaStream.createNonBlocking();
  private final DeviceMemory ids;
  private final DeviceMemory positions;
  private final DeviceMemory mask;
  private final DeviceMemory logits;
  private final DeviceMemory[] past;
  private final DeviceMemory[] present;
  private final IntPointer hostIds;
  private final IntPointer hostPositions;
  private final FloatPointer hostMask;
  private int rows;
  private int step;
  private int pastN;
  /** Rows to bind beyond what the profile allows (a run-time error made on purpose); 0: none. */
  private int badRows;

  BatchRows(TransformerNetwork.Config c, TransformerNetwork.Batch max) {
    this.c = c;
    this.max = max;
    long tokens = (long) max.maxRows() * max.maxStep();
    long wide = (long) max.maxPast() + max.maxStep();
    ids = zeroed(4 * tokens);
    positions = zeroed(4 * tokens);
    mask = zeroed(4 * tokens * wide);
    logits = zeroed(4 * tokens * c.vocab());
    past = new DeviceMemory[2 * c.blocks()];
    present = new DeviceMemory[2 * c.blocks()];
    long perRow = (long) c.heads() * c.headDim() * 4;
    for (int i = 0; i < past.length; i++) {
      past[i] = zeroed(perRow * max.maxRows() * max.maxPast());
      present[i] = zeroed(perRow * max.maxRows() * wide);
    }
    hostIds = new IntPointer(tokens);
    hostPositions = new IntPointer(tokens);
    hostMask = new FloatPointer(tokens * wide);
  }

  private static DeviceMemory zeroed(long bytes) {
    DeviceMemory m = DeviceMemory.allocate(bytes);
    int rc = cudart.cudaMemset(m.pointer(), 0, bytes);
    if (rc != 0) {
      throw new IllegalStateException("cudaMemset failed: cudaError " + rc);
    }
    return m;
  }

  /**
   * Stages a launch: row r brings {@code newLen[r]} tokens ({@code tokens[r]}) after {@code pastLen[r]}
   * cached positions. S and P are the largest of them.
   */
  void stage(int n, int[] newLen, int[] pastLen, int[][] tokens) {
    int s = 1;
    int p = 0;
    for (int r = 0; r < n; r++) {
      s = Math.max(s, newLen[r]);
      p = Math.max(p, pastLen[r]);
    }
    if (n > max.maxRows() || s > max.maxStep() || p > max.maxPast()) {
      throw new IllegalArgumentException("launch " + n + " x " + s + " after " + p + " exceeds " + max);
    }
    int t = p + s;
    int[] idv = new int[n * s];
    int[] posv = new int[n * s];
    float[] m = new float[n * s * t];
    Arrays.fill(m, TransformerNetwork.MASKED);
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < s; i++) {
        int at = r * s + i;
        boolean real = i < newLen[r];
        idv[at] = real ? tokens[r][i] : 0;
        posv[at] = real ? pastLen[r] + i : pastLen[r];
        int base = at * t;
        if (real) {
          Arrays.fill(m, base, base + pastLen[r], 0f);        // its own cache
          Arrays.fill(m, base + p, base + p + i + 1, 0f);     // its new positions up to itself
        } else {
          m[base + p] = 0f;                                   // padding: one visible position, no NaN
        }
      }
    }
    hostIds.position(0).put(idv, 0, idv.length);
    hostPositions.position(0).put(posv, 0, posv.length);
    hostMask.position(0).put(m, 0, m.length);
    ids.copyFromAsync(hostIds, 0, 4L * idv.length, copies);
    positions.copyFromAsync(hostPositions, 0, 4L * posv.length, copies);
    mask.copyFromAsync(hostMask, 0, 4L * m.length, copies);
    copies.synchronize();
    rows = n;
    step = s;
    pastN = p;
    badRows = 0;
  }

  /** Decode rows only: {@code n} rows of one token after {@code past} cached positions each. */
  void stageDecode(int n, int past, SplittableRandom rnd) {
    int[] newLen = new int[n];
    int[] pastLen = new int[n];
    int[][] tok = new int[n][1];
    Arrays.fill(newLen, 1);
    Arrays.fill(pastLen, past);
    for (int r = 0; r < n; r++) {
      tok[r][0] = 1 + rnd.nextInt(c.vocab() - 1);
    }
    stage(n, newLen, pastLen, tok);
  }

  /** The next bind asks for {@code n} rows, more than the profile allows: TensorRT refuses the shape. */
  void stageOutOfProfile(int n) {
    badRows = n;
  }

  /** Writes {@code values} ({@code [rows, H, past, Dh]}) into cache buffer {@code i} (2 * block + 0 key | 1 value). */
  void fillPast(int i, float[] values) {
    try (FloatPointer h = new FloatPointer(values.length)) {
      h.put(values);
      past[i].copyFrom(h, 0, 4L * values.length);
    }
  }

  /** Binds the staged launch on {@code ctx}; cache row offsets start at {@code firstRow} of the past buffers. */
  void bind(IExecutionContext ctx, int firstRow, int bytesPerPastRow) {
    if (badRows > 0) {
      shape(ctx, "input_ids", badRows, 1);   // refused: more rows than the profile's maximum
      return;
    }
    int n = rows;
    int s = step;
    int t = pastN + s;
    shape(ctx, "input_ids", n, s);
    shape(ctx, "position_ids", n, s);
    shape(ctx, "attn_mask", n, 1, s, t);
    ctx.setTensorAddress("input_ids", ids.pointer());
    ctx.setTensorAddress("position_ids", positions.pointer());
    ctx.setTensorAddress("attn_mask", mask.pointer());
    ctx.setTensorAddress("logits", logits.pointer());
    for (int b = 0; b < c.blocks(); b++) {
      for (int kv = 0; kv < 2; kv++) {
        String which = kv == 0 ? "key_" : "value_";
        shape(ctx, "past_" + which + b, n, c.heads(), pastN, c.headDim());
        ctx.setTensorAddress("past_" + which + b,
            new BytePointer(past[2 * b + kv].pointer()).position((long) firstRow * bytesPerPastRow));
        ctx.setTensorAddress("present_" + which + b, present[2 * b + kv].pointer());
      }
    }
  }

  void bind(IExecutionContext ctx) {
    bind(ctx, 0, 0);
  }

  private static void shape(IExecutionContext ctx, String input, long... dims) {
    if (!ctx.setInputShape(input, TransformerNetwork.dims(dims))) {
      throw new IllegalArgumentException("TensorRT refused shape " + Arrays.toString(dims) + " for " + input);
    }
  }

  /** Logits of row {@code r}'s position {@code i} of the last launch (after it finished). */
  float[] logits(int r, int i) {
    float[] out = new float[c.vocab()];
    try (FloatPointer h = new FloatPointer(c.vocab())) {
      logits.copyTo(h, 4L * ((long) r * step + i) * c.vocab(), 4L * c.vocab());
      h.get(out);
    }
    return out;
  }

  int rows() {
    return rows;
  }

  int step() {
    return step;
  }

  int pastLen() {
    return pastN;
  }

  @Override
  public void close() {
    for (int i = 0; i < past.length; i++) {
      past[i].close();
      present[i].close();
    }
    logits.close();
    mask.close();
    positions.close();
    ids.close();
    copies.close();
    hostIds.close();
    hostPositions.close();
    hostMask.close();
  }
}
