// Over 400 lines: the device buffers of one step (allocation, staging, gather/scatter, binding, logits) with every CUDA and TensorRT return checked, and the javadoc on what the copies cost.
package io.github.trtrace.examples.demo;

import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.examples.tensorrt.Roofline;
import io.github.trtrace.examples.tensorrt.TransformerNetwork;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import io.github.trtrace.tensorrt.cuda.DeviceMemory;
import io.github.trtrace.tensorrt.engine.ContextPoolTimeoutException;
import io.github.trtrace.tensorrt.engine.TracedEngine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;

/**
 * The TensorRT backend's {@link StepModel}: each step is one launch of the engine built by {@link
 * TransformerNetwork#defineBatched}, its rows the step's chunks (prefill chunks and decode rows mixed, as the
 * scheduler decided), padded to the launch's S and P and masked ({@link BatchLayout}).
 *
 * <p><b>Key/value slots.</b> Each running request holds a slot ({@link SlotPool}) in device buffers kept between
 * steps, one a layer and K or V, {@code [slots, H, C, Dh]} FP32, C = the model's context: its cached positions stay
 * on the device. Before a launch each row's cached positions are gathered from its slot into the launch's {@code
 * past_*} rows, after it the row's new positions are scattered from {@code present_*} back into its slot: one
 * {@code cudaMemcpy2DAsync} (H lines) per row, layer and K or V each way, on this model's copy stream, so a step of B
 * rows makes {@code 4 × blocks × B} copy calls, and moves each row's whole cache twice more through device memory
 * (read from the slot, written to {@code past_*}) besides what the network itself reads and writes: with the demo's
 * FP32 cache that is 2 × 128 KB a cached position on the large model, about as much again as the network's own cache
 * traffic. A paged cache read in place by an attention kernel (as TensorRT-LLM's) needs neither; this network takes
 * its cache as plain tensors. The copies are outside the CUDA events that time the launch ({@code gpu_ms} is the
 * engine's work), inside the step's host time.
 *
 * <p><b>Time and shares.</b> The launch runs through {@link TracedEngine#launch(SharedLaunch, TracedEngine.Binder)}:
 * timed once by CUDA events, TensorRT's errors to the launch and so to every member. Its time is split {@linkplain
 * SharedLaunch.ShareMethod#WEIGHTED by weight}, each row weighing the {@link Roofline} estimate of its own work
 * ({@link BatchLayout#weights}): the weights read once and shared by new tokens, the row's own cache traffic and
 * FLOPs at its own lengths. A split by tokens would give a decode row over 3,000 cached positions the share of one
 * over 30, though it reads a hundred times the cache; a split by rows would give a 256-token prefill chunk the share
 * of one decode row. The padding is not weighed: a row pays for its own lengths, and the padding others' lengths
 * caused is spread over everyone in proportion. On a GPU whose data-sheet peaks the demo does not know, the H200's set
 * the scale (only their ratio, the ridge point, matters to the split).
 *
 * <p>Every CUDA call's return code is checked ({@code cudaError} and the call named in the exception); TensorRT's
 * refusals (a shape or address not set, an enqueue refused) throw with the tensor named. One thread at a time.
 *
 * <pre>{@code
 * TensorRtSteps steps = new TensorRtSteps("demo-llm-trt", tracedEngine, config, extents, 16, roofline, peak, outputTokens);
 * BatchEngine e = BatchEngine.start(steps, BatchEngine.Settings.continuous(), 0, tracer);
 * }</pre>
 */
final class TensorRtSteps implements StepModel, AutoCloseable {

  /** One launch of the staged step: through the traced engine (shared, or one request's) or a raw context. */
  @FunctionalInterface
  interface Launcher {
    /** False when TensorRT refused the launch or reported an error. */
    boolean launch(TracedEngine.Binder binder) throws Exception;
  }

  private final String model;
  private final TracedEngine engine;
  private final TransformerNetwork.Config c;
  private final TransformerNetwork.Batch extents;
  private final BatchLayout.Kv kv;
  private final Roofline roofline;
  private final Roofline.Peak peak;
  private final int[] outputTokens;
  private final SlotPool slots;
  private final List<AutoCloseable> owned = new ArrayList<>();
  private final CudaStream copies;
  private final DeviceMemory ids;
  private final DeviceMemory positions;
  private final DeviceMemory mask;
  private final DeviceMemory logits;
  /** Index {@code 2 * block + (0 key | 1 value)}. */
  private final DeviceMemory[] past;
  private final DeviceMemory[] present;
  private final DeviceMemory[] cache;
  private final IntPointer hostIds;
  private final IntPointer hostPositions;
  private final FloatPointer hostMask;
  private final FloatPointer hostLogits;
  /** {@code hostLogits} in bytes: a copy's destination is its position, which a {@code void*} takes in bytes. */
  private final BytePointer hostLogitsBytes;

  /**
   * Device buffers for launches of up to {@code extents} (rows at most the engine profile's) and {@code slots}
   * key/value slots of {@code config.maxSeq()} positions each.
   *
   * @throws io.github.trtrace.tensorrt.cuda.CudaException when the device has no room (what was allocated is freed)
   */
  TensorRtSteps(String model, TracedEngine engine, TransformerNetwork.Config config, TransformerNetwork.Batch extents,
      int slots, Roofline roofline, Roofline.Peak peak, int[] outputTokens) {
    this.model = model;
    this.engine = engine;
    this.c = config;
    this.extents = extents;
    this.kv = new BatchLayout.Kv(config.heads(), config.headDim(), config.maxSeq());
    this.roofline = roofline;
    this.peak = peak;
    this.outputTokens = outputTokens;
    this.slots = new SlotPool(slots);
    long tokens = (long) extents.maxRows() * extents.maxStep();
    long wide = (long) extents.maxPast() + extents.maxStep();
    long line = (long) c.heads() * c.headDim();
    try {
      copies = own(CudaStream.createNonBlocking());
      ids = zeroed(4 * tokens);
      positions = zeroed(4 * tokens);
      mask = zeroed(4 * tokens * wide);
      logits = zeroed(4 * tokens * c.vocab());
      past = new DeviceMemory[2 * c.blocks()];
      present = new DeviceMemory[2 * c.blocks()];
      cache = new DeviceMemory[2 * c.blocks()];
      for (int i = 0; i < past.length; i++) {
        // zeroed: padded positions read stale values, masked (weight 0), but 0 x NaN would still be NaN
        past[i] = zeroed(4 * line * extents.maxRows() * extents.maxPast());
        present[i] = zeroed(4 * line * extents.maxRows() * wide);
        cache[i] = zeroed(4 * kv.slotFloats() * slots);
      }
      hostIds = own(new IntPointer(tokens));
      hostPositions = own(new IntPointer(tokens));
      hostMask = own(new FloatPointer(tokens * wide));
      hostLogits = own(new FloatPointer((long) extents.maxRows() * c.vocab()));
      hostLogitsBytes = new BytePointer(hostLogits).capacity(4L * extents.maxRows() * c.vocab());
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  /** Device bytes this model holds: launch buffers and key/value slots. */
  static long deviceBytes(TransformerNetwork.Config c, TransformerNetwork.Batch extents, int slots) {
    long tokens = (long) extents.maxRows() * extents.maxStep();
    long wide = (long) extents.maxPast() + extents.maxStep();
    long line = 4L * c.heads() * c.headDim();
    return 4 * tokens * (2 + wide + c.vocab())
        + 2L * c.blocks() * line * (extents.maxRows() * (extents.maxPast() + wide) + (long) slots * c.maxSeq());
  }

  private <T extends AutoCloseable> T own(T t) {
    owned.add(t);
    return t;
  }

  private DeviceMemory zeroed(long bytes) {
    DeviceMemory m = own(DeviceMemory.allocate(bytes));
    check("cudaMemset", cudart.cudaMemset(m.pointer(), 0, bytes));
    return m;
  }

  private static void check(String call, int rc) {
    if (rc != 0) {
      BytePointer s = cudart.cudaGetErrorString(rc);
      throw new IllegalStateException(call + " failed: cudaError " + rc + " (" + (s == null ? "?" : s.getString())
          + ")");
    }
  }

  @Override
  public String modelName() {
    return model;
  }

  /** The engine's fingerprint (its build report's), the same for every replica: they run one engine. */
  @Override
  public String fingerprint(int replica) {
    String f = engine.fingerprint();
    return f != null ? f : StepModel.super.fingerprint(replica);
  }

  @Override
  public int vocabularySize() {
    return c.vocab();
  }

  @Override
  public int maxRows() {
    return extents.maxRows();
  }

  @Override
  public int maxChunkTokens() {
    return extents.maxStep();
  }

  @Override
  public Slot sequence(int capacity) {
    if (capacity > kv.slotPositions()) {
      throw new IllegalArgumentException("a request of " + capacity + " positions does not fit a key/value slot of "
          + kv.slotPositions());
    }
    return new Slot(slots.acquire());
  }

  /** A request's key/value slot: its index in the slot buffers and the positions written there so far. */
  final class Slot implements StepModel.Sequence {
    final int index;
    int filled;
    private boolean released;

    private Slot(int index) {
      this.index = index;
    }

    @Override
    public void release() {
      if (!released) {
        released = true;
        slots.release(index);
      }
    }
  }

  @Override
  public float[][] step(SharedLaunch launch, List<Chunk> chunks) {
    BatchLayout layout;
    try {
      layout = layout(chunks);
    } catch (RuntimeException e) {
      launch.error(e);
      throw e;
    }
    double[] w = layout.weights(roofline, peak);
    for (int m = 0; m < chunks.size(); m++) {
      launch.weight(chunks.get(m).trace(), w[m]);
    }
    launch.shareBy(SharedLaunch.ShareMethod.WEIGHTED);
    return run(chunks, layout, b -> engine.launch(launch, b), launch::error);
  }

  /** The step's layout: each chunk a row after the positions its slot holds. */
  BatchLayout layout(List<Chunk> chunks) {
    int[][] tokens = new int[chunks.size()][];
    int[] pastLen = new int[chunks.size()];
    for (int m = 0; m < chunks.size(); m++) {
      Chunk ch = chunks.get(m);
      Slot s = (Slot) ch.seq();
      if (s.released || ch.start() > s.filled) {
        throw new IllegalStateException("chunk " + m + " starts at position " + ch.start() + " of slot " + s.index
            + (s.released ? ", given back" : ", which holds " + s.filled));
      }
      tokens[m] = ch.tokens();
      pastLen[m] = ch.start();
    }
    return BatchLayout.of(tokens, pastLen, extents);
  }

  /**
   * Stages {@code layout} (inputs, gathered caches), launches it with {@code launcher}, scatters the new positions
   * and reads each row's last logits. A failure outside the launcher goes to {@code onError} (the launcher reports
   * its own), then throws.
   */
  float[][] run(List<Chunk> chunks, BatchLayout layout, Launcher launcher,
      java.util.function.Consumer<Exception> onError) {
    int[] slotOf = new int[chunks.size()];
    for (int m = 0; m < chunks.size(); m++) {
      slotOf[m] = ((Slot) chunks.get(m).seq()).index;
    }
    try {
      stage(layout, slotOf);
    } catch (RuntimeException e) {
      onError.accept(e);
      throw e;
    }
    boolean ok;
    try {
      ok = launcher.launch((ctx, stream) -> bind(ctx, layout));
    } catch (ContextPoolTimeoutException e) { // before the launch: not on it yet
      onError.accept(e);
      throw e;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("the TensorRT launch failed: " + e, e);
    }
    if (!ok) {
      throw new IllegalStateException("TensorRT refused the launch of " + layout.rows() + " rows x " + layout.step()
          + " new positions after " + layout.past() + " (the launch's error and events say why)");
    }
    try {
      float[][] last = collect(layout, slotOf);
      for (int m = 0; m < chunks.size(); m++) {
        Chunk ch = chunks.get(m);
        ((Slot) ch.seq()).filled = ch.start() + ch.tokens().length;
      }
      return last;
    } catch (RuntimeException e) {
      onError.accept(e);
      throw e;
    }
  }

  /** Inputs to the device and each row's cache from its slot into {@code past_*}, on the copy stream; waits. */
  private void stage(BatchLayout l, int[] slotOf) {
    int n = l.rows() * l.step();
    hostIds.position(0).put(l.ids(), 0, n);
    hostPositions.position(0).put(l.positions(), 0, n);
    hostMask.position(0).put(l.mask(), 0, l.mask().length);
    ids.copyFromAsync(hostIds, 0, 4L * n, copies);
    positions.copyFromAsync(hostPositions, 0, 4L * n, copies);
    mask.copyFromAsync(hostMask, 0, 4L * l.mask().length, copies);
    List<BatchLayout.Copy> gather = l.gather(slotOf, kv);
    for (int i = 0; i < cache.length; i++) {
      for (BatchLayout.Copy cp : gather) {
        copy2d("gather into " + tensor("past_", i), cache[i], cp, past[i]);
      }
    }
    copies.synchronize();
  }

  /** Each row's new positions from {@code present_*} into its slot, and its last logits to the host; waits. */
  private float[][] collect(BatchLayout l, int[] slotOf) {
    List<BatchLayout.Copy> scatter = l.scatter(slotOf, kv);
    for (int i = 0; i < cache.length; i++) {
      for (BatchLayout.Copy cp : scatter) {
        copy2d("scatter from " + tensor("present_", i), present[i], cp, cache[i]);
      }
    }
    int v = c.vocab();
    for (int r = 0; r < l.rows(); r++) {
      logits.copyToAsync(hostLogitsBytes.position(4L * r * v), 4 * l.lastLogits(r, v), 4L * v, copies);
    }
    copies.synchronize();
    float[][] out = new float[l.rows()][v];
    for (int r = 0; r < l.rows(); r++) {
      hostLogits.position((long) r * v).get(out[r], 0, v);
    }
    hostLogits.position(0);
    return out;
  }

  private static String tensor(String prefix, int i) {
    return prefix + (i % 2 == 0 ? "key_" : "value_") + i / 2;
  }

  /** One {@code cudaMemcpy2DAsync} device to device on the copy stream, its range checked against both buffers. */
  private void copy2d(String what, DeviceMemory src, BatchLayout.Copy cp, DeviceMemory dst) {
    if (cp.srcOffset() < 0 || cp.dstOffset() < 0 || 4 * cp.srcEnd() > src.bytes() || 4 * cp.dstEnd() > dst.bytes()) {
      throw new IndexOutOfBoundsException(what + ": " + cp + " outside " + src.bytes() + " / " + dst.bytes() + " bytes");
    }
    check("cudaMemcpy2DAsync (" + what + ")", cudart.cudaMemcpy2DAsync(at(dst, cp.dstOffset()), 4 * cp.dstPitch(),
        at(src, cp.srcOffset()), 4 * cp.srcPitch(), 4 * cp.width(), cp.height(), cudart.cudaMemcpyDeviceToDevice,
        copies.handle()));
  }

  private static Pointer at(DeviceMemory m, long floats) {
    return new BytePointer(m.pointer()).position(4 * floats);
  }

  /** Binds the staged launch: every input's shape, every input's and output's address. */
  private void bind(IExecutionContext ctx, BatchLayout l) {
    int n = l.rows();
    int s = l.step();
    int p = l.past();
    shape(ctx, "input_ids", n, s);
    shape(ctx, "position_ids", n, s);
    shape(ctx, "attn_mask", n, 1, s, p + s);
    address(ctx, "input_ids", ids.pointer());
    address(ctx, "position_ids", positions.pointer());
    address(ctx, "attn_mask", mask.pointer());
    address(ctx, "logits", logits.pointer());
    for (int i = 0; i < past.length; i++) {
      shape(ctx, tensor("past_", i), n, c.heads(), p, c.headDim());
      address(ctx, tensor("past_", i), past[i].pointer());
      address(ctx, tensor("present_", i), present[i].pointer());
    }
  }

  /** A refused shape stops the launch: the context would otherwise run with its last launch's shapes. */
  private static void shape(IExecutionContext ctx, String input, long... dims) {
    if (!ctx.setInputShape(input, TransformerNetwork.dims(dims))) {
      throw new IllegalArgumentException("TensorRT refused shape " + Arrays.toString(dims) + " for " + input);
    }
  }

  private static void address(IExecutionContext ctx, String tensor, Pointer p) {
    if (!ctx.setTensorAddress(tensor, p)) {
      throw new IllegalArgumentException("TensorRT refused the address of " + tensor);
    }
  }

  @Override
  public int[] next(float[][] last, boolean[][] used, int[] steps) {
    int[] out = new int[last.length];
    for (int r = 0; r < last.length; r++) {
      float[] l = last[r];
      out[r] = Backend.greedy(outputTokens, t -> l[t], used[r], steps[r]);
    }
    return out;
  }

  /** Frees the device and host buffers, in reverse order of allocation. */
  @Override
  public void close() {
    Exception first = null;
    for (int i = owned.size() - 1; i >= 0; i--) {
      try {
        owned.get(i).close();
      } catch (Exception e) { // free the rest; the first failure is the one reported
        if (first == null) {
          first = e;
        }
      }
    }
    owned.clear();
    if (first != null) {
      throw new IllegalStateException("freeing the TensorRT step's buffers failed", first);
    }
  }
}
