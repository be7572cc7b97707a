package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rotated .gz cut inside its 10-byte header (the copy stopped right after it began) ended stats with
 * "trtrace stats: inference.log.1.gz: null", exit 2: no reason, and against docs/cli.md, which says a gzip file cut
 * short is counted, never fatal, as it is when the cut falls in the compressed data.
 */
class GzipHeaderCutTest {
  @TempDir Path dir;

  private static final String REC = "{\"timestamp\":\"2026-12-01T09:00:00.000000Z\",\"request_id\":\"api-live\","
      + "\"model_name\":\"m\",\"status\":\"success\",\"latency_ms\":10}\n";

  @Test
  void aGzipCutInsideItsHeaderIsCountedAsTruncatedNotFatal() throws IOException {
    byte[] gz;
    try (ByteArrayOutputStream bytes = new ByteArrayOutputStream(); GZIPOutputStream out = new GZIPOutputStream(bytes)) {
      out.write(REC.getBytes(StandardCharsets.UTF_8));
      out.finish();
      gz = bytes.toByteArray();
    }
    Files.write(dir.resolve("inference.log.1.gz"), Arrays.copyOf(gz, 6));
    Files.writeString(dir.resolve("inference.log"), REC);
    Cli r = Cli.run("stats", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("inference.log.1.gz", "truncated");
    Cli f = Cli.run("find", "api-live", dir.toString());
    assertThat(f.code()).as(f.err()).isZero();
  }
}
