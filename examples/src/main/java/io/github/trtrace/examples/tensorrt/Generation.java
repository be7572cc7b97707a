package io.github.trtrace.examples.tensorrt;

import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.cuda.DeviceMemory;
import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;

/**
 * One request's device state for {@link TransformerNetwork}: input buffers, the logits buffer and a
 * KV cache in two buffer sets used in turn (step n writes its {@code present_*} into the set that step
 * n + 1 reads as {@code past_*}, so the cache never moves). Host-device copies run on this
 * generation's own non-blocking stream. One thread at a time.
 *
 * <pre>{@code
 * try (Generation g = new Generation(config, 2048)) {
 *   g.prefill(promptIds);                 // stage the inputs
 *   request.launch(g::bind);              // one launch on the traced engine
 *   int next = g.argmaxLastRow();         // read back the last position's logits
 *   g.advance(); g.decode(next); ...
 * }
 * }</pre>
 */
public final class Generation implements AutoCloseable {
  private final TransformerNetwork.Config c;
  private final int maxTokens;
  private final CudaStream copies = CudaStream.createNonBlocking();
  private final DeviceMemory ids;
  private final DeviceMemory positions;
  private final DeviceMemory mask;
  private final DeviceMemory logits;
  private final DeviceMemory[][] kv; // [set][2 * block + (0 key | 1 value)]
  private final IntPointer hostIds;
  private final IntPointer hostPositions;
  private final FloatPointer hostMask;
  private final FloatPointer hostLogits;
  private int past;
  private int step;       // tokens in the staged step
  private int set;        // which KV set is the past
  private boolean badShape;

  /** Device buffers (and their host staging buffers) for requests of up to {@code maxTokens} positions. */
  public Generation(TransformerNetwork.Config c, int maxTokens) {
    this.c = c;
    this.maxTokens = maxTokens;
    ids = DeviceMemory.allocate(4L * maxTokens);
    positions = DeviceMemory.allocate(4L * maxTokens);
    mask = DeviceMemory.allocate(4L * maxTokens * maxTokens);
    logits = DeviceMemory.allocate(4L * maxTokens * c.vocab());
    long kvBytes = 4L * c.heads() * maxTokens * c.headDim();
    kv = new DeviceMemory[2][2 * c.blocks()];
    for (DeviceMemory[] s : kv) {
      for (int i = 0; i < s.length; i++) {
        s[i] = DeviceMemory.allocate(kvBytes);
      }
    }
    hostIds = new IntPointer(maxTokens);
    hostPositions = new IntPointer(maxTokens);
    hostMask = new FloatPointer((long) maxTokens * maxTokens);
    hostLogits = new FloatPointer(c.vocab());
  }

  /** Stages a prefill of {@code prompt} from an empty cache. */
  public void prefill(int[] prompt) {
    past = 0;
    set = 0;
    badShape = false;
    stage(prompt);
  }

  /** Stages one decode step of {@code token} after what the cache holds. */
  public void decode(int token) {
    stage(new int[] {token});
  }

  /**
   * Stages a step whose {@code input_ids} has {@code tokens} positions, more than the optimisation
   * profile allows when {@code tokens > maxSeq}: TensorRT refuses the shape (a real run-time error).
   */
  public void outOfProfile(int tokens) {
    past = 0;
    set = 0;
    step = tokens;
    badShape = true;
  }

  private void stage(int[] tokens) {
    int s = tokens.length;
    int t = past + s;
    if (t > maxTokens) {
      throw new IllegalStateException("generation is full: " + t + " > " + maxTokens);
    }
    step = s;
    badShape = false;
    int[] pos = new int[s];
    float[] m = new float[s * t];
    for (int i = 0; i < s; i++) {
      pos[i] = past + i;
      // causal: query i (position past + i) sees cache and prompt positions up to its own
      java.util.Arrays.fill(m, i * t + past + i + 1, (i + 1) * t, TransformerNetwork.MASKED);
    }
    hostIds.position(0).put(tokens, 0, s);
    hostPositions.position(0).put(pos, 0, s);
    hostMask.position(0).put(m, 0, m.length);
    ids.copyFromAsync(hostIds, 0, 4L * s, copies);
    positions.copyFromAsync(hostPositions, 0, 4L * s, copies);
    mask.copyFromAsync(hostMask, 0, 4L * s * t, copies);
    copies.synchronize();
  }

  /** Binds the staged step on {@code ctx}: shapes and addresses of every input and output. */
  public void bind(IExecutionContext ctx, CudaStream unused) {
    if (badShape) {
      shape(ctx, "input_ids", 1, step); // refused by TensorRT: outside the profile
      return;
    }
    int s = step;
    int t = past + s;
    shape(ctx, "input_ids", 1, s);
    shape(ctx, "position_ids", 1, s);
    shape(ctx, "attn_mask", 1, 1, s, t);
    ctx.setTensorAddress("input_ids", ids.pointer());
    ctx.setTensorAddress("position_ids", positions.pointer());
    ctx.setTensorAddress("attn_mask", mask.pointer());
    ctx.setTensorAddress("logits", logits.pointer());
    for (int b = 0; b < c.blocks(); b++) {
      shape(ctx, "past_key_" + b, 1, c.heads(), past, c.headDim());
      shape(ctx, "past_value_" + b, 1, c.heads(), past, c.headDim());
      ctx.setTensorAddress("past_key_" + b, kv[set][2 * b].pointer());
      ctx.setTensorAddress("past_value_" + b, kv[set][2 * b + 1].pointer());
      ctx.setTensorAddress("present_key_" + b, kv[1 - set][2 * b].pointer());
      ctx.setTensorAddress("present_value_" + b, kv[1 - set][2 * b + 1].pointer());
    }
  }

  /**
   * Sets an input shape; a refused one (TensorRT reports why to the context's error recorder) stops
   * the launch: the context would otherwise run with the shapes and addresses of its last request.
   */
  private static void shape(IExecutionContext ctx, String input, long... dims) {
    if (!ctx.setInputShape(input, TransformerNetwork.dims(dims))) {
      throw new IllegalArgumentException("TensorRT refused shape " + Arrays.toString(dims) + " for " + input);
    }
  }

  /** After a launch: the present cache becomes the past. */
  public void advance() {
    past += step;
    set = 1 - set;
  }

  /** The staged step's last-position logits (after the launch finished). */
  public float[] lastLogits() {
    long row = (long) (step - 1) * c.vocab();
    logits.copyToAsync(hostLogits, 4L * row, 4L * c.vocab(), copies);
    copies.synchronize();
    float[] out = new float[c.vocab()];
    hostLogits.get(out);
    return out;
  }

  /** Index of the largest value. */
  public static int argmax(float[] v) {
    int best = 0;
    for (int i = 1; i < v.length; i++) {
      if (v[i] > v[best]) {
        best = i;
      }
    }
    return best;
  }

  /** Largest absolute element-wise difference. */
  public static double maxAbsDiff(float[] a, float[] b) {
    double m = 0;
    for (int i = 0; i < a.length; i++) {
      m = Math.max(m, Math.abs(a[i] - b[i]));
    }
    return m;
  }

  /** Largest absolute value. */
  public static double maxAbs(float[] a) {
    return Arrays.stream(toDouble(a)).map(Math::abs).max().orElse(0);
  }

  private static double[] toDouble(float[] a) {
    double[] d = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      d[i] = a[i];
    }
    return d;
  }

  /** Positions in the cache. */
  public int past() {
    return past;
  }

  @Override
  public void close() {
    for (DeviceMemory[] s : kv) {
      for (DeviceMemory m : s) {
        m.close();
      }
    }
    logits.close();
    mask.close();
    positions.close();
    ids.close();
    copies.close();
    hostIds.close();
    hostPositions.close();
    hostMask.close();
    hostLogits.close();
  }
}
