package io.github.trtrace.benchmarks;

import io.github.trtrace.core.RecordConvention;
import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InputFlag;
import io.github.trtrace.core.Status;
import java.time.Instant;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encoder throughput: one full record (every field set) into a reused buffer, as the file sink does,
 * against a named peer in the same JVM: Jackson's streaming {@code JsonGenerator} (jackson-core)
 * writing the same fields into a reused {@code StringWriter}. The peer does less: by default it
 * does not escape U+2028/U+2029 or bidi and zero-width controls, and does not bound string lengths.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class RecordJsonBenchmark {
  private InferenceRecord full;
  private InferenceRecord adversarial;
  private final StringBuilder buffer = new StringBuilder(2048);

  /** The record every encoder case writes: every field set (also {@link SinkEncodeCost}'s record). */
  static InferenceRecord sampleRecord() {
    return
        InferenceRecord.builder("req-01hq3k5w8x9y2z3a4b5c6d7e8f", "llama-3.1-8b-instruct")
            .timestamp(Instant.parse("2026-11-30T08:00:00.123456Z"))
            .status(Status.SUCCESS)
            .latencyMs(412.337)
            .traceId("4bf92f3577b34da6a3ce929d0e0e4736")
            .spanId("00f067aa0ba902b7")
            .inputTokens(512)
            .outputTokens(128)
            .queueMs(12.5)
            .preprocessMs(1.75)
            .inferMs(380.25)
            .gpuMs(371.125)
            .decodeMs(390.5)
            .postprocessMs(0.5)
            .ttftMs(45.25)
            .tpotMs(2.75)
            .gpuUtil(87)
            .gpuMemUsedMb(61_440)
            .engineFingerprint("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
            .sampledReason("sampled")
            .attribute("tenant", "acme")
            .attribute("route", "/v1/chat/completions")
            .build();
  }

  @Setup
  public void setUp() {
    full = sampleRecord();
    adversarial =
        full.toBuilder()
            .modelName("model \"quoted\"\n\u2028\u202e\u200b\ud800 end")
            .inputFlags(EnumSet.of(InputFlag.BIDI_CONTROL, InputFlag.ZERO_WIDTH))
            .status(Status.ERROR)
            .errorType("java.lang.IllegalStateException: \u0000\u0007 bad")
            .build();
  }

  private final com.fasterxml.jackson.core.JsonFactory jackson = new com.fasterxml.jackson.core.JsonFactory();
  private final java.io.StringWriter jacksonOut = new java.io.StringWriter(2048);

  /** Peer: the same record's fields through Jackson's streaming generator. */
  @Benchmark
  public int jacksonStreamingPeer() throws java.io.IOException {
    jacksonOut.getBuffer().setLength(0);
    InferenceRecord r = full;
    try (com.fasterxml.jackson.core.JsonGenerator g = jackson.createGenerator(jacksonOut)) {
      g.writeStartObject();
      g.writeStringField("timestamp", r.timestamp().toString());
      g.writeStringField("request_id", r.requestId());
      g.writeStringField("model_name", r.modelName());
      g.writeStringField("status", r.status().wireName());
      g.writeNumberField("latency_ms", r.latencyMs());
      g.writeStringField("trace_id", r.traceId());
      g.writeStringField("span_id", r.spanId());
      g.writeNumberField("input_tokens", r.inputTokens());
      g.writeNumberField("output_tokens", r.outputTokens());
      g.writeNumberField("queue_ms", r.queueMs());
      g.writeNumberField("preprocess_ms", r.preprocessMs());
      g.writeNumberField("infer_ms", r.inferMs());
      g.writeNumberField("gpu_ms", r.gpuMs());
      g.writeNumberField("decode_ms", r.decodeMs());
      g.writeNumberField("postprocess_ms", r.postprocessMs());
      g.writeNumberField("ttft_ms", r.ttftMs());
      g.writeNumberField("tpot_ms", r.tpotMs());
      g.writeNumberField("gpu_util", r.gpuUtil());
      g.writeNumberField("gpu_mem_used_mb", r.gpuMemUsedMb());
      g.writeStringField("engine_fingerprint", r.engineFingerprint());
      g.writeStringField("sampled_reason", r.sampledReason());
      g.writeObjectFieldStart("attributes");
      for (java.util.Map.Entry<String, String> a : r.attributes().entrySet()) {
        g.writeStringField(a.getKey(), a.getValue());
      }
      g.writeEndObject();
      g.writeEndObject();
    }
    jacksonOut.write('\n');
    return jacksonOut.getBuffer().length();
  }

  @Benchmark
  public int fullRecord() {
    buffer.setLength(0);
    RecordConvention.appendJsonLine(full, buffer);
    return buffer.length();
  }

  @Benchmark
  public int adversarialRecord() {
    buffer.setLength(0);
    RecordConvention.appendJsonLine(adversarial, buffer);
    return buffer.length();
  }

  private final io.github.trtrace.core.internal.json.RecordJson.Utf8Lines utf8 =
      new io.github.trtrace.core.internal.json.RecordJson.Utf8Lines();

  /** What the file sink does per record since issue 22: the line straight into UTF-8 bytes. */
  @Benchmark
  public int fullRecordUtf8() {
    utf8.encode(full);
    return utf8.length();
  }

  @Benchmark
  public int adversarialRecordUtf8() {
    utf8.encode(adversarial);
    return utf8.length();
  }
}
