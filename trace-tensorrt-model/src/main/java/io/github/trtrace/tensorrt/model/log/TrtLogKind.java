package io.github.trtrace.tensorrt.model.log;

/**
 * What a TensorRT log line is about, decided by {@link TrtLogClassifier}.
 *
 * <pre>{@code
 * String kind = TrtLogKind.OUT_OF_MEMORY.eventKind(); // "tensorrt.out_of_memory"
 * }</pre>
 */
public enum TrtLogKind {
  /** {@code [MemUsageChange]} lines: CPU/GPU memory before and after a step. */
  MEMORY_USAGE("memory_usage"),
  /** Loading the per-architecture builder resource library ({@code libnvinfer_builder_resource_smNN}). */
  BUILDER_RESOURCE("builder_resource"),
  /** Graph optimisation: layers fused together. */
  FUSION("fusion"),
  /** Kernel (tactic) selection and its failures. */
  TACTIC_SELECTION("tactic_selection"),
  /** Precision and data-type decisions (casts, fallbacks). */
  PRECISION("precision"),
  /** Plugin registry and plugin creation. */
  PLUGIN("plugin"),
  /** CUDA initialisation (lazy loading, device limits). */
  CUDA_INIT("cuda_init"),
  /** Memory allocation failures. */
  OUT_OF_MEMORY("out_of_memory"),
  /** Errors TensorRT reports as API usage errors (invalid argument, config or state). */
  API_USAGE_ERROR("api_usage_error"),
  /** Engine (de)serialization. */
  SERIALIZATION("serialization"),
  /** TensorRT internal errors and assertions. */
  INTERNAL_ERROR("internal_error"),
  /** Anything else. */
  OTHER("other");

  private final String wireName;

  TrtLogKind(String wireName) {
    this.wireName = wireName;
  }

  /** Snake-case name used in JSON, e.g. {@code out_of_memory}. */
  public String wireName() {
    return wireName;
  }

  /** Record-event kind, e.g. {@code tensorrt.out_of_memory}. */
  public String eventKind() {
    return "tensorrt." + wireName;
  }
}
