// Over 400 lines: the device buffers of one step (allocation, staging, the cache appends, binding, logits) with every CUDA and TensorRT return checked, and the javadoc on what the copies cost.
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
import org.bytedeco.cuda.cudart.cudaExtent;
import org.bytedeco.cuda.cudart.cudaMemcpy3DParms;
import org.bytedeco.cuda.cudart.cudaPitchedPtr;
import org.bytedeco.cuda.cudart.cudaPos;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;

/**
 * The TensorRT backend's {@link StepModel}: each step is one launch of the engine built by {@link
 * TransformerNetwork#defineSlotted}, its rows the step's chunks (prefill chunks and decode rows mixed, as the
 * scheduler decided), padded to the launch's S and masked ({@link BatchLayout}).
 *
 * <p><b>Key/value slots, read in place.</b> Each running request holds a slot ({@link SlotPool}) of the model's whole
 * context in device buffers kept between steps, one a layer and K or V, {@code [slots, H, C, Dh]} FP16, laid one after
 * another. A launch binds every block's cache where it lies, so its row r is slot r: the launch has as many rows as
 * its highest slot + 1 (the pool hands out the lowest free slot, which keeps that near the number running), and the
 * network reads each row's cache where it is. Nothing is gathered before a launch; after it, each chunk's new keys
 * and values (the network's {@code new_*} outputs, a few positions) are appended to its slot by one {@code
 * cudaMemcpy3DAsync} (every head of every block's K and V) on this model's copy stream: a step of B chunks makes B
 * copy calls. (The earlier layout, {@link TransformerNetwork#defineBatched}, copied each row's whole FP32 cache into
 * the launch and back every step, and the network rewrote it once more; its decode steps did not batch on the H200.)
 * The copies are outside the CUDA events that time the launch ({@code gpu_ms} is the engine's work), inside the
 * step's host time.
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

  /** Bytes of a cache element (FP16). */
  static final int CACHE_BYTES = 2;

  private final String model;
  private final TracedEngine engine;
  private final TransformerNetwork.Config c;
  private final TransformerNetwork.Slots extents;
  private final BatchLayout.Kv kv;
  private final Roofline roofline;
  private final Roofline.Peak peak;
  private final int[] outputTokens;
  private final SlotPool slots;
  private final List<AutoCloseable> owned = new ArrayList<>();
  private final CudaStream copies;
  private final DeviceMemory ids;
  private final DeviceMemory positions;
  private final DeviceMemory cacheMask;
  private final DeviceMemory stepMask;
  private final DeviceMemory logits;
  /** The {@code new_*} outputs, {@code [B, H, S, Dh]} FP16 each, one after another. */
  private final DeviceMemory fresh;
  /** The key/value slots: {@link BatchLayout.Kv#buffers()} buffers of {@code [slots, H, C, Dh]} FP16. */
  private final DeviceMemory cache;
  private final IntPointer hostIds;
  private final IntPointer hostPositions;
  private final FloatPointer hostCacheMask;
  private final FloatPointer hostStepMask;
  private final FloatPointer hostLogits;
  /** {@code hostLogits} in bytes: a copy's destination is its position, which a {@code void*} takes in bytes. */
  private final BytePointer hostLogitsBytes;
  /** The append's parameters, filled for each copy. */
  private final cudaMemcpy3DParms append = new cudaMemcpy3DParms();
  private final cudaPitchedPtr appendSrc = new cudaPitchedPtr();
  private final cudaPitchedPtr appendDst = new cudaPitchedPtr();
  private final cudaExtent appendExtent = new cudaExtent();
  private final cudaPos origin = new cudaPos();

  /**
   * Device buffers for launches of up to {@code extents} and {@code slots} key/value slots (at most the profile's
   * rows) of {@code config.maxSeq()} positions each.
   *
   * @throws io.github.trtrace.tensorrt.cuda.CudaException when the device has no room (what was allocated is freed)
   */
  TensorRtSteps(String model, TracedEngine engine, TransformerNetwork.Config config, TransformerNetwork.Slots extents,
      int slots, Roofline roofline, Roofline.Peak peak, int[] outputTokens) {
    if (slots > extents.maxRows()) {
      throw new IllegalArgumentException(slots + " slots, but a launch has at most " + extents.maxRows() + " rows");
    }
    this.model = model;
    this.engine = engine;
    this.c = config;
    this.extents = extents;
    this.kv = new BatchLayout.Kv(config.blocks(), config.heads(), config.headDim(), config.maxSeq(), slots);
    this.roofline = roofline;
    this.peak = peak;
    this.outputTokens = outputTokens;
    this.slots = new SlotPool(slots);
    long tokens = (long) extents.maxRows() * extents.maxStep();
    try {
      own(append);
      own(appendSrc);
      own(appendDst);
      own(appendExtent);
      own(origin.x(0).y(0).z(0));
      copies = own(CudaStream.createNonBlocking());
      ids = zeroed(4 * tokens);
      positions = zeroed(4 * tokens);
      cacheMask = zeroed(4L * extents.maxRows() * c.maxSeq());
      stepMask = zeroed(4L * extents.maxStep() * extents.maxStep());
      logits = zeroed(4 * tokens * c.vocab());
      fresh = zeroed((long) CACHE_BYTES * kv.buffers() * tokens * c.heads() * c.headDim());
      // zeroed: masked positions are read (weight 0), and 0 x NaN would still be NaN
      cache = zeroed((long) CACHE_BYTES * kv.buffers() * kv.bufferElements());
      hostIds = own(new IntPointer(tokens));
      hostPositions = own(new IntPointer(tokens));
      hostCacheMask = own(new FloatPointer((long) extents.maxRows() * c.maxSeq()));
      hostStepMask = own(new FloatPointer((long) extents.maxStep() * extents.maxStep()));
      hostLogits = own(new FloatPointer((long) extents.maxRows() * c.vocab()));
      hostLogitsBytes = new BytePointer(hostLogits).capacity(4L * extents.maxRows() * c.vocab());
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  /** Device bytes this model holds: launch buffers and key/value slots. */
  static long deviceBytes(TransformerNetwork.Config c, TransformerNetwork.Slots extents, int slots) {
    long tokens = (long) extents.maxRows() * extents.maxStep();
    long line = (long) c.heads() * c.headDim();
    return 4 * tokens * (2 + c.vocab()) + 4L * extents.maxRows() * c.maxSeq()
        + 4L * extents.maxStep() * extents.maxStep()
        + (long) CACHE_BYTES * 2 * c.blocks() * line * (tokens + (long) slots * c.maxSeq());
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
    int[] slotOf = new int[chunks.size()];
    for (int m = 0; m < chunks.size(); m++) {
      Chunk ch = chunks.get(m);
      Slot s = (Slot) ch.seq();
      if (s.released || ch.start() > s.filled) {
        throw new IllegalStateException("chunk " + m + " starts at position " + ch.start() + " of slot " + s.index
            + (s.released ? ", given back" : ", which holds " + s.filled));
      }
      tokens[m] = ch.tokens();
      pastLen[m] = ch.start();
      slotOf[m] = s.index;
    }
    return BatchLayout.of(tokens, pastLen, slotOf, extents, kv.slotPositions());
  }

  /**
   * Stages {@code layout}'s inputs, launches it with {@code launcher}, appends the new positions to their slots and
   * reads each row's last logits. A failure outside the launcher goes to {@code onError} (the launcher reports
   * its own), then throws.
   */
  float[][] run(List<Chunk> chunks, BatchLayout layout, Launcher launcher,
      java.util.function.Consumer<Exception> onError) {
    try {
      stage(layout);
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
          + " new positions (" + layout.chunks() + " chunks) (the launch's error and events say why)");
    }
    try {
      float[][] last = collect(layout);
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

  /** The launch's inputs to the device, on the copy stream; waits. */
  private void stage(BatchLayout l) {
    int n = l.rows() * l.step();
    hostIds.position(0).put(l.ids(), 0, n);
    hostPositions.position(0).put(l.positions(), 0, n);
    hostCacheMask.position(0).put(l.cacheMask(), 0, l.cacheMask().length);
    hostStepMask.position(0).put(l.stepMask(), 0, l.stepMask().length);
    ids.copyFromAsync(hostIds, 0, 4L * n, copies);
    positions.copyFromAsync(hostPositions, 0, 4L * n, copies);
    cacheMask.copyFromAsync(hostCacheMask, 0, 4L * l.cacheMask().length, copies);
    stepMask.copyFromAsync(hostStepMask, 0, 4L * l.stepMask().length, copies);
    copies.synchronize();
  }

  /** Each chunk's new positions from the {@code new_*} outputs into its slot, and its last logits to the host; waits. */
  private float[][] collect(BatchLayout l) {
    for (BatchLayout.Append a : l.appends(kv)) {
      copy3d(a);
    }
    int v = c.vocab();
    int chunks = l.chunks();
    for (int m = 0; m < chunks; m++) {
      logits.copyToAsync(hostLogitsBytes.position(4L * m * v), 4 * l.lastLogits(m, v), 4L * v, copies);
    }
    copies.synchronize();
    float[][] out = new float[chunks][v];
    for (int m = 0; m < chunks; m++) {
      hostLogits.position((long) m * v).get(out[m], 0, v);
    }
    hostLogits.position(0);
    return out;
  }

  private static String tensor(String prefix, int i) {
    return prefix + (i % 2 == 0 ? "key_" : "value_") + i / 2;
  }

  /** One {@code cudaMemcpy3DAsync} device to device on the copy stream, its range checked against both buffers. */
  private void copy3d(BatchLayout.Append a) {
    long e = CACHE_BYTES;
    if (a.srcOffset() < 0 || a.dstOffset() < 0 || e * a.srcEnd() > fresh.bytes() || e * a.dstEnd() > cache.bytes()) {
      throw new IndexOutOfBoundsException("append " + a + " outside " + fresh.bytes() + " / " + cache.bytes()
          + " bytes");
    }
    appendSrc.ptr(at(fresh, e * a.srcOffset())).pitch(e * a.srcPitch()).xsize(e * a.srcPitch())
        .ysize(a.srcSlice() / a.srcPitch());
    appendDst.ptr(at(cache, e * a.dstOffset())).pitch(e * a.dstPitch()).xsize(e * a.dstPitch())
        .ysize(a.dstSlice() / a.dstPitch());
    appendExtent.width(e * a.width()).height(a.height()).depth(a.depth());
    append.srcArray(null).dstArray(null).srcPos(origin).dstPos(origin).srcPtr(appendSrc).dstPtr(appendDst)
        .extent(appendExtent).kind(cudart.cudaMemcpyDeviceToDevice);
    check("cudaMemcpy3DAsync (new keys and values into their slot)", cudart.cudaMemcpy3DAsync(append, copies.handle()));
  }

  private static Pointer at(DeviceMemory m, long bytes) {
    return new BytePointer(m.pointer()).position(bytes);
  }

  /** Binds the staged launch: every input's shape, every input's and output's address. */
  private void bind(IExecutionContext ctx, BatchLayout l) {
    int n = l.rows();
    int s = l.step();
    shape(ctx, "input_ids", n, s);
    shape(ctx, "position_ids", n, s);
    shape(ctx, "cache_mask", n, 1, 1, c.maxSeq());
    shape(ctx, "step_mask", 1, 1, s, s);
    address(ctx, "input_ids", ids.pointer());
    address(ctx, "position_ids", positions.pointer());
    address(ctx, "cache_mask", cacheMask.pointer());
    address(ctx, "step_mask", stepMask.pointer());
    address(ctx, "logits", logits.pointer());
    long freshBytes = CACHE_BYTES * l.newElements(kv);
    for (int i = 0; i < kv.buffers(); i++) {
      shape(ctx, tensor("cache_", i), n, c.heads(), c.maxSeq(), c.headDim());
      address(ctx, tensor("cache_", i), at(cache, (long) CACHE_BYTES * i * kv.bufferElements()));
      address(ctx, tensor("new_", i), at(fresh, freshBytes * i));
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
