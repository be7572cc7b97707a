package io.github.trtrace.core.sink;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Writes one gzip member (RFC 1952) at {@link Deflater#BEST_SPEED} whose deflate data is a run of
 * independently compressed segments of {@value #SEGMENT_BYTES} input bytes: each segment ends with a
 * full flush and the deflater starts the next one afresh, without the previous segment as history
 * (what pigz's {@code --independent} writes). Any gzip reader reads it as one ordinary member.
 *
 * <p>Why: zlib slides its 32 KiB window once it has taken in about 64 KiB, rewriting its whole hash
 * chain table each time (its {@code slide_hash}); at the fastest level on JSON Lines that was half of
 * the compressor's CPU (an async-profiler profile of a saturated file sink, on the zlib the JDK bundles).
 * A full flush leaves nothing for later data to refer back to (zlib clears its hash heads and, its input
 * consumed, starts again at the window's beginning), so with segments smaller than that the window never
 * slides; the reset then starts the next segment as a new raw stream. {@code RotatedGzipCost} in
 * trace-benchmarks: on the benchmarks' records (IDs from a pool, repeated values) 0.59x the CPU a byte for
 * files 1.33x as large (48:1 instead of 64:1); on records with random trace and span IDs and UUID request IDs
 * 0.91x for files 1.03x as large (3.7:1 instead of 3.8:1). BENCHMARKS.md has the runs.
 *
 * <p>Not thread-safe; {@link #close()} writes the trailer and closes the underlying stream.
 */
final class SegmentedGzipOutputStream extends OutputStream {
  /** Input bytes per independent segment: below the roughly 64 KiB at which zlib slides its window. */
  static final int SEGMENT_BYTES = 60 * 1024;

  /** Magic, deflate, no flags, no modification time, no extra flags, OS unknown. */
  private static final byte[] HEADER = {0x1f, (byte) 0x8b, Deflater.DEFLATED, 0, 0, 0, 0, 0, 0, (byte) 0xff};

  private final OutputStream out;
  private final Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
  private final CRC32 crc = new CRC32();
  private final byte[] segment = new byte[SEGMENT_BYTES];
  private final byte[] compressed;
  private int filled;
  private long total;
  private boolean closed;

  SegmentedGzipOutputStream(OutputStream out) throws IOException {
    this(out, 64 * 1024);
  }

  /** With {@code outputBytes} of room for compressed output per deflate call (tests make it small). */
  SegmentedGzipOutputStream(OutputStream out, int outputBytes) throws IOException {
    this.out = Objects.requireNonNull(out, "out");
    this.compressed = new byte[outputBytes];
    try {
      out.write(HEADER);
    } catch (IOException | RuntimeException e) {
      deflater.end(); // the caller closes out; the deflater's native memory is ours
      throw e;
    }
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    if (closed) {
      throw new IOException("stream closed");
    }
    while (len > 0) {
      int n = Math.min(len, SEGMENT_BYTES - filled);
      System.arraycopy(b, off, segment, filled, n);
      filled += n;
      off += n;
      len -= n;
      if (filled == SEGMENT_BYTES) {
        compressSegment(false);
      }
    }
  }

  /** Compresses the filled segment: the last one ends the deflate stream, any other ends with a full flush. */
  private void compressSegment(boolean last) throws IOException {
    crc.update(segment, 0, filled);
    total += filled;
    deflater.setInput(segment, 0, filled);
    filled = 0;
    if (last) {
      deflater.finish();
      while (!deflater.finished()) {
        out.write(compressed, 0, deflater.deflate(compressed));
      }
      return;
    }
    int n;
    do { // a full buffer may mean more output is pending: call again with the same flush
      n = deflater.deflate(compressed, 0, compressed.length, Deflater.FULL_FLUSH);
      out.write(compressed, 0, n);
    } while (n == compressed.length);
    deflater.reset(); // the next segment without this one as history
  }

  /** Compresses what is left, writes the trailer (CRC-32 and length mod 2^32, little-endian) and closes. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      compressSegment(true);
      long c = crc.getValue();
      out.write(new byte[] {
          (byte) c, (byte) (c >> 8), (byte) (c >> 16), (byte) (c >> 24),
          (byte) total, (byte) (total >> 8), (byte) (total >> 16), (byte) (total >> 24)});
    } finally {
      deflater.end();
      out.close();
    }
  }
}
