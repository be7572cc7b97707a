package io.github.trtrace.core;

/**
 * The stages of one inference request, in the order they normally run.
 *
 * <pre>{@code
 * try (var s = trace.stage(Stage.PREPROCESS)) { tokens = tokenizer.encode(prompt); }
 * }</pre>
 */
public enum Stage {
  /** Waiting for a worker or a batch slot. Counts towards end-to-end latency. */
  QUEUE("queue_ms"),
  /** Tokenisation and input tensor preparation on the host. */
  PREPROCESS("preprocess_ms"),
  /** Engine execution as seen from the host (enqueue to synchronisation). */
  INFER("infer_ms"),
  /** Token generation / detokenisation; first-token and per-token marks fall in here. */
  DECODE("decode_ms"),
  /** Output shaping after decoding. */
  POSTPROCESS("postprocess_ms");

  private final String field;

  Stage(String field) {
    this.field = field;
  }

  /** The record field holding this stage's total time in milliseconds, e.g. {@code "queue_ms"}. */
  public String field() {
    return field;
  }
}
