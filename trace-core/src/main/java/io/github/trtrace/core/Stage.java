package io.github.trtrace.core;

/**
 * The stages of one inference request, in the order they normally run.
 *
 * <pre>{@code
 * int[] tokens = trace.callStage(Stage.PREPROCESS, () -> tokenizer.encode(prompt));
 * }</pre>
 */
public enum Stage {
  /** Waiting for a worker or a batch slot. Counts towards end-to-end latency. */
  QUEUE,
  /** Tokenisation and input tensor preparation on the host. */
  PREPROCESS,
  /** Engine execution as seen from the host (enqueue to synchronisation). */
  INFER,
  /** Token generation / detokenisation; first-token and per-token marks fall in here. */
  DECODE,
  /** Output shaping after decoding. */
  POSTPROCESS;

  /**
   * The record field holding this stage's total time in milliseconds, e.g. {@code "queue_ms"}
   * ({@link RecordConvention#stageField}).
   */
  public String field() {
    return RecordConvention.stageField(this);
  }
}
