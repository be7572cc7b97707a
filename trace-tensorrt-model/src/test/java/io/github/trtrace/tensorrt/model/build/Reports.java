package io.github.trtrace.tensorrt.model.build;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/** Test reports built from the hand-written, documented-format inspector JSON. */
final class Reports {
  private Reports() {}

  static String resource(String path) {
    try (InputStream in = Reports.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static EngineInspection detailed() {
    return EngineInspection.parse(resource("/inspector/detailed.json"));
  }

  /** A complete successful report: every field set. */
  static BuildReport.Builder baseline() {
    return BuildReport.builder("llama-8b")
        .tensorrtVersion("10.15.1")
        .gpu("NVIDIA H200", "9.0")
        .driverVersion("580.159.04")
        .cudaRuntimeVersion("13.0")
        .builderFlag("FP16")
        .builderFlag("BF16")
        .precision("FP16")
        .optimizationLevel(3)
        .networkLayerCount(6)
        .inspection(detailed())
        .deviceMemoryBytes(1_000_000)
        .planBytes(4)
        .engineFingerprint(BuildFingerprint.of(new byte[] {1, 2, 3, 4}, "10.15.1", "9.0", "fp16", false, List.of("FP16", "BF16")))
        .buildMs(1234.5)
        .phase("Building engine", 1000.25)
        .phase("Tactic selection", 200.0)
        .warning("Detected layernorm in FP16")
        .createdAt(Instant.parse("2026-11-30T09:00:00.123456Z"));
  }
}
