package io.github.trtrace.core.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rotated files are gzip in independent segments: whatever is written comes back byte for byte from the
 * JDK's reader and from the {@code gzip} program, at every size around a segment's edge, for text that
 * compresses well and bytes that do not, written at once or in odd pieces; and its files are about as
 * small as one deflate stream's.
 */
class SegmentedGzipOutputStreamTest {
  private static final int SEGMENT = SegmentedGzipOutputStream.SEGMENT_BYTES;

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 1000, SEGMENT - 1, SEGMENT, SEGMENT + 1, 2 * SEGMENT, 3 * SEGMENT + 17, 1 << 20})
  void everySizeComesBackByteForByteFromTheJdkAndFromGzip(int size) throws Exception {
    for (byte[] data : new byte[][] {jsonLines(size), random(size)}) {
      byte[] gz = gzip(data, size % 7 + 1);

      assertThat(gunzipJdk(gz)).isEqualTo(data);
      assertThat(gunzipTool(gz)).isEqualTo(data);
      assertThat(gz[0] & 0xff).isEqualTo(0x1f);
      assertThat(gz[1] & 0xff).isEqualTo(0x8b);
    }
  }

  /** Output room smaller than a segment's compressed bytes: every flush needs more than one deflate call. */
  @ParameterizedTest
  @ValueSource(ints = {SEGMENT - 1, 3 * SEGMENT + 17})
  void aFlushThatOutgrowsTheOutputBufferLosesNothing(int size) throws Exception {
    for (byte[] data : new byte[][] {jsonLines(size), random(size)}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (SegmentedGzipOutputStream g = new SegmentedGzipOutputStream(out, 100)) {
        g.write(data);
      }

      assertThat(gunzipJdk(out.toByteArray())).isEqualTo(data);
      assertThat(gunzipTool(out.toByteArray())).isEqualTo(data);
    }
  }

  /**
   * A segment refers to nothing before it: the second segment opens with a copy of the first one's last
   * 16 KiB (within deflate's 32 KiB reach), so with history it would shrink by about that much; random
   * bytes without history cannot shrink at all.
   */
  @Test
  void aSegmentDoesNotReferBackToTheOneBefore() throws IOException {
    byte[] first = random(SEGMENT);
    byte[] data = java.util.Arrays.copyOf(first, 2 * SEGMENT);
    System.arraycopy(first, SEGMENT - 16 * 1024, data, SEGMENT, 16 * 1024);
    System.arraycopy(random(SEGMENT - 16 * 1024 + 1), 0, data, SEGMENT + 16 * 1024, SEGMENT - 16 * 1024);

    byte[] gz = gzip(data, data.length);

    assertThat(gunzipJdk(gz)).isEqualTo(data);
    assertThat(gz.length).isGreaterThan(data.length);
  }

  @Test
  void recordsCompressAboutAsWellAsOneDeflateStream() throws IOException {
    byte[] data = jsonLines(8 << 20);
    ByteArrayOutputStream plain = new ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream g = new java.util.zip.GZIPOutputStream(plain)) {
      g.write(data);
    }
    byte[] segmented = gzip(data, data.length);

    assertThat((double) data.length / segmented.length).isGreaterThan(10);
    assertThat(segmented.length).isLessThan(plain.size() * 2);
  }

  @Test
  void writingAfterCloseFailsAndClosingTwiceIsHarmless() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SegmentedGzipOutputStream g = new SegmentedGzipOutputStream(out);
    g.write('x');
    g.close();
    int length = out.size();
    g.close();

    assertThat(out.size()).isEqualTo(length);
    assertThatThrownBy(() -> g.write('y')).isInstanceOf(IOException.class).hasMessageContaining("closed");
    assertThat(gunzipJdk(out.toByteArray())).containsExactly('x');
  }

  /** Written in pieces of {@code piece} bytes (the last one shorter), as a copy loop writes it. */
  private static byte[] gzip(byte[] data, int piece) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (SegmentedGzipOutputStream g = new SegmentedGzipOutputStream(out)) {
      for (int off = 0; off < data.length; off += piece) {
        g.write(data, off, Math.min(piece, data.length - off));
      }
    }
    return out.toByteArray();
  }

  private static byte[] gunzipJdk(byte[] gz) throws IOException {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
      return in.readAllBytes();
    }
  }

  /** The {@code gzip} program an operator would use on a rotated file (present on the CI image). */
  private byte[] gunzipTool(byte[] gz) throws Exception {
    assumeThat(Path.of("/usr/bin/gzip")).as("gzip installed").exists();
    Path file = Files.write(dir.resolve("t.gz"), gz);
    Process p = new ProcessBuilder("/usr/bin/gzip", "-dc", file.toString()).redirectErrorStream(false).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
    return out;
  }

  private static byte[] jsonLines(int size) {
    StringBuilder sb = new StringBuilder(size + 200);
    for (int i = 0; sb.length() < size; i++) {
      sb.append("{\"timestamp\":\"2026-12-06T08:00:00.").append(String.format("%06d", i % 1_000_000))
          .append("Z\",\"request_id\":\"req-").append(i).append("\",\"model_name\":\"llama-8b\",\"latency_ms\":")
          .append(i % 977).append(".25}\n");
    }
    sb.setLength(size);
    return sb.toString().getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] random(int size) {
    byte[] b = new byte[size];
    new Random(size).nextBytes(b);
    return b;
  }
}
