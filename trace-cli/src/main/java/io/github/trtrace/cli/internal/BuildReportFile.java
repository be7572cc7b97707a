package io.github.trtrace.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The parts of a TensorRT build report ({@code *.build.json}, as trace-tensorrt's {@code BuildReport}
 * writes it) that the diff and the gate compare. Read with Jackson; unknown fields are ignored;
 * unknown numbers are -1, as in the file.
 *
 * @param status {@code success} or {@code failed}
 * @param modelName model or engine name
 * @param tensorrtVersion TensorRT version, or null
 * @param networkLayerCount layers in the network, -1 unknown
 * @param engineLayerCount layers in the engine, -1 unknown
 * @param absorbedLayers network layers absorbed into fused engine layers (sum over fused groups)
 * @param layers engine layers: name and precision
 * @param deviceMemoryBytes device memory, -1 unknown
 * @param planBytes plan size, -1 unknown
 * @param warnings warning lines
 * @param errors error messages
 */
record BuildReportFile(String status, String modelName, @Nullable String tensorrtVersion, int networkLayerCount,
    int engineLayerCount, long absorbedLayers, List<Layer> layers, long deviceMemoryBytes, long planBytes,
    List<String> warnings, List<String> errors) {

  /** An engine layer's name and precision (null unknown). */
  record Layer(String name, @Nullable String precision) {}

  static final String SUCCESS = "success";
  static final String FAILED = "failed";

  /** Reads a report; a clear {@link IllegalArgumentException} when it is not one. */
  static BuildReportFile read(Path file) throws IOException {
    JsonNode n;
    try {
      n = new ObjectMapper().readTree(file.toFile());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(file + " is not JSON: " + e.getOriginalMessage(), e);
    }
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException(file + " is not a build report (expected a JSON object)");
    }
    String status = n.path("status").asText("");
    if (!status.equals(SUCCESS) && !status.equals(FAILED)) {
      throw new IllegalArgumentException(file + " is not a build report: status must be success or failed, was '" + status + "'");
    }
    List<Layer> layers = new ArrayList<>();
    for (JsonNode l : n.path("layers")) {
      layers.add(new Layer(l.path("name").asText(""), text(l.get("precision"))));
    }
    long absorbed = 0;
    for (JsonNode g : n.path("fused_groups")) {
      absorbed += g.path("network_layers").size();
    }
    List<String> warnings = new ArrayList<>();
    n.path("warnings").forEach(w -> warnings.add(w.asText()));
    List<String> errors = new ArrayList<>();
    n.path("errors").forEach(e -> errors.add(e.path("message").asText("")));
    return new BuildReportFile(status, n.path("model_name").asText(""), text(n.get("tensorrt_version")),
        n.path("network_layer_count").asInt(-1), n.path("engine_layer_count").asInt(-1), absorbed, layers,
        n.path("device_memory_bytes").asLong(-1), n.path("plan_bytes").asLong(-1), warnings, errors);
  }

  /** Network layers absorbed into fused engine layers over all network layers; NaN when unknown. */
  double fusionRate() {
    if (networkLayerCount <= 0) {
      return Double.NaN;
    }
    return Math.min(1.0, (double) absorbedLayers / networkLayerCount);
  }

  private static @Nullable String text(@Nullable JsonNode v) {
    return v == null || v.isNull() ? null : v.asText();
  }
}
