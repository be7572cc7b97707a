package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.examples.tensorrt.Generation;
import io.github.trtrace.tensorrt.cuda.CudaStream;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.bytedeco.tensorrt.nvinfer.IExecutionContext;

/**
 * The TensorRT backend's start-up check of its slotted engine, on the device, before it serves: the same prompt's
 * last logits three ways, which agree only if the key/value cache is written, read in place and kept per slot.
 *
 * <ol>
 *   <li>the whole prompt as one chunk in slot 0;
 *   <li>the prompt less its last token as one chunk, then the last token as a decode row (which sees the rest only
 *       through the cache the first launch appended);
 *   <li>the prompt less its last token prefilled in slot 2 beside another prompt in slot 0 (two passes: slots not
 *       adjacent), then a mixed step: the last token as a decode row in slot 2 beside the other's next token in slot 0
 *       (one pass of three rows from slot 0, slot 1 idle) and a third prompt prefilled in slot 1 (a second pass, bound
 *       from slot 1): rows as slots from a pass's base, another request's cache, an idle row, and a step in passes.
 * </ol>
 *
 * <p>Launched on a plain execution context (no tracing: nothing reaches the records or the launch log). FP16
 * arithmetic in a different order gives small differences; the line says how large, and whether each way picks the
 * same next token, and {@link Result#agrees} holds when they do.
 *
 * <pre>{@code
 * SlotSelfCheck.Result r = SlotSelfCheck.run(steps, context, stream, 48);   // steps: 3 free slots
 * System.out.println(r.line());
 * }</pre>
 */
final class SlotSelfCheck {
  /**
   * The largest difference of a logit, as a share of the largest logit, still counted as the same computation in
   * another order (FP16); a cache not read, or read from another slot, moves the logits by their own size.
   */
  static final double TOLERANCE = 0.05;

  private SlotSelfCheck() {}

  /** The three ways' differences from the first, and whether their next tokens are the first's. */
  record Result(double scale, double decodeDiff, boolean decodeSameToken, double batchDiff, boolean batchSameToken) {
    boolean agrees() {
      return decodeSameToken && batchSameToken && decodeDiff <= TOLERANCE * scale && batchDiff <= TOLERANCE * scale;
    }

    String line() {
      return String.format(Locale.ROOT, "engine self-check %s (largest logit %.3f): prefill + decode through the"
          + " cache vs one chunk max |diff| %.4f (%s next token); in slot 2 of a mixed step in two passes vs one"
          + " chunk max |diff| %.4f (%s next token)", agrees() ? "PASS" : "FAIL", scale, decodeDiff,
          decodeSameToken ? "same" : "another", batchDiff, batchSameToken ? "same" : "another");
    }
  }

  /** Runs the three ways on {@code steps} (at least 3 slots, all free) with prompts of {@code length} tokens. */
  static Result run(TensorRtSteps steps, IExecutionContext context, CudaStream stream, int length) {
    InferenceTrace trace = InferenceTracer.noop().start(TensorRtBackend.MODEL);
    TensorRtSteps.Launcher raw = TensorRtSteps.Launcher.raw(context, stream);
    SplittableRandom rnd = new SplittableRandom(length);
    int[] prompt = rnd.ints(length, 0, steps.vocabularySize()).toArray();
    int[] other = rnd.ints(length + 13, 0, steps.vocabularySize()).toArray();
    float[] whole;
    float[] stepped;
    float[] batched;
    TensorRtSteps.Slot a = steps.sequence(length);
    try {
      whole = launch(steps, raw, List.of(new StepModel.Chunk(trace, a, prompt, 0)))[0];
    } finally {
      a.release();
    }
    a = steps.sequence(length);
    try {
      launch(steps, raw, List.of(new StepModel.Chunk(trace, a, java.util.Arrays.copyOf(prompt, length - 1), 0)));
      stepped = launch(steps, raw, List.of(new StepModel.Chunk(trace, a, new int[] {prompt[length - 1]},
          length - 1)))[0];
    } finally {
      a.release();
    }
    int[] third = rnd.ints(length - 5, 0, steps.vocabularySize()).toArray();
    TensorRtSteps.Slot s0 = steps.sequence(other.length + 1);
    TensorRtSteps.Slot s1 = steps.sequence(third.length);
    TensorRtSteps.Slot s2 = steps.sequence(length);
    try {
      launch(steps, raw, List.of(new StepModel.Chunk(trace, s0, other, 0),
          new StepModel.Chunk(trace, s2, java.util.Arrays.copyOf(prompt, length - 1), 0)));
      batched = launch(steps, raw, List.of(new StepModel.Chunk(trace, s1, third, 0),
          new StepModel.Chunk(trace, s2, new int[] {prompt[length - 1]}, length - 1),
          new StepModel.Chunk(trace, s0, new int[] {other[0]}, other.length)))[1];
    } finally {
      s0.release();
      s1.release();
      s2.release();
    }
    return new Result(Generation.maxAbs(whole), Generation.maxAbsDiff(whole, stepped),
        Generation.argmax(whole) == Generation.argmax(stepped), Generation.maxAbsDiff(whole, batched),
        Generation.argmax(whole) == Generation.argmax(batched));
  }

  private static float[][] launch(TensorRtSteps steps, TensorRtSteps.Launcher raw, List<StepModel.Chunk> chunks) {
    return steps.run(chunks, steps.plan(chunks), raw, e -> {});
  }
}
