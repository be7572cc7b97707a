package io.github.trtrace.core.sink;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The size-based rollover of {@link JsonLinesFileSink}: when a line is due to start a new file, and
 * the renaming of {@code <name>} to {@code <name>.1} (older ones shifted, the oldest beyond {@code
 * maxRotatedFiles} deleted), with a back-off after a failure. Called from the sink's one thread.
 */
final class Rotation {
  private static final long ROTATION_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long MAX_ROTATION_BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Path file;
  private final long maxFileBytes;
  private final int maxRotatedFiles;
  private final Mover mover;
  private final RotatedFileCompressor compressor;
  private final boolean gzipRotated;
  /** After a failed rotation: no new attempt before this time (nanoTime); the backoff doubles. */
  private long rotationRetryAtNanos;
  private long rotationBackoffNanos;
  private long rotationFailures;

  Rotation(
      Path file,
      long maxFileBytes,
      int maxRotatedFiles,
      Mover mover,
      RotatedFileCompressor compressor,
      boolean gzipRotated) {
    this.file = file;
    this.maxFileBytes = maxFileBytes;
    this.maxRotatedFiles = maxRotatedFiles;
    this.mover = mover;
    this.compressor = compressor;
    this.gzipRotated = gzipRotated;
    this.rotationRetryAtNanos = System.nanoTime();
  }

  /**
   * Tidies up what a JVM that died mid-rotation or mid-compression left beside the file, before the sink
   * writes: a {@code <name>.N.gz.tmp} (a compression cut short) is deleted; a {@code <name>.N.gz} beside
   * its {@code <name>.N} (the crash came between moving the one into place and deleting the other) is
   * deleted, the plain file being the original; a plain {@code <name>.N} is compressed when {@code
   * gzipRotated}, on the compressor's thread, as a rotation would have. Each index still holds one file,
   * so retention counts as before. Failures are logged, never thrown: the log itself matters more.
   */
  void recoverLeftovers() {
    Path dir = file.toAbsolutePath().getParent();
    String prefix = file.getFileName() + ".";
    List<Integer> plain = new ArrayList<>();
    try (DirectoryStream<Path> siblings = Files.newDirectoryStream(dir, p -> p.getFileName().toString().startsWith(prefix))) {
      for (Path p : siblings) {
        Matcher m = LEFTOVER.matcher(p.getFileName().toString().substring(prefix.length()));
        if (!m.matches()) {
          continue;
        }
        if (m.group(2) != null) {
          Files.deleteIfExists(p);
        } else if (m.group(1) == null) {
          try {
            plain.add(Integer.parseInt(m.group(0)));
          } catch (NumberFormatException tooLarge) {
            // not an index this sink ever wrote
          }
        }
      }
      for (int index : plain) {
        Files.deleteIfExists(sibling(index, true));
        if (gzipRotated) {
          compressor.start(sibling(index, false), sibling(index, true));
        }
      }
    } catch (IOException | RuntimeException e) {
      JsonLinesFileSink.WARN.warn("could not tidy up the rotated files of {} left by an earlier run: {}", file, e.toString());
    }
  }

  /** The rest of a rotated file's name after {@code <name>.}: {@code N}, {@code N.gz} or {@code N.gz.tmp}. */
  private static final Pattern LEFTOVER = Pattern.compile("[0-9]+(\\.gz(\\.tmp)?)?");

  /** Failed rotations so far. */
  long failures() {
    return rotationFailures;
  }

  /**
   * Whether a line of {@code lineLength} bytes would take a file of {@code pendingBytes} past {@code
   * maxFileBytes} (0: never), unless a failed rotation's back-off is still running.
   */
  boolean due(long pendingBytes, int lineLength) {
    return maxFileBytes > 0
        && pendingBytes > 0
        && pendingBytes + lineLength > maxFileBytes
        && System.nanoTime() - rotationRetryAtNanos >= 0;
  }

  /**
   * Called with an empty buffer, between records. A failure leaves every rotated file in place,
   * keeps writing to the current file, and backs off (1 s, doubling up to a minute) before the next
   * attempt, so a lasting failure costs one attempt a back-off, not one a record.
   */
  void rotate(LineFileWriter writer) throws IOException {
    compressor.await(); // the newest rotated file is about to move
    writer.closeForRotation();
    Path plain = sibling(1, false);
    boolean moved = false;
    try {
      if (maxRotatedFiles == 0) {
        Files.deleteIfExists(file);
        deleteRotatedFrom(1); // those an earlier run, configured to keep some, left
      } else {
        shiftRotated();
        mover.move(file, plain);
        moved = true;
      }
      rotationBackoffNanos = 0;
      rotationRetryAtNanos = System.nanoTime();
    } catch (IOException e) {
      // records matter more than rotation: keep appending to the current file, try again later
      rotationFailures++;
      rotationBackoffNanos =
          rotationBackoffNanos == 0 ? ROTATION_BACKOFF_NANOS : Math.min(2 * rotationBackoffNanos, MAX_ROTATION_BACKOFF_NANOS);
      rotationRetryAtNanos = System.nanoTime() + rotationBackoffNanos;
      JsonLinesFileSink.WARN.warn(
          "could not rotate {} ({} failures so far); still writing to it, next attempt in {} ms: {}",
          file, rotationFailures, TimeUnit.NANOSECONDS.toMillis(rotationBackoffNanos), e.toString());
    }
    try {
      writer.reopen();
    } finally {
      // also when the reopen failed: the renamed file is complete, and the next rotation shifts it
      if (moved && gzipRotated) {
        compressor.start(plain, sibling(1, true));
      }
    }
  }

  /**
   * Renames {@code .k} to {@code .k+1} below the first free index, newest last. Only when every
   * index up to {@code maxRotatedFiles} is taken does the oldest go (retention); after a rotation
   * that failed half-way there is a free index, so a retry deletes nothing.
   */
  private void shiftRotated() throws IOException {
    int free = 0;
    for (int k = 1; k <= maxRotatedFiles; k++) {
      if (!Files.exists(sibling(k, false)) && !Files.exists(sibling(k, true))) {
        free = k;
        break;
      }
    }
    if (free == 0) {
      // files beyond the limit, left by a run configured to keep more: deleted too
      deleteRotatedFrom(maxRotatedFiles + 1);
      Files.deleteIfExists(sibling(maxRotatedFiles, false));
      Files.deleteIfExists(sibling(maxRotatedFiles, true));
      free = maxRotatedFiles;
    }
    for (int k = free - 1; k >= 1; k--) {
      for (int z = 0; z < 2; z++) {
        Path from = sibling(k, z == 1);
        if (Files.exists(from)) {
          mover.move(from, sibling(k + 1, z == 1));
        }
      }
    }
  }

  /** Deletes the rotated files from index {@code first} up, as long as each next index is taken. */
  private void deleteRotatedFrom(int first) throws IOException {
    for (int k = first; k >= first && (Files.exists(sibling(k, false)) || Files.exists(sibling(k, true))); k++) {
      Files.deleteIfExists(sibling(k, false));
      Files.deleteIfExists(sibling(k, true));
    }
  }

  private Path sibling(int index, boolean gz) {
    return file.resolveSibling(file.getFileName() + "." + index + (gz ? ".gz" : ""));
  }
}
