package io.github.trtrace.cli.internal;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;

/**
 * Generated trtrace JSON Lines logs with known answers: latency grows by {@link #SLOPE_BEFORE} ms per
 * input token up to {@link #KNEE} tokens and by {@link #SLOPE_AFTER} above it (or one straight line),
 * one request in {@link #BIDI_EVERY} carries {@code bidi_control} and has a flagged output, one in
 * {@link #ERROR_EVERY} fails. IDs are {@code api-demo-<n>}.
 */
final class SyntheticLog {
  static final int KNEE = 1024;
  static final double BASE_MS = 300;
  static final double SLOPE_BEFORE = 0.2;
  static final double SLOPE_AFTER = 1.7;
  static final int BIDI_EVERY = 37;
  static final int ERROR_EVERY = 53;
  static final Instant START = Instant.parse("2026-12-01T08:00:00Z");

  private final SplittableRandom random;
  private final boolean knee;
  private long next;

  SyntheticLog(long seed, boolean knee) {
    this.random = new SplittableRandom(seed);
    this.knee = knee;
  }

  /** Expected compute latency at {@code tokens}. */
  static double latencyAt(double tokens, boolean knee) {
    return BASE_MS + SLOPE_BEFORE * tokens + (knee ? (SLOPE_AFTER - SLOPE_BEFORE) * Math.max(0, tokens - KNEE) : 0);
  }

  /** The next record as one JSON line (no newline). */
  String line() {
    long n = next++;
    long tokens = random.nextDouble() < 0.8 ? 16 + random.nextInt(1000) : 1024 + random.nextInt(1600);
    double compute = latencyAt(tokens, knee) * (0.95 + 0.1 * random.nextDouble());
    double queue = -Math.log(1 - random.nextDouble()) * 15;
    boolean bidi = n % BIDI_EVERY == 7;
    boolean error = n % ERROR_EVERY == 11;
    StringBuilder sb = new StringBuilder(320);
    Instant ts = START.plusNanos(n * 40_000_000L);
    String t = ts.toString();
    if (t.length() == 20) {
      t = t.substring(0, 19) + ".000000Z";
    } else {
      t = String.format(Locale.ROOT, "%s.%06dZ", t.substring(0, 19), ts.getNano() / 1000);
    }
    sb.append("{\"timestamp\":\"").append(t).append("\",\"request_id\":\"api-demo-").append(n)
        .append("\",\"model_name\":\"tiny-llm\",\"status\":\"").append(error ? "error" : "success").append('"');
    if (error) {
      sb.append(",\"error_type\":\"CudaError\"");
    }
    sb.append(String.format(Locale.ROOT, ",\"latency_ms\":%.3f,\"input_tokens\":%d,\"output_tokens\":64", compute + queue, tokens));
    sb.append(String.format(Locale.ROOT, ",\"queue_ms\":%.3f,\"preprocess_ms\":1.25,\"infer_ms\":%.3f,\"gpu_ms\":%.3f,\"decode_ms\":%.3f,\"postprocess_ms\":0.5",
        queue, compute * 0.4, compute * 0.35, compute * 0.6 - 1.75));
    if (bidi) {
      sb.append(",\"input_flags\":[\"bidi_control\"],\"output_flags\":[\"replacement_char\"],\"finish_reason\":\"length\"");
    }
    sb.append(",\"gpu_util_mean\":71.5,\"max_tokens\":64}");
    return sb.toString();
  }

  /** Writes {@code lines} records to {@code file} (gzipped when the name ends in .gz), each ending in a newline. */
  void write(Path file, long lines) throws IOException {
    OutputStream os = Files.newOutputStream(file);
    if (file.getFileName().toString().endsWith(".gz")) {
      os = new GZIPOutputStream(os, 1 << 16);
    }
    try (Writer w = new BufferedWriter(new OutputStreamWriter(os, StandardCharsets.UTF_8), 1 << 16)) {
      for (long i = 0; i < lines; i++) {
        w.write(line());
        w.write('\n');
      }
    }
  }

  /** Appends raw text (e.g. a torn line or garbage) to a plain file. */
  static void append(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
  }
}
