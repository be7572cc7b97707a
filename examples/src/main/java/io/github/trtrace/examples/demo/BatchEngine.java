// Over 400 lines: the scheduler (admission, chunked prefill, preemption, sampling, failures) is one loop whose state is shared by all its parts.
package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.SharedLaunch;
import io.github.trtrace.core.Stage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One engine replica serving by continuous batching, as vLLM, TGI and TensorRT-LLM's in-flight batching do:
 * a scheduler loop on its own thread runs one {@link StepModel#step} per step for every running request (the
 * {@link CpuBackend}'s forward pass, or one launch of the TensorRT engine through {@link TensorRtSteps}).
 * Each step takes every decoding request's next row first, then fills the step's token budget with prefill
 * chunks (chunked prefill: a long prompt is spread over several steps, beside the others' decode rows), then
 * admits waiting requests while the batch has room and the key/value cache budget holds their context. When
 * the decoders' growth overruns the budget, the latest admitted request is preempted: its cache is dropped
 * and recomputed later (vLLM's recompute preemption), its tokens so far kept. The batch and a chunk are also
 * held to what the model can compute in one step ({@link StepModel#maxRows()}, {@link
 * StepModel#maxChunkTokens()}).
 *
 * <p>Each step is one {@link SharedLaunch} of the tracer, opened before the step and closed after sampling
 * (its host time): every member's prefill chunk or decode row is declared, a request admitted or put back
 * after a preemption {@linkplain InferenceTrace#waitingForSlot() waits for a slot}, a preemption is
 * {@linkplain InferenceTrace#preempted(String) reported} ({@code kv_cache_full}). The model puts the step's
 * measured device time ({@code gpu_ms}) and how it is shared on the launch (see {@link CpuBackend#step} and
 * {@link TensorRtSteps}). A step that fails fails its members only (the launch and their records say why);
 * the others keep being served.
 *
 * <p>{@link Settings#onePerWorker()} is the unbatched service on the same code: one request at a time, its
 * prompt in one step.
 *
 * <pre>{@code
 * BatchEngine e = BatchEngine.start(cpu, BatchEngine.Settings.continuous(), 0, tracer);
 * int[] out = e.submit(new BatchEngine.Request(trace, promptIds, 32, id -> {})).join();
 * }</pre>
 */
final class BatchEngine implements AutoCloseable {

  /**
   * @param maxBatch the most requests in one step
   * @param stepTokens the most tokens (prefill and decode) one step computes
   * @param kvBudget the most positions the running requests' key/value caches may hold together
   */
  record Settings(int maxBatch, int stepTokens, int kvBudget) {
    Settings {
      if (maxBatch < 1 || stepTokens < 1 || kvBudget < 1) {
        throw new IllegalArgumentException("maxBatch, stepTokens and kvBudget must be positive: " + this);
      }
    }

    /** The demo's continuous batching: up to 16 requests a step, 256 tokens a step, 8,192 cached positions. */
    static Settings continuous() {
      return new Settings(16, 256, 8192);
    }

    /** One request at a time, its whole prompt in one step: the unbatched service. */
    static Settings onePerWorker() {
      return new Settings(1, Integer.MAX_VALUE, Integer.MAX_VALUE);
    }

    String describe() {
      return maxBatch == 1 ? "one request at a time"
          : "continuous batching (up to " + maxBatch + " requests and " + stepTokens + " tokens a step, chunked"
              + " prefill, key/value cache budget " + kvBudget + " positions with preemption)";
    }
  }

  /** A request for the engine; {@link #submit} completes with the generated token IDs. */
  static final class Request {
    final InferenceTrace trace;
    final int[] context; // prompt, then the generated tokens
    final int promptLength;
    final int maxTokens;
    final IntConsumer onToken;
    final InferenceTrace.StageTimer queued;
    final CompletableFuture<int[]> done = new CompletableFuture<>();
    boolean[] used = new boolean[0];
    int produced;
    int computed; // positions in the key/value cache
    StepModel.@Nullable Sequence seq;
    InferenceTrace.@Nullable StageTimer phase;
    boolean preempted; // and not yet recomputed up to where it was

    /** {@code trace} is in its queue stage from now until the engine first runs it. */
    Request(InferenceTrace trace, int[] prompt, int maxTokens, IntConsumer onToken) {
      this.trace = trace;
      this.context = Arrays.copyOf(prompt, prompt.length + maxTokens);
      this.promptLength = prompt.length;
      this.maxTokens = maxTokens;
      this.onToken = onToken;
      this.queued = trace.stage(Stage.QUEUE);
    }

    int length() {
      return promptLength + produced;
    }

    int pending() {
      return length() - computed;
    }

    boolean decoding() {
      return produced > 0 && pending() == 1;
    }
  }

  private final StepModel model;
  private final Settings settings;
  /** The settings' batch, held to the model's. */
  private final int maxBatch;
  private final int index;
  private final InferenceTracer tracer;
  /** The engine fingerprint its launches are opened with ({@link StepModel#fingerprint}). */
  private final String fingerprint;
  private final LinkedBlockingQueue<Request> inbox = new LinkedBlockingQueue<>();
  private final AtomicInteger load = new AtomicInteger();
  private final Deque<Request> waiting = new ArrayDeque<>();
  private final List<Request> running = new ArrayList<>();
  private final Thread thread;
  private volatile boolean closing;

  private BatchEngine(StepModel model, Settings settings, int index, InferenceTracer tracer) {
    this.model = model;
    this.settings = settings;
    this.maxBatch = Math.min(settings.maxBatch(), model.maxRows());
    this.index = index;
    this.tracer = tracer;
    this.fingerprint = model.fingerprint(index);
    this.thread = new Thread(this::loop, "engine-" + index);
    thread.setDaemon(true);
  }

  /** Starts replica {@code index}'s scheduler thread; its steps are {@code tracer}'s launches. */
  static BatchEngine start(StepModel model, Settings settings, int index, InferenceTracer tracer) {
    BatchEngine e = new BatchEngine(model, settings, index, tracer);
    e.thread.start();
    return e;
  }

  /** Hands {@code r} to the scheduler; completes with the generated tokens or the engine's failure. */
  CompletableFuture<int[]> submit(Request r) {
    if (closing) {
      return CompletableFuture.failedFuture(new IllegalStateException("engine closed"));
    }
    r.used = new boolean[model.vocabularySize()];
    load.incrementAndGet();
    inbox.add(r);
    return r.done;
  }

  /** Requests submitted and not finished (for the service to send the next one to the least loaded). */
  int load() {
    return load.get();
  }

  private void loop() {
    try {
      while (!(closing && inbox.isEmpty() && waiting.isEmpty() && running.isEmpty())) {
        if (waiting.isEmpty() && running.isEmpty()) {
          Request r = inbox.poll(50, TimeUnit.MILLISECONDS);
          if (r == null) {
            continue;
          }
          admit(r);
        }
        for (Request r = inbox.poll(); r != null; r = inbox.poll()) {
          admit(r);
        }
        step();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      fail(e);
      throw e;
    }
  }

  private void admit(Request r) {
    waiting.add(r);
    r.trace.waitingForSlot();
  }

  private void step() {
    preemptWhileOverBudget();
    List<Request> members = new ArrayList<>();
    List<int[]> tokens = new ArrayList<>();
    int budget = settings.stepTokens();
    for (Request r : running) { // decode rows first
      if (r.decoding() && budget > 0) {
        members.add(r);
        tokens.add(new int[] {r.context[r.computed]});
        budget--;
      }
    }
    List<Request> deferred = new ArrayList<>();
    for (Request r : running) { // then prefill chunks (recomputation after a preemption too)
      if (!r.decoding()) {
        if (budget > 0) {
          budget -= chunk(r, budget, members, tokens);
        } else {
          deferred.add(r);
        }
      }
    }
    while (budget > 0 && running.size() < maxBatch && !waiting.isEmpty() && fits(waiting.peekFirst())) {
      Request r = waiting.pollFirst();
      if (r.seq == null) {
        r.seq = model.sequence(r.promptLength + r.maxTokens);
      }
      if (r.phase == null) { // first run: the queue ends, prefill begins
        r.queued.close();
        r.phase = r.trace.stage(Stage.INFER);
      }
      running.add(r);
      budget -= chunk(r, budget, members, tokens);
    }
    if (members.isEmpty()) {
      return;
    }
    List<StepModel.Chunk> chunks = new ArrayList<>(members.size());
    for (int m = 0; m < members.size(); m++) {
      Request r = members.get(m);
      chunks.add(new StepModel.Chunk(r.trace, java.util.Objects.requireNonNull(r.seq), tokens.get(m), r.computed));
    }
    RuntimeException failure = null;
    try (SharedLaunch launch = tracer.launch(fingerprint)) {
      for (int m = 0; m < members.size(); m++) {
        Request r = members.get(m);
        if (r.decoding()) {
          launch.decode(r.trace);
        } else {
          launch.prefill(r.trace, tokens.get(m).length);
        }
      }
      float[][] last;
      try {
        last = model.step(launch, chunks);
      } catch (RuntimeException e) { // said on the launch: its members end once it is closed
        failure = e;
        last = null;
      }
      if (last != null) {
        for (int m = 0; m < members.size(); m++) {
          members.get(m).computed += tokens.get(m).length;
        }
        sample(members, last);
      }
    }
    if (failure != null) {
      failStep(members, failure);
    }
    for (Request r : deferred) { // running, but no room in this step: waiting for a slot again
      r.trace.waitingForSlot();
    }
    running.removeIf(r -> r.done.isDone());
  }

  /** Adds up to {@code budget} of {@code r}'s pending tokens (as many as the model takes) to the step; returns how many. */
  private int chunk(Request r, int budget, List<Request> members, List<int[]> tokens) {
    int n = Math.min(Math.min(r.pending(), budget), model.maxChunkTokens());
    members.add(r);
    tokens.add(Arrays.copyOfRange(r.context, r.computed, r.computed + n));
    return n;
  }

  /**
   * Whether {@code r} may join: a new request when its context fits beside the running requests' (their growth
   * is met by preemption), a preempted one only when its whole answer and the running requests' remaining
   * growth fit too (so it is not preempted again at once: no thrashing).
   */
  private boolean fits(Request r) {
    if (running.isEmpty()) {
      return true;
    }
    if (!r.preempted) {
      return cached() + r.length() <= settings.kvBudget();
    }
    long growth = 0;
    for (Request x : running) {
      growth += x.promptLength + x.maxTokens - x.length();
    }
    return cached() + growth + r.promptLength + r.maxTokens <= settings.kvBudget();
  }

  /** Positions the running requests' caches hold, or will once their prompts are in. */
  private int cached() {
    int sum = 0;
    for (Request r : running) {
      sum += r.length();
    }
    return sum;
  }

  private void preemptWhileOverBudget() {
    while (running.size() > 1 && cached() > settings.kvBudget()) {
      Request victim = running.remove(running.size() - 1); // the latest admitted, as vLLM does
      release(victim);
      victim.computed = 0;
      victim.preempted = true;
      waiting.addFirst(victim);
      victim.trace.preempted("kv_cache_full").waitingForSlot();
    }
  }

  /** After a step: the members whose context is all computed get their next token. */
  private void sample(List<Request> members, float[][] last) {
    List<Integer> rows = new ArrayList<>();
    for (int m = 0; m < members.size(); m++) {
      Request r = members.get(m);
      if (r.pending() == 0) {
        rows.add(m);
      }
    }
    if (rows.isEmpty()) {
      return;
    }
    float[][] hidden = new float[rows.size()][];
    boolean[][] used = new boolean[rows.size()][];
    int[] steps = new int[rows.size()];
    for (int i = 0; i < rows.size(); i++) {
      Request r = members.get(rows.get(i));
      hidden[i] = last[rows.get(i)];
      used[i] = r.used;
      steps[i] = r.produced;
    }
    int[] next = model.next(hidden, used, steps);
    for (int i = 0; i < rows.size(); i++) {
      Request r = members.get(rows.get(i));
      r.preempted = false; // recomputed up to where it was
      int t = next[i];
      if (t == Tokenizer.EOS) {
        finish(r);
        continue;
      }
      r.used[t] = true;
      r.context[r.length()] = t;
      r.produced++;
      r.onToken.accept(t);
      r.trace.token();
      if (r.produced == 1 && r.phase != null) { // the first token: prefill is over, decoding begins
        r.phase.close();
        r.phase = r.trace.stage(Stage.DECODE);
      }
      if (r.produced == r.maxTokens) {
        finish(r);
      }
    }
  }

  private void finish(Request r) {
    if (r.phase != null) {
      r.phase.close();
    }
    release(r);
    load.decrementAndGet();
    r.done.complete(Arrays.copyOfRange(r.context, r.promptLength, r.length()));
  }

  private static void release(Request r) {
    if (r.seq != null) {
      r.seq.release();
      r.seq = null;
    }
  }

  /**
   * A failed step, its launch closed (its error on the members' records): its members end with {@code e} (their
   * caches are undefined), the others run on.
   */
  private void failStep(List<Request> members, RuntimeException e) {
    for (Request r : members) {
      if (running.remove(r)) {
        if (r.phase != null) {
          r.phase.close();
        }
        release(r);
        load.decrementAndGet();
        r.done.completeExceptionally(e);
      }
    }
  }

  private void fail(Throwable e) {
    List<Request> all = new ArrayList<>(running);
    all.addAll(waiting);
    inbox.drainTo(all);
    for (Request r : all) {
      release(r);
      load.decrementAndGet();
      r.done.completeExceptionally(e);
    }
    running.clear();
    waiting.clear();
  }

  /** Finishes every submitted request, then stops the thread. */
  @Override
  public void close() {
    closing = true;
    try {
      thread.join(TimeUnit.SECONDS.toMillis(60));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
