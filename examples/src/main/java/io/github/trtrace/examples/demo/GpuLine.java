package io.github.trtrace.examples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The GPU line the demo prints under a slow request served on the GPU: the roofline attributes the
 * TensorRT backend put on its record ({@code gpu.bound}, arithmetic intensity, achieved bandwidth and
 * FLOP rate as shares of the peaks, overall, for the decode steps and for the prefill) and NVML's
 * memory-bandwidth utilisation from the poller. CPU records have none, so nothing is printed for them.
 */
final class GpuLine {
  private static final ObjectMapper JSON = new ObjectMapper();

  private GpuLine() {}

  /** The GPU figures ({@code gpu_ms}, {@code gpu_mem_util_*}, {@code gpu.*} attributes) of the given requests. */
  static Map<String, Map<String, String>> read(Path log, Set<String> ids) throws IOException {
    Map<String, Map<String, String>> out = new HashMap<>();
    if (ids.isEmpty()) {
      return out;
    }
    try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode n;
        try {
          n = JSON.readTree(line);
        } catch (IOException malformed) {
          continue; // trtrace stats counts malformed lines; the GPU line only reads what parses
        }
        String id = n.path("request_id").asText(null);
        if (id != null && ids.contains(id)) {
          out.put(id, figures(n));
        }
      }
    }
    return out;
  }

  static Map<String, String> figures(JsonNode n) {
    Map<String, String> g = new TreeMap<>();
    for (String f : new String[] {"gpu_ms", "gpu_mem_util_mean", "gpu_mem_util_max"}) {
      if (n.has(f)) {
        g.put(f, n.get(f).asText());
      }
    }
    n.path("attributes").fields().forEachRemaining(e -> {
      if (e.getKey().startsWith("gpu.")) {
        g.put(e.getKey(), e.getValue().asText());
      }
    });
    return g;
  }

  /** One line for a GPU record; null when the record has no roofline attributes (a CPU record). */
  static @Nullable String summary(Map<String, String> gpu) {
    String bound = gpu.get("gpu.bound");
    if (bound == null) {
      return null;
    }
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
        "GPU %s ms: %s-bound by the roofline (%s FLOP/B), %s GB/s = %.0f%% of peak bandwidth, %.1f%% of peak FLOP/s",
        gpu.getOrDefault("gpu_ms", "?"), bound, gpu.get("gpu.arith_intensity"), gpu.get("gpu.mem_bw_gbs"),
        100 * num(gpu, "gpu.mem_bw_util"), 100 * num(gpu, "gpu.flops_util")));
    if (gpu.containsKey("gpu.decode.bound")) {
      sb.append(String.format(Locale.ROOT, "; decode steps %s-bound at %.0f%% of peak bandwidth",
          gpu.get("gpu.decode.bound"), 100 * num(gpu, "gpu.decode.mem_bw_util")));
    }
    if (gpu.containsKey("gpu.prefill.bound")) {
      sb.append(String.format(Locale.ROOT, "; prefill %s-bound at %.0f%% of peak FLOP/s",
          gpu.get("gpu.prefill.bound"), 100 * num(gpu, "gpu.prefill.flops_util")));
    }
    if (gpu.containsKey("gpu_mem_util_mean")) {
      sb.append("; NVML gpu_mem_util mean ").append(gpu.get("gpu_mem_util_mean")).append(" % max ")
          .append(gpu.getOrDefault("gpu_mem_util_max", "?")).append(" %");
    }
    return sb.toString();
  }

  private static double num(Map<String, String> gpu, String key) {
    try {
      return Double.parseDouble(gpu.getOrDefault(key, "NaN"));
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}
