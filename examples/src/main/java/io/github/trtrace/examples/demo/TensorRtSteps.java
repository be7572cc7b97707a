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
 * scheduler decided). A launch is one enqueue per pass ({@link StepPlan}): the decode rows together at S = 1, each run
 * of adjacent prefill chunks at its own S, padded and masked ({@link BatchLayout}), one after another on the slot's
 * stream between one pair of CUDA events.
 *
 * <p><b>Key/value slots, read in place.</b> Each running request holds a slot ({@link SlotPool}) of the model's whole
 * context in device buffers kept between steps, one a layer and K or V, {@code [slots, H, C, Dh]} FP16, laid one after
 * another. A pass binds every block's cache where it lies from its lowest slot on, so its row r is that slot + r:
 * the pass has as many rows as the span of its slots (the pool hands out the lowest free slot, which keeps the span of
 * the decode rows near the number running), and the network reads each row's cache where it is. Nothing is
 * gathered before a launch; after it, each chunk's new keys and values (the network's {@code new_*} outputs, a few
 * positions) are appended to its slot by one {@code cudaMemcpy3DAsync} (every head of every block's K and V) on this
 * model's copy stream: a step of B chunks makes B copy calls. (Until 2026-12-05 a step was one pass, its decode rows
 * padded to a prefill chunk's S. The earlier layout, {@link TransformerNetwork#defineBatched}, copied each row's whole
 * FP32 cache into the launch and back every step, and the network rewrote it once more; its decode steps did not batch on the H200.)
 * The copies are outside the CUDA events that time the launch ({@code gpu_ms} is the engine's work), inside the
 * step's host time.
 *
 * <p><b>Time and shares.</b> The launch runs through {@link TracedEngine#launch(SharedLaunch, List)}: its passes
 * timed once by CUDA events, TensorRT's errors to the launch and so to every member. Its time is split {@linkplain
 * SharedLaunch.ShareMethod#WEIGHTED by weight}, each row weighing the {@link Roofline} estimate of its own work
 * ({@link BatchLayout#weights}): the weights read once a pass and shared by its new tokens, the row's own cache traffic and
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

  /**
   * One launch of the staged step, its passes in order: through the traced engine (shared, or one request's) or a raw
   * context.
   */
  @FunctionalInterface
  interface Launcher {
    /** False when TensorRT refused a pass or reported an error. */
    boolean launch(List<TracedEngine.Binder> passes) throws Exception;

    /** A launcher for steps of one pass (a request alone: one chunk a step), refusing more. */
    static Launcher single(Single one) {
      return passes -> {
        if (passes.size() != 1) {
          throw new IllegalArgumentException("a launch of " + passes.size() + " passes where one was expected");
        }
        return one.launch(passes.get(0));
      };
    }

    /**
     * The launch without the SDK: each pass bound and enqueued on {@code context} and {@code stream}, then one wait
     * (a plain context: the self-check, and the overhead measurement's baseline).
     */
    static Launcher raw(IExecutionContext context, CudaStream stream) {
      return passes -> {
        for (TracedEngine.Binder b : passes) {
          b.bind(context, stream);
          if (!context.enqueueV3(stream.handle())) {
            return false;
          }
        }
        stream.synchronize();
        return true;
      };
    }

    /** One enqueue's launch, as {@link TracedEngine.Request#launch} is. */
    @FunctionalInterface
    interface Single {
      boolean launch(TracedEngine.Binder binder) throws Exception;
    }
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
    long tokens = capacityTokens(extents);
    try {
      own(append);
      own(appendSrc);
      own(appendDst);
      own(appendExtent);
      own(origin.x(0).y(0).z(0));
      copies = own(CudaStream.createNonBlocking());
      ids = zeroed(4 * tokens);
      positions = zeroed(4 * tokens);
      cacheMask = zeroed(4L * capacityCacheMask(extents, c));
      stepMask = zeroed(4L * capacityStepMask(extents));
      logits = zeroed(4 * tokens * c.vocab());
      fresh = zeroed((long) CACHE_BYTES * kv.buffers() * tokens * c.heads() * c.headDim());
      // zeroed: masked positions are read (weight 0), and 0 x NaN would still be NaN
      cache = zeroed((long) CACHE_BYTES * kv.buffers() * kv.bufferElements());
      hostIds = own(new IntPointer(tokens));
      hostPositions = own(new IntPointer(tokens));
      hostCacheMask = own(new FloatPointer(capacityCacheMask(extents, c)));
      hostStepMask = own(new FloatPointer(capacityStepMask(extents)));
      hostLogits = own(new FloatPointer((long) extents.maxRows() * c.vocab()));
      hostLogitsBytes = new BytePointer(hostLogits).capacity(4L * extents.maxRows() * c.vocab());
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  /** Device bytes this model holds: launch buffers and key/value slots. */
  static long deviceBytes(TransformerNetwork.Config c, TransformerNetwork.Slots extents, int slots) {
    long tokens = capacityTokens(extents);
    long line = (long) c.heads() * c.headDim();
    return 4 * tokens * (2 + c.vocab()) + 4L * capacityCacheMask(extents, c) + 4L * capacityStepMask(extents)
        + (long) CACHE_BYTES * 2 * c.blocks() * line * (tokens + (long) slots * c.maxSeq());
  }

  /**
   * Positions (rows × S) of a step's passes at most ({@link StepPlan}): the one-token pass spans at most every row at
   * S = 1, and the prefill passes cover disjoint slots, so at most every row at the longest S.
   */
  static long capacityTokens(TransformerNetwork.Slots extents) {
    return (long) extents.maxRows() * (extents.maxStep() + 1) + (long) ALIGN * (extents.maxRows() + 1);
  }

  /** Cache-mask floats of a step's passes at most: the one-token pass's rows and the prefill passes', each aligned. */
  static long capacityCacheMask(TransformerNetwork.Slots extents, TransformerNetwork.Config c) {
    return 2L * extents.maxRows() * c.maxSeq() + (long) ALIGN * (extents.maxRows() + 1);
  }

  /** Step-mask floats of a step's passes at most: one S × S mask a pass, at most a pass a row and the one-token pass. */
  static long capacityStepMask(TransformerNetwork.Slots extents) {
    return 1 + (long) extents.maxRows() * extents.maxStep() * extents.maxStep() + (long) ALIGN * (extents.maxRows() + 1);
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
    List<StepPlan.Pass> passes;
    try {
      passes = plan(chunks);
    } catch (RuntimeException e) {
      launch.error(e);
      throw e;
    }
    for (StepPlan.Pass p : passes) {
      double[] w = p.layout().weights(roofline, peak);
      for (int j = 0; j < w.length; j++) {
        launch.weight(chunks.get(p.chunks()[j]).trace(), w[j]);
      }
    }
    launch.shareBy(SharedLaunch.ShareMethod.WEIGHTED);
    return run(chunks, passes, b -> engine.launch(launch, b), launch::error);
  }

  /** The step's passes: each chunk a row after the positions its slot holds. */
  List<StepPlan.Pass> plan(List<Chunk> chunks) {
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
    return StepPlan.of(tokens, pastLen, slotOf, extents, kv.slotPositions());
  }

  /** Where one pass's inputs and outputs start in the step's buffers, in elements of each. */
  record At(long tokens, long cacheMask, long stepMask, long fresh) {}

  /**
   * Bytes every pass's place is aligned to, as TensorRT wants its tensors' addresses: so 64 of the 4-byte ids,
   * positions and masks, 128 of the 2-byte new keys and values, and 64 tokens of logits ({@code 64 × vocab × 4} bytes).
   */
  static final int ALIGN_BYTES = 256;

  /** The most elements an alignment adds to a 4-byte buffer (a place is rounded up to {@link #ALIGN_BYTES} / 4). */
  static final int ALIGN = ALIGN_BYTES / 4;

  /** {@code elements} of {@code bytes} each rounded up to a whole number of {@link #ALIGN_BYTES}. */
  private static long aligned(long elements, int bytes) {
    long step = ALIGN_BYTES / bytes;
    return (elements + step - 1) / step * step;
  }

  /** Each pass's place in the step's buffers, one after another, each aligned. */
  static List<At> places(List<StepPlan.Pass> passes, BatchLayout.Kv kv) {
    List<At> out = new ArrayList<>(passes.size());
    long t = 0;
    long cm = 0;
    long sm = 0;
    long f = 0;
    for (StepPlan.Pass p : passes) {
      BatchLayout l = p.layout();
      out.add(new At(t, cm, sm, f));
      t = aligned(t + (long) l.rows() * l.step(), 4);
      cm = aligned(cm + l.cacheMask().length, 4);
      sm = aligned(sm + l.stepMask().length, 4);
      f = aligned(f + kv.buffers() * l.newElements(kv), CACHE_BYTES);
    }
    return out;
  }

  /**
   * Stages the passes' inputs, launches them with {@code launcher}, appends the new positions to their slots and
   * reads each chunk's last logits (in the order of {@code chunks}). A failure outside the launcher goes to {@code
   * onError} (the launcher reports its own), then throws.
   */
  float[][] run(List<Chunk> chunks, List<StepPlan.Pass> passes, Launcher launcher,
      java.util.function.Consumer<Exception> onError) {
    List<At> at;
    try {
      at = places(passes, kv);
      stage(passes, at);
    } catch (RuntimeException e) {
      onError.accept(e);
      throw e;
    }
    List<TracedEngine.Binder> binders = new ArrayList<>(passes.size());
    for (int i = 0; i < passes.size(); i++) {
      BatchLayout l = passes.get(i).layout();
      At a = at.get(i);
      binders.add((ctx, stream) -> bind(ctx, l, a));
    }
    boolean ok;
    try {
      ok = launcher.launch(binders);
    } catch (ContextPoolTimeoutException e) { // before the launch: not on it yet
      onError.accept(e);
      throw e;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("the TensorRT launch failed: " + e, e);
    }
    if (!ok) {
      StringBuilder shapes = new StringBuilder();
      for (StepPlan.Pass p : passes) {
        shapes.append(shapes.length() == 0 ? "" : " + ").append(p.layout().rows()).append(" rows x ")
            .append(p.layout().step());
      }
      throw new IllegalStateException("TensorRT refused the launch of " + shapes + " new positions (" + chunks.size()
          + " chunks) (the launch's error and events say why)");
    }
    try {
      float[][] last = collect(chunks.size(), passes, at);
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

  /** The passes' inputs to the device, each at its place, on the copy stream; waits. */
  private void stage(List<StepPlan.Pass> passes, List<At> at) {
    for (int i = 0; i < passes.size(); i++) {
      BatchLayout l = passes.get(i).layout();
      At a = at.get(i);
      int n = l.rows() * l.step();
      hostIds.position(a.tokens()).put(l.ids(), 0, n);
      hostPositions.position(a.tokens()).put(l.positions(), 0, n);
      hostCacheMask.position(a.cacheMask()).put(l.cacheMask(), 0, l.cacheMask().length);
      hostStepMask.position(a.stepMask()).put(l.stepMask(), 0, l.stepMask().length);
    }
    // the places follow one another: the staged data ends where the last pass's does
    BatchLayout last = passes.get(passes.size() - 1).layout();
    At end = at.get(at.size() - 1);
    long tokens = end.tokens() + (long) last.rows() * last.step();
    long cm = end.cacheMask() + last.cacheMask().length;
    long sm = end.stepMask() + last.stepMask().length;
    hostIds.position(0);
    hostPositions.position(0);
    hostCacheMask.position(0);
    hostStepMask.position(0);
    ids.copyFromAsync(hostIds, 0, 4L * tokens, copies);
    positions.copyFromAsync(hostPositions, 0, 4L * tokens, copies);
    cacheMask.copyFromAsync(hostCacheMask, 0, 4L * cm, copies);
    stepMask.copyFromAsync(hostStepMask, 0, 4L * sm, copies);
    copies.synchronize();
  }

  /**
   * Each chunk's new positions from its pass's {@code new_*} outputs into its slot, and its last logits to the host
   * (row m of the result for chunk m of the step); waits.
   */
  private float[][] collect(int chunks, List<StepPlan.Pass> passes, List<At> at) {
    int v = c.vocab();
    for (int i = 0; i < passes.size(); i++) {
      BatchLayout l = passes.get(i).layout();
      At a = at.get(i);
      for (BatchLayout.Append x : l.appends(kv)) {
        copy3d(x, a.fresh());
      }
      int[] members = passes.get(i).chunks();
      for (int j = 0; j < members.length; j++) {
        logits.copyToAsync(hostLogitsBytes.position(4L * members[j] * v), 4 * (a.tokens() * v + l.lastLogits(j, v)),
            4L * v, copies);
      }
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

  /**
   * One {@code cudaMemcpy3DAsync} device to device on the copy stream, from the pass's {@code new_*} outputs at
   * element {@code freshAt} on, its range checked against both buffers.
   */
  private void copy3d(BatchLayout.Append a, long freshAt) {
    long e = CACHE_BYTES;
    if (a.srcOffset() < 0 || a.dstOffset() < 0 || e * (freshAt + a.srcEnd()) > fresh.bytes()
        || e * a.dstEnd() > cache.bytes()) {
      throw new IndexOutOfBoundsException("append " + a + " from " + freshAt + " outside " + fresh.bytes() + " / "
          + cache.bytes() + " bytes");
    }
    appendSrc.ptr(at(fresh, e * (freshAt + a.srcOffset()))).pitch(e * a.srcPitch()).xsize(e * a.srcPitch())
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

  /** Binds one staged pass at its place: every input's shape, every input's and output's address. */
  private void bind(IExecutionContext ctx, BatchLayout l, At a) {
    int n = l.rows();
    int s = l.step();
    shape(ctx, "input_ids", n, s);
    shape(ctx, "position_ids", n, s);
    shape(ctx, "cache_mask", n, 1, 1, c.maxSeq());
    shape(ctx, "step_mask", 1, 1, s, s);
    address(ctx, "input_ids", at(ids, 4 * a.tokens()));
    address(ctx, "position_ids", at(positions, 4 * a.tokens()));
    address(ctx, "cache_mask", at(cacheMask, 4 * a.cacheMask()));
    address(ctx, "step_mask", at(stepMask, 4 * a.stepMask()));
    address(ctx, "logits", at(logits, 4 * a.tokens() * c.vocab()));
    long freshElements = l.newElements(kv);
    for (int i = 0; i < kv.buffers(); i++) {
      shape(ctx, tensor("cache_", i), n, c.heads(), c.maxSeq(), c.headDim());
      address(ctx, tensor("cache_", i), at(cache, CACHE_BYTES * (i * kv.bufferElements() + l.base() * kv.slotElements())));
      address(ctx, tensor("new_", i), at(fresh, CACHE_BYTES * (a.fresh() + freshElements * i)));
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
