package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.SharedLaunch;
import java.util.List;

/**
 * What a {@link BatchEngine} steps: a model that computes one batched step for several requests' chunks (prefill
 * chunks and decode rows) and picks their next tokens, with a key/value cache per request kept between steps. The
 * scheduler decides who is in a step and with how many tokens; the model computes it, measures the step's device
 * time and says how it is shared among the members ({@link SharedLaunch#gpuMs}, {@link SharedLaunch#shareBy},
 * {@link SharedLaunch#weight}). Implemented by the {@link CpuBackend} (the CPU is the device) and the TensorRT
 * backend's {@link TensorRtSteps} (one engine launch a step).
 *
 * <pre>{@code
 * StepModel.Sequence seq = model.sequence(prompt.length + maxTokens);
 * float[][] last = model.step(launch.prefill(trace, prompt.length), List.of(new StepModel.Chunk(trace, seq, prompt, 0)));
 * int next = model.next(last, new boolean[][] {used}, new int[] {0})[0];
 * seq.release();
 * }</pre>
 */
interface StepModel {

  /** The model name (the launch log's engine fingerprint is built from it unless {@link #fingerprint} says). */
  String modelName();

  /** The engine fingerprint the scheduler of replica {@code replica} opens its launches with. */
  default String fingerprint(int replica) {
    return modelName() + "/engine-" + replica;
  }

  /** The vocabulary size (the length of a {@code used} row for {@link #next}). */
  int vocabularySize();

  /** The most chunks one step can carry (the scheduler's {@code maxBatch} is held to it). */
  default int maxRows() {
    return Integer.MAX_VALUE;
  }

  /** The most tokens one chunk can bring (the scheduler's step budget is held to it). */
  default int maxChunkTokens() {
    return Integer.MAX_VALUE;
  }

  /**
   * A request's key/value cache for up to {@code capacity} positions, until {@link Sequence#release()}.
   *
   * @throws IllegalArgumentException when {@code capacity} exceeds what the model holds for one request
   * @throws IllegalStateException when every cache is taken (the scheduler runs no more requests than {@link
   *     #maxRows()}, so this is a scheduler defect)
   */
  Sequence sequence(int capacity);

  /**
   * One step for the members declared on {@code launch}, in the order of {@code chunks}: appends each chunk's
   * tokens to its sequence's cache, puts the step's device time and share method on {@code launch}, and returns
   * each chunk's last row (what {@link #next} reads). A step that failed has said so on {@code launch} (its
   * members' records) and throws: its members' caches are then undefined.
   */
  float[][] step(SharedLaunch launch, List<Chunk> chunks);

  /** The next token of each row of {@code last} (from {@link #step}), chosen by {@link Backend#greedy}. */
  int[] next(float[][] last, boolean[][] used, int[] steps);

  /** One request's key/value cache. */
  interface Sequence {
    /** Gives the cache back (a preempted or finished request). Idempotent. */
    default void release() {}
  }

  /** Member {@code trace}'s part of a step: {@code tokens} at positions {@code start..} of {@code seq}. */
  record Chunk(InferenceTrace trace, Sequence seq, int[] tokens, int start) {}
}
