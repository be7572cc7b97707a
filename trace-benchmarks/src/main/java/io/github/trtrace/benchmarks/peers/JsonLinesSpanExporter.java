package io.github.trtrace.benchmarks.peers;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;

/**
 * The OpenTelemetry peer's exporter: one JSON line per span into a file (Jackson streaming), so the
 * OTel SDK's batch processor writes to disk as the other SDKs do and its spans can be counted.
 */
final class JsonLinesSpanExporter implements SpanExporter {
  private final BufferedWriter out;
  private final JsonGenerator json;

  JsonLinesSpanExporter(Path file) {
    try {
      out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
      json = new JsonFactory().createGenerator(out);
      json.setRootValueSeparator(null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized CompletableResultCode export(Collection<SpanData> spans) {
    try {
      for (SpanData s : spans) {
        json.writeStartObject();
        json.writeStringField("trace_id", s.getTraceId());
        json.writeStringField("span_id", s.getSpanId());
        json.writeStringField("parent_span_id", s.getParentSpanId());
        json.writeStringField("name", s.getName());
        json.writeNumberField("start_ns", s.getStartEpochNanos());
        json.writeNumberField("end_ns", s.getEndEpochNanos());
        json.writeObjectFieldStart("attributes");
        for (Map.Entry<AttributeKey<?>, Object> e : s.getAttributes().asMap().entrySet()) {
          json.writeStringField(e.getKey().getKey(), String.valueOf(e.getValue()));
        }
        json.writeEndObject();
        json.writeEndObject();
        json.flush();
        out.write('\n');
      }
      return CompletableResultCode.ofSuccess();
    } catch (IOException e) {
      return CompletableResultCode.ofFailure();
    }
  }

  @Override
  public synchronized CompletableResultCode flush() {
    try {
      out.flush();
      return CompletableResultCode.ofSuccess();
    } catch (IOException e) {
      return CompletableResultCode.ofFailure();
    }
  }

  @Override
  public synchronized CompletableResultCode shutdown() {
    try {
      json.close();
      out.close();
      return CompletableResultCode.ofSuccess();
    } catch (IOException e) {
      return CompletableResultCode.ofFailure();
    }
  }
}
