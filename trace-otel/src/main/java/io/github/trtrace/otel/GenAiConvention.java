package io.github.trtrace.otel;

import io.opentelemetry.api.common.AttributeKey;
import java.util.List;

/**
 * Every name trace-otel writes: span names, attribute keys, metric names, units and bucket
 * boundaries. One place, so a change of the (Development-stability) GenAI conventions is one edit.
 *
 * <p>Sources: the OpenTelemetry GenAI semantic conventions where they speak (attributes, the three
 * {@code gen_ai.server.*} metrics and their bucket advice); the open server-span proposals where they
 * do not (a SERVER span per request named {@code {operation} {model}}); the {@code gen_ai.latency.*}
 * keys vLLM and SGLang put on their spans, so existing dashboards keep working; and a documented
 * {@code trtrace.*} namespace for what operators need and the conventions lack.
 *
 * <pre>{@code
 * // a Tempo/Jaeger search for one request:  trtrace.request.id = "api-7f3a..."
 * // a PromQL p99 time to first token:
 * //   histogram_quantile(0.99, sum by (le) (rate(gen_ai_server_time_to_first_token_seconds_bucket[5m])))
 * String key = GenAiConvention.REQUEST_ID.getKey();   // "trtrace.request.id"
 * }</pre>
 */
public final class GenAiConvention {
  private GenAiConvention() {}

  // ---- values --------------------------------------------------------------------------------

  /**
   * {@code gen_ai.provider.name} written by default. The conventions list hosted providers only; a
   * self-hosted TensorRT engine is named by its runtime, as the conventions allow for custom values.
   */
  public static final String PROVIDER_TENSORRT = "tensorrt";

  /** {@code gen_ai.operation.name} written by default (override with the builder's {@code operationName}). */
  public static final String OPERATION_TEXT_COMPLETION = "text_completion";

  /** Instrumentation scope name of the tracer and the meter. */
  public static final String INSTRUMENTATION_SCOPE = "io.github.trtrace.otel";

  // ---- span names ----------------------------------------------------------------------------

  /** Child span of the waiting time before a worker or batch slot took the request. */
  public static final String SPAN_QUEUE = "queue";
  public static final String SPAN_PREPROCESS = "preprocess";
  /** One engine launch (one span per launch when a request launches the engine per token). */
  public static final String SPAN_INFER = "tensorrt.infer";
  public static final String SPAN_DECODE = "decode";
  public static final String SPAN_POSTPROCESS = "postprocess";

  // ---- GenAI attributes (semantic conventions) -----------------------------------------------

  public static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("gen_ai.operation.name");
  public static final AttributeKey<String> PROVIDER_NAME = AttributeKey.stringKey("gen_ai.provider.name");
  public static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
  public static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
  public static final AttributeKey<Long> USAGE_INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
  public static final AttributeKey<Long> USAGE_OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");
  public static final AttributeKey<List<String>> RESPONSE_FINISH_REASONS =
      AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
  public static final AttributeKey<Long> REQUEST_MAX_TOKENS = AttributeKey.longKey("gen_ai.request.max_tokens");
  public static final AttributeKey<Double> REQUEST_TEMPERATURE = AttributeKey.doubleKey("gen_ai.request.temperature");
  public static final AttributeKey<Double> REQUEST_TOP_P = AttributeKey.doubleKey("gen_ai.request.top_p");
  /** On the token usage metric: {@link #TOKEN_TYPE_INPUT} or {@link #TOKEN_TYPE_OUTPUT}. */
  public static final AttributeKey<String> TOKEN_TYPE = AttributeKey.stringKey("gen_ai.token.type");
  public static final String TOKEN_TYPE_INPUT = "input";
  public static final String TOKEN_TYPE_OUTPUT = "output";
  /** Opt-in content (JSON, the conventions' message structure), redacted and bounded. */
  public static final AttributeKey<String> INPUT_MESSAGES = AttributeKey.stringKey("gen_ai.input.messages");
  public static final AttributeKey<String> OUTPUT_MESSAGES = AttributeKey.stringKey("gen_ai.output.messages");

  // ---- general attributes --------------------------------------------------------------------

  public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  public static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  public static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");

  // ---- vLLM / SGLang compatible keys (seconds; on by default, see the builder) ----------------

  /** Arrival until the request left the queue ({@code queue_ms}). */
  public static final AttributeKey<Double> LATENCY_TIME_IN_QUEUE = AttributeKey.doubleKey("gen_ai.latency.time_in_queue");
  /** Arrival until the first token ({@code ttft_ms}, queueing included, as vLLM counts it). */
  public static final AttributeKey<Double> LATENCY_TIME_TO_FIRST_TOKEN =
      AttributeKey.doubleKey("gen_ai.latency.time_to_first_token");
  /** Out of the queue until the first token: {@code ttft_ms - queue_ms}. */
  public static final AttributeKey<Double> LATENCY_TIME_IN_MODEL_PREFILL =
      AttributeKey.doubleKey("gen_ai.latency.time_in_model_prefill");
  /** First token until the last: {@code tpot_ms × (output_tokens - 1)}. */
  public static final AttributeKey<Double> LATENCY_TIME_IN_MODEL_DECODE =
      AttributeKey.doubleKey("gen_ai.latency.time_in_model_decode");
  /** Out of the queue until the response: {@code latency_ms - queue_ms}. */
  public static final AttributeKey<Double> LATENCY_TIME_IN_MODEL_INFERENCE =
      AttributeKey.doubleKey("gen_ai.latency.time_in_model_inference");
  /** Arrival until the response ({@code latency_ms}). */
  public static final AttributeKey<Double> LATENCY_E2E = AttributeKey.doubleKey("gen_ai.latency.e2e");

  // ---- trtrace.* (what operators need and the conventions lack) ------------------------------

  /** The request ID ({@code X-Request-ID}); the record carries {@code trace_id}, so each finds the other. */
  public static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("trtrace.request.id");
  public static final AttributeKey<String> STATUS = AttributeKey.stringKey("trtrace.status");
  public static final AttributeKey<String> ENGINE_FINGERPRINT = AttributeKey.stringKey("trtrace.engine.fingerprint");
  public static final AttributeKey<List<String>> INPUT_FLAGS = AttributeKey.stringArrayKey("trtrace.input.flags");
  public static final AttributeKey<List<String>> OUTPUT_FLAGS = AttributeKey.stringArrayKey("trtrace.output.flags");
  /** Seconds, like every duration attribute and metric here. */
  public static final AttributeKey<Double> QUEUE_TIME = AttributeKey.doubleKey("trtrace.queue.duration");
  public static final AttributeKey<Double> TIME_TO_FIRST_TOKEN = AttributeKey.doubleKey("trtrace.time_to_first_token");
  public static final AttributeKey<Double> TIME_PER_OUTPUT_TOKEN = AttributeKey.doubleKey("trtrace.time_per_output_token");
  /** Device time of the engine launches (CUDA events). */
  public static final AttributeKey<Double> GPU_TIME = AttributeKey.doubleKey("trtrace.gpu.duration");
  /**
   * Why the SDK kept the record ({@code error}, {@code timeout}, {@code slow}, {@code sampled}, ...);
   * absent when the SDK's sampling dropped it. A collector's tail sampling keys on it.
   */
  public static final AttributeKey<String> SAMPLED_REASON = AttributeKey.stringKey("trtrace.sampled_reason");
  /** True when the SDK kept the record for a reason other than head sampling: failure or slow. */
  public static final AttributeKey<Boolean> KEEP = AttributeKey.booleanKey("trtrace.keep");
  /** Event attributes of a TensorRT message attributed to the request. */
  public static final AttributeKey<String> EVENT_KIND = AttributeKey.stringKey("trtrace.event.kind");
  public static final AttributeKey<String> EVENT_SEVERITY = AttributeKey.stringKey("trtrace.event.severity");
  public static final AttributeKey<String> EVENT_MESSAGE = AttributeKey.stringKey("trtrace.event.message");
  /** Event name of one per-layer profile entry, and its attributes. */
  public static final String EVENT_LAYER = "tensorrt.layer";
  public static final AttributeKey<String> LAYER_NAME = AttributeKey.stringKey("trtrace.layer.name");
  public static final AttributeKey<Double> LAYER_DURATION = AttributeKey.doubleKey("trtrace.layer.duration");
  public static final AttributeKey<Long> LAYER_INVOCATIONS = AttributeKey.longKey("trtrace.layer.invocations");
  /** How many layers were not written as events because of the event limit. */
  public static final AttributeKey<Long> LAYERS_OMITTED = AttributeKey.longKey("trtrace.layers.omitted");
  /** On SDK health metrics. */
  public static final AttributeKey<String> DROP_REASON = AttributeKey.stringKey("trtrace.drop.reason");
  public static final AttributeKey<String> SINK_NAME = AttributeKey.stringKey("trtrace.sink.name");
  /** On the engine build metrics: {@code success} or {@code failure}. */
  public static final AttributeKey<String> BUILD_STATUS = AttributeKey.stringKey("trtrace.build.status");

  // ---- shared launches (batched serving): the launch span, its links, the request's summary ----

  /** Name of the span of one shared launch (an engine step or dynamic batch), linked to its members' request spans. */
  public static final String SPAN_LAUNCH = "trtrace.launch";
  public static final AttributeKey<Long> LAUNCH_ID = AttributeKey.longKey("trtrace.launch.id");
  public static final AttributeKey<String> LAUNCH_PHASE = AttributeKey.stringKey("trtrace.launch.phase");
  public static final AttributeKey<Long> LAUNCH_BATCH_SIZE = AttributeKey.longKey("trtrace.launch.batch_size");
  public static final AttributeKey<Long> LAUNCH_PREFILL_TOKENS = AttributeKey.longKey("trtrace.launch.prefill_tokens");
  public static final AttributeKey<Long> LAUNCH_DECODE_ROWS = AttributeKey.longKey("trtrace.launch.decode_rows");
  /** The launch's measured GPU time, seconds. */
  public static final AttributeKey<Double> LAUNCH_GPU_TIME = AttributeKey.doubleKey("trtrace.launch.gpu.duration");
  /** How the GPU time was split among members ({@code tokens}, {@code rows}, {@code equal}). */
  public static final AttributeKey<String> SHARE_METHOD = AttributeKey.stringKey("trtrace.gpu.share_method");
  /** On a launch span's link to a member: that member's share of the launch's GPU time, seconds (an estimate). */
  public static final AttributeKey<Double> GPU_SHARE = AttributeKey.doubleKey("trtrace.gpu.share");
  /** On the request span: its launches, summed up (the record's batching fields). */
  public static final AttributeKey<Long> LAUNCH_COUNT = AttributeKey.longKey("trtrace.launch.count");
  public static final AttributeKey<Long> FIRST_LAUNCH_ID = AttributeKey.longKey("trtrace.launch.first_id");
  public static final AttributeKey<Long> LAST_LAUNCH_ID = AttributeKey.longKey("trtrace.launch.last_id");
  public static final AttributeKey<Double> BATCH_SIZE_MEAN = AttributeKey.doubleKey("trtrace.batch_size.mean");
  public static final AttributeKey<Long> BATCH_SIZE_MAX = AttributeKey.longKey("trtrace.batch_size.max");
  public static final AttributeKey<Double> SLOT_WAIT_TIME = AttributeKey.doubleKey("trtrace.slot_wait.duration");
  public static final AttributeKey<Long> NEIGHBOUR_PREFILL_LAUNCHES = AttributeKey.longKey("trtrace.neighbour_prefill.launches");
  public static final AttributeKey<Double> NEIGHBOUR_PREFILL_TIME = AttributeKey.doubleKey("trtrace.neighbour_prefill.duration");
  /** {@code "<request_id>:<prefill_tokens>"} of the neighbours whose prefill shared its launches, most first. */
  public static final AttributeKey<List<String>> SLOWED_BY = AttributeKey.stringArrayKey("trtrace.slowed_by");
  public static final AttributeKey<Long> PREEMPTIONS = AttributeKey.longKey("trtrace.preemptions");
  public static final AttributeKey<Double> PREEMPTED_TIME = AttributeKey.doubleKey("trtrace.preempted.duration");
  /** The request's launches that failed (the record's {@code failed_launches}); the last one's ID is below. */
  public static final AttributeKey<Long> FAILED_LAUNCHES = AttributeKey.longKey("trtrace.launch.failed_count");
  public static final AttributeKey<Long> FAILED_LAUNCH_ID = AttributeKey.longKey("trtrace.launch.failed_id");
  /** Launch metrics: members per launch, and host time per launch (attribute: phase only, never request IDs). */
  public static final String METRIC_LAUNCH_BATCH_SIZE = "trtrace.launch.batch_size";
  public static final List<Long> BUCKETS_LAUNCH_BATCH_SIZE = List.of(1L, 2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 512L, 1024L);
  public static final String METRIC_LAUNCH_DURATION = "trtrace.launch.duration";
  public static final List<Double> BUCKETS_LAUNCH_DURATION =
      List.of(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0);

  // ---- metrics (GenAI server metrics, with the conventions' bucket advice) -------------------

  public static final String METRIC_REQUEST_DURATION = "gen_ai.server.request.duration";
  public static final List<Double> BUCKETS_REQUEST_DURATION =
      List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92);

  public static final String METRIC_TIME_TO_FIRST_TOKEN = "gen_ai.server.time_to_first_token";
  public static final List<Double> BUCKETS_TIME_TO_FIRST_TOKEN =
      List.of(0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0);

  public static final String METRIC_TIME_PER_OUTPUT_TOKEN = "gen_ai.server.time_per_output_token";
  public static final List<Double> BUCKETS_TIME_PER_OUTPUT_TOKEN =
      List.of(0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5);

  /**
   * Tokens per request by {@link #TOKEN_TYPE}. The conventions define token usage for clients only
   * ({@code gen_ai.client.token.usage}); the server-side twin lives under {@code trtrace.*} with the
   * client metric's buckets until the conventions add one.
   */
  public static final String METRIC_TOKEN_USAGE = "trtrace.server.token.usage";
  public static final List<Long> BUCKETS_TOKEN_USAGE =
      List.of(1L, 4L, 16L, 64L, 256L, 1024L, 4096L, 16384L, 65536L, 262144L, 1048576L, 4194304L, 16777216L, 67108864L);

  /** Queue time per request (vLLM's {@code request_queue_time_seconds}), request-duration buckets. */
  public static final String METRIC_QUEUE_DURATION = "trtrace.server.queue.duration";

  public static final String METRIC_TENSORRT_EVENTS = "trtrace.tensorrt.events";
  public static final String METRIC_BUILD_DURATION = "trtrace.engine.build.duration";
  public static final List<Double> BUCKETS_BUILD_DURATION =
      List.of(1.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0);
  /** Fraction of network layers fused into engine layers by a build (0..1). */
  public static final String METRIC_BUILD_FUSION_RATE = "trtrace.engine.build.fusion_rate";
  public static final List<Double> BUCKETS_FUSION_RATE =
      List.of(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0);

  // SDK health (asynchronous instruments reading the tracer's counters at each collection)
  public static final String METRIC_QUEUE_DEPTH = "trtrace.dispatcher.queue.depth";
  public static final String METRIC_RECORDS_WRITTEN = "trtrace.records.written";
  public static final String METRIC_RECORDS_DROPPED = "trtrace.records.dropped";
  public static final String METRIC_RECORDS_SAMPLED_OUT = "trtrace.records.sampled_out";
  public static final String METRIC_SINK_RECORDS_LOST = "trtrace.sink.records.lost";
  public static final String METRIC_SINK_FAILURES = "trtrace.sink.failures";

  public static final String UNIT_SECONDS = "s";
  public static final String UNIT_TOKENS = "{token}";
  public static final String UNIT_RECORDS = "{record}";

  // ---- MDC keys while the request span is current --------------------------------------------

  public static final String MDC_TRACE_ID = "trace_id";
  public static final String MDC_SPAN_ID = "span_id";

  // ---- opt-in content capture ----------------------------------------------------------------

  /** System property (and, upper-cased with underscores, environment variable) enabling content capture. */
  public static final String CAPTURE_CONTENT_PROPERTY = "otel.instrumentation.genai.capture-message-content";
  public static final String CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
}
