package io.github.trtrace.tensorrt.model.build;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The JSON form of a {@link BuildReport} ({@code *.build.json}): snake_case fields in a stable order, unknown
 * numbers -1 ({@code build_ms} null), {@code fusion_rate} written for readers and recomputed when read. Unknown
 * fields are ignored, so reports from newer versions read; a known field of the wrong JSON type (a figure written
 * as a string) is refused with its name, not read as unknown.
 *
 * <pre>{@code
 * BuildReport r = BuildReportJson.read(Path.of("llama-8b.plan.build.json"));
 * Files.writeString(Path.of("copy.json"), BuildReportJson.toJson(r));
 * }</pre>
 */
public final class BuildReportJson {
  private BuildReportJson() {}

  /** The report as pretty-printed JSON. */
  public static String toJson(BuildReport report) {
    StringWriter w = new StringWriter();
    writeTo(report, w);
    return w.toString();
  }

  /** Writes {@link #toJson} to {@code file} (UTF-8), creating parent directories. */
  public static void write(BuildReport report, Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      writeTo(report, w);
    }
  }

  /**
   * Reads a report file.
   *
   * @throws IllegalArgumentException {@code "<file> is not a build report: <why>"} when it is not one
   */
  public static BuildReport read(Path file) throws IOException {
    String json = Files.readString(file, StandardCharsets.UTF_8);
    try {
      return read(json);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + " is not a build report: " + e.getMessage(), e);
    }
  }

  /**
   * Parses a report.
   *
   * @throws IllegalArgumentException when the text is not JSON or not a build report (no valid {@code status})
   */
  public static BuildReport read(String json) {
    Map<String, @Nullable Object> m = Json.object(Json.parse(json), "build report");
    BuildReport.Builder b = BuildReport.builder(Objects.requireNonNullElse(Json.string(m, "model_name"), ""))
        .status(BuildReport.Status.fromWire(Json.string(m, "status")))
        .tensorrtVersion(Json.string(m, "tensorrt_version"));
    Object gpu = m.get("gpu");
    if (gpu != null) {
      Map<String, @Nullable Object> g = Json.object(gpu, "gpu");
      b.gpu(Json.string(g, "name"), Json.string(g, "compute_capability"));
    }
    b.driverVersion(Json.string(m, "driver_version")).cudaRuntimeVersion(Json.string(m, "cuda_runtime_version"));
    Json.strings(m, "builder_flags").forEach(b::builderFlag);
    String precision = Json.string(m, "precision");
    b.precision(precision).stronglyTyped(Boolean.TRUE.equals(m.get("strongly_typed")))
        .optimizationLevel((int) Json.number(m, "optimization_level", -1))
        .networkLayerCount((int) Json.number(m, "network_layer_count", -1))
        .engineLayerCount((int) Json.number(m, "engine_layer_count", -1));
    for (Object o : Json.array(m.get("fused_groups"), "fused_groups")) {
      Map<String, @Nullable Object> g = Json.object(o, "fused group");
      b.fusedGroup(new BuildReport.FusedGroup(Objects.requireNonNullElse(Json.string(g, "engine_layer"), ""),
          Json.strings(g, "network_layers")));
    }
    for (Object o : Json.array(m.get("layers"), "layers")) {
      Map<String, @Nullable Object> l = Json.object(o, "layer");
      b.layer(new BuildReport.Layer(Objects.requireNonNullElse(Json.string(l, "name"), ""), Json.string(l, "type"),
          Json.string(l, "precision"), Json.strings(l, "output_types"), Json.string(l, "tactic")));
    }
    b.deviceMemoryBytes(Json.number(m, "device_memory_bytes", -1)).planBytes(Json.number(m, "plan_bytes", -1))
        .buildMs(Json.decimal(m, "build_ms"));
    for (Object o : Json.array(m.get("phases"), "phases")) {
      Map<String, @Nullable Object> p = Json.object(o, "phase");
      b.phase(Objects.requireNonNullElse(Json.string(p, "name"), ""), Json.decimal(p, "ms"));
    }
    b.progressEventsDropped(Json.number(m, "progress_events_dropped", -1));
    Json.strings(m, "warnings").forEach(b::warning);
    for (Object o : Json.array(m.get("errors"), "errors")) {
      Map<String, @Nullable Object> e = Json.object(o, "error");
      b.error(new BuildReport.BuildError((int) Json.number(e, "code", -1), Json.string(e, "category"),
          Objects.requireNonNullElse(Json.string(e, "message"), "")));
    }
    Json.strings(m, "log").forEach(b::logLine);
    Object d = m.get("diagnosis");
    if (d != null) {
      Map<String, @Nullable Object> dm = Json.object(d, "diagnosis");
      b.diagnosis(new BuildFailureDiagnosis(
          BuildFailureDiagnosis.Cause.fromWire(Json.string(dm, "cause")),
          Objects.requireNonNullElse(Json.string(dm, "summary"), ""),
          Json.string(dm, "missing_file"), Json.strings(dm, "fix_steps")));
    }
    b.engineFingerprint(Json.string(m, "engine_fingerprint"));
    String created = Json.string(m, "created_at");
    if (created != null) {
      try {
        b.createdAt(Instant.parse(created));
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("created_at is not an ISO-8601 instant: " + created, e);
      }
    }
    return b.build();
  }

  private static void writeTo(BuildReport r, Writer w) {
    try (JsonGenerator g = Json.FACTORY.createGenerator(w)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeStringField("status", r.status().wireName());
      g.writeStringField("model_name", r.modelName());
      g.writeStringField("tensorrt_version", r.tensorrtVersion());
      g.writeObjectFieldStart("gpu");
      g.writeStringField("name", r.gpu().name());
      g.writeStringField("compute_capability", r.gpu().computeCapability());
      g.writeEndObject();
      g.writeStringField("driver_version", r.driverVersion());
      g.writeStringField("cuda_runtime_version", r.cudaRuntimeVersion());
      strings(g, "builder_flags", r.builderFlags());
      g.writeStringField("precision", r.precision());
      g.writeBooleanField("strongly_typed", r.stronglyTyped());
      g.writeNumberField("optimization_level", r.optimizationLevel());
      g.writeNumberField("network_layer_count", r.networkLayerCount());
      g.writeNumberField("engine_layer_count", r.engineLayerCount());
      g.writeArrayFieldStart("fused_groups");
      for (BuildReport.FusedGroup f : r.fusedGroups()) {
        g.writeStartObject();
        g.writeStringField("engine_layer", f.engineLayer());
        strings(g, "network_layers", f.networkLayers());
        g.writeEndObject();
      }
      g.writeEndArray();
      decimal(g, "fusion_rate", r.fusionRate());
      g.writeArrayFieldStart("layers");
      for (BuildReport.Layer l : r.layers()) {
        g.writeStartObject();
        g.writeStringField("name", l.name());
        g.writeStringField("type", l.type());
        g.writeStringField("precision", l.precision());
        strings(g, "output_types", l.outputTypes());
        g.writeStringField("tactic", l.tactic());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeNumberField("device_memory_bytes", r.deviceMemoryBytes());
      g.writeNumberField("plan_bytes", r.planBytes());
      decimal(g, "build_ms", r.buildMs());
      g.writeArrayFieldStart("phases");
      for (BuildReport.Phase p : r.phases()) {
        g.writeStartObject();
        g.writeStringField("name", p.name());
        decimal(g, "ms", p.ms());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeNumberField("progress_events_dropped", r.progressEventsDropped());
      strings(g, "warnings", r.warnings());
      g.writeArrayFieldStart("errors");
      for (BuildReport.BuildError e : r.errors()) {
        g.writeStartObject();
        g.writeNumberField("code", e.code());
        g.writeStringField("category", e.category());
        g.writeStringField("message", e.message());
        g.writeEndObject();
      }
      g.writeEndArray();
      strings(g, "log", r.log());
      BuildFailureDiagnosis d = r.diagnosis();
      if (d == null) {
        g.writeNullField("diagnosis");
      } else {
        g.writeObjectFieldStart("diagnosis");
        g.writeStringField("cause", d.cause().wireName());
        g.writeStringField("summary", d.summary());
        g.writeStringField("missing_file", d.missingFile());
        strings(g, "fix_steps", d.fixSteps());
        g.writeEndObject();
      }
      g.writeStringField("engine_fingerprint", r.engineFingerprint());
      g.writeStringField("created_at", r.createdAt().toString());
      g.writeEndObject();
    } catch (IOException e) {
      Json.rethrow(e);
    }
  }

  private static void strings(JsonGenerator g, String field, List<String> values) throws IOException {
    g.writeArrayFieldStart(field);
    for (String v : values) {
      g.writeString(v);
    }
    g.writeEndArray();
  }

  private static void decimal(JsonGenerator g, String field, double v) throws IOException {
    if (Double.isFinite(v)) {
      g.writeNumberField(field, v);
    } else {
      g.writeNullField(field);
    }
  }
}
