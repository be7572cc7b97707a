package io.github.trtrace.core.sink;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.internal.log.RateLimitedLogger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes records as JSON Lines (UTF-8, one {@link io.github.trtrace.core.RecordConvention#toJson JSON object} a line) to a file, with
 * buffering, time-based flushing, optional fsync and size-based rotation.
 *
 * <p><b>Whole lines only.</b> Each record is encoded completely before any byte of it is written,
 * and the buffer is written as whole lines, so a crash leaves at most one torn line, the last one.
 * When the file is opened and does not end with a line feed (a torn line from a crash), the sink
 * starts with a line feed, so the torn line never merges with a new record. When a write fails
 * (disk full), the sink cuts the file back to the last complete line, throws an {@link IOException}
 * saying how many lines were lost (also counted by {@link #linesLost()}), and keeps working: the
 * next write succeeds once space is available again.
 *
 * <p><b>Rotation.</b> Before a record would take the file past {@code maxFileBytes}, the file is
 * renamed to {@code <name>.1} (older ones shift to {@code .2}, {@code .3}, ...; the newest is always
 * {@code .1}; beyond {@code maxRotatedFiles} they are deleted) and a new file is started. Rotation
 * only happens between records. With {@code gzipRotated} (the default) the rotated file is
 * compressed to {@code <name>.1.gz} (gzip at its fastest level, in independent 60 KiB segments: one ordinary gzip
 * member for any reader, for 0.59x the CPU of one deflate stream on repetitive lines and 0.91x on lines with
 * random IDs, files 1.33x and 1.03x as large) on a daemon thread of the sink's own, so
 * writing goes on meanwhile (the next rotation waits for it, should it come first). When compression fails, the plain
 * {@code .1} file is kept. What a JVM that died mid-rotation or mid-compression left is tidied up when the
 * sink is built: a stray {@code <name>.N.gz.tmp} is deleted, a {@code <name>.N.gz} beside its plain {@code
 * <name>.N} is deleted (the plain file is the original), and a plain {@code <name>.N} is compressed.
 * When a rotation fails (a rename refused), no rotated file is deleted: the sink keeps writing to the
 * current file, counts the failure ({@link #rotationFailures()}), logs it and tries again after a
 * back-off (1 s, doubling up to a minute). A path that is not a regular file ({@code /dev/stdout}, a
 * named pipe) is written to but never rotated.
 *
 * <p><b>Permissions.</b> Files the sink creates get {@code rw-r-----} (0640) unless configured
 * otherwise with {@link Builder#filePermissions(String)}; never world-readable by default.
 *
 * <p>Not thread-safe: the dispatcher calls {@link #write}, {@link #flush} and {@link #close} from
 * its one worker thread. Flushing by time happens inside those calls; the sink has no thread.
 *
 * <pre>{@code
 * RecordSink sink = JsonLinesFileSink.builder(Path.of("logs/inference.log"))
 *     .flushInterval(Duration.ofSeconds(1))
 *     .maxFileBytes(100L << 20)
 *     .maxRotatedFiles(10)
 *     .build();
 * }</pre>
 */
public final class JsonLinesFileSink implements RecordSink {
  // As Log4j2 splits layout, appender and manager, this class only takes batches, keeps the counts
  // and flushes by time: JsonLineEncoder makes the line, LineFileWriter buffers and writes it (whole
  // lines, fsync), Rotation rolls the file over and RotatedFileCompressor gzips the rolled file.

  private static final Logger LOG = LoggerFactory.getLogger(JsonLinesFileSink.class);
  /** Shared by the rotation and the compression of rotated files. */
  static final RateLimitedLogger WARN = RateLimitedLogger.of(LOG, 10_000);

  private final long flushIntervalNanos;
  private final String name;
  private final JsonLineEncoder encoder = new JsonLineEncoder();
  private final LineFileWriter writer;
  private final Rotation rotation;
  private final RotatedFileCompressor compressor;

  private long lastFlushNanos;
  private long linesLost;
  private boolean closed;

  private JsonLinesFileSink(Builder b) throws IOException {
    Path file = b.file;
    this.flushIntervalNanos = saturatedNanos(b.flushInterval);
    Set<PosixFilePermission> permissions = b.permissions;
    ChannelOpener opener = b.opener != null ? b.opener : f -> ChannelOpener.open(f, permissions);
    this.writer = new LineFileWriter(file, opener, b.fsync);
    this.compressor = new RotatedFileCompressor(file, b.compressor, permissions);
    this.name = "jsonl:" + file;
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    writer.open();
    // /dev/stdout, a named pipe: a stream, not a file; renamed away, a regular file would take its place
    // (as root, in /dev) and gzipping the renamed pipe would wait forever for a writer
    boolean regular = Files.isRegularFile(file);
    this.rotation = new Rotation(
        file, regular ? b.maxFileBytes : 0, b.maxRotatedFiles, b.mover, compressor, b.gzipRotated);
    if (regular) {
      rotation.recoverLeftovers();
    }
    lastFlushNanos = System.nanoTime();
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }

  /** Starts configuring a sink writing to {@code file} (created with its directories if missing). */
  public static Builder builder(Path file) {
    return new Builder(file);
  }

  @Override
  public String name() {
    return name;
  }

  /** Lines written to the file (or its rotated predecessors) since the sink was built. */
  public long linesWritten() {
    return writer.linesWritten();
  }

  /** Lines that could not be written because of I/O errors since the sink was built. */
  public long linesLost() {
    return linesLost;
  }

  /**
   * {@link #linesWritten()} and {@link #linesLost()}: a record counts as written once the file write
   * that carried its line returned, not when it entered the buffer.
   */
  @Override
  public Delivery delivery() {
    return new Delivery(writer.linesWritten(), linesLost);
  }

  /**
   * Encodes and buffers the batch, writing whole lines; flushes when the flush interval has passed.
   *
   * @throws IOException when lines could not be written; the message says how many, the file keeps
   *     only complete lines, and the sink keeps working
   */
  @Override
  public void write(List<InferenceRecord> batch) throws IOException {
    if (closed) {
      linesLost += batch.size();
      throw new IOException(name + " is closed; " + batch.size() + " lines not written");
    }
    int i = 0;
    try {
      writer.ensureOpen();
      for (; i < batch.size(); i++) {
        encoder.encode(batch.get(i));
        append();
      }
      if (System.nanoTime() - lastFlushNanos >= flushIntervalNanos) {
        flushAndSync();
      }
    } catch (IOException e) {
      throw failure(e, batch.size() - i);
    } catch (RuntimeException e) {
      // not expected from the encoder; counted all the same, so that nothing is lost silently
      throw failure(new IOException(e.toString(), e), batch.size() - i);
    }
  }

  static {
    io.github.trtrace.core.internal.batch.LaunchLog.install((sink, line) -> ((JsonLinesFileSink) sink).writeLine(line));
  }

  /**
   * Buffers one pre-encoded JSON line (the launch log's), exactly as a record's: same buffering, flush
   * interval, rotation, durability and counters.
   */
  private void writeLine(CharSequence encoded) throws IOException {
    if (closed) {
      linesLost++;
      throw new IOException(name + " is closed; 1 line not written");
    }
    try {
      writer.ensureOpen();
      encoder.encode(encoded);
      append();
      if (System.nanoTime() - lastFlushNanos >= flushIntervalNanos) {
        flushAndSync();
      }
    } catch (IOException e) {
      throw failure(e, 1);
    } catch (RuntimeException e) {
      throw failure(new IOException(e.toString(), e), 1);
    }
  }

  /** Writes buffered lines to the file, and forces them to the device when fsync is on. */
  @Override
  public void flush() throws IOException {
    if (closed) {
      return;
    }
    try {
      writer.ensureOpen();
      flushAndSync();
    } catch (IOException e) {
      throw failure(e, 0);
    }
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      writer.flushForClose();
    } catch (IOException e) {
      throw failure(e, 0);
    } finally {
      writer.closeChannel();
      compressor.close();
    }
  }

  /** Failed rotations since the sink was built (each followed by a back-off, history kept). */
  public long rotationFailures() {
    return rotation.failures();
  }

  // ---------------------------------------------------------------------------------------------

  /** Puts the encoded record into the buffer, rotating first when it would not fit the file. */
  private void append() throws IOException {
    byte[] line = encoder.bytes();
    int lineLength = encoder.length();
    if (rotation.due(writer.pendingBytes(), lineLength)) {
      writer.writeBuffer();
      rotation.rotate(writer);
    }
    writer.append(line, lineLength);
  }

  private void flushAndSync() throws IOException {
    writer.flush();
    lastFlushNanos = System.nanoTime();
  }

  private IOException failure(IOException cause, int notEncoded) {
    long lost = writer.takePendingLost() + notEncoded;
    linesLost += lost;
    return new IOException(
        name + ": " + lost + " lines not written (" + linesLost + " lost in total): " + cause.getMessage(),
        cause);
  }

  /** Configures a {@link JsonLinesFileSink}. */
  public static final class Builder {
    private final Path file;
    private Duration flushInterval = Duration.ofSeconds(1);
    private boolean fsync;
    private long maxFileBytes = 100L << 20;
    private int maxRotatedFiles = 10;
    private boolean gzipRotated = true;
    private @Nullable Set<PosixFilePermission> permissions = ChannelOpener.DEFAULT_PERMISSIONS;
    private @Nullable ChannelOpener opener;
    private Mover mover = Mover.DEFAULT;
    private @Nullable Executor compressor;

    private Builder(Path file) {
      this.file = Objects.requireNonNull(file, "file");
      if (file.getFileName() == null) {
        throw new IllegalArgumentException("file must name a file, not a root: " + file);
      }
    }

    /**
     * Longest time a written record may stay in the buffer when writes keep coming (default 1 s;
     * zero writes through on every batch). The dispatcher's {@code flush()} flushes regardless.
     */
    public Builder flushInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.isNegative()) {
        throw new IllegalArgumentException("flushInterval must be >= 0: " + interval);
      }
      this.flushInterval = interval;
      return this;
    }

    /** Whether each flush also forces the data to the device ({@code FileChannel.force}); default off. */
    public Builder fsync(boolean fsync) {
      this.fsync = fsync;
      return this;
    }

    /** Rotate before the file would exceed this size (default 100 MiB); 0 turns rotation off. */
    public Builder maxFileBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("maxFileBytes must be >= 0 (0 = no rotation): " + bytes);
      }
      this.maxFileBytes = bytes;
      return this;
    }

    /**
     * Rotated files kept (default 10); 0 discards the old file on rotation, and with it the rotated files
     * an earlier run kept.
     */
    public Builder maxRotatedFiles(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("maxRotatedFiles must be >= 0: " + count);
      }
      this.maxRotatedFiles = count;
      return this;
    }

    /** Whether rotated files are gzip-compressed to {@code <name>.N.gz} (default true). */
    public Builder gzipRotated(boolean gzip) {
      this.gzipRotated = gzip;
      return this;
    }

    /**
     * POSIX permissions of the files the sink creates (the log and its rotated copies), as {@code
     * ls -l} writes them; default {@code "rw-r-----"} (0640: never world-readable, the records name
     * requests and may carry attributes). Applied exactly, whatever the umask; an existing file keeps
     * its permissions. Ignored on file systems without POSIX permissions.
     *
     * @throws IllegalArgumentException if not nine characters of {@code rwx-}
     */
    public Builder filePermissions(String permissions) {
      Objects.requireNonNull(permissions, "permissions");
      try {
        this.permissions = PosixFilePermissions.fromString(permissions);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "filePermissions must look like \"rw-r-----\" (as ls -l writes them): " + permissions, e);
      }
      return this;
    }

    Builder channelOpener(ChannelOpener opener) {
      this.opener = Objects.requireNonNull(opener, "opener");
      return this;
    }

    Builder mover(Mover mover) {
      this.mover = Objects.requireNonNull(mover, "mover");
      return this;
    }

    Builder compressor(Executor compressor) {
      this.compressor = Objects.requireNonNull(compressor, "compressor");
      return this;
    }

    /**
     * Opens (or creates) the file and returns the sink.
     *
     * @throws IOException if the file or its directories cannot be created or opened
     */
    public JsonLinesFileSink build() throws IOException {
      return new JsonLinesFileSink(this);
    }
  }
}
