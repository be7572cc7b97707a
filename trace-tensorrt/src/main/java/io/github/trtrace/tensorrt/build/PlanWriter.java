package io.github.trtrace.tensorrt.build;

import io.github.trtrace.tensorrt.model.build.BuildFingerprint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Streams a serialized plan from where TensorRT left it (native memory of any size, 2 GiB and more) to
 * its file and through the fingerprint's SHA-256 in one pass, one chunk at a time: the plan is never
 * copied into a Java array. The file is written beside its final name and moved into place when
 * complete, so a reader never sees half a plan.
 *
 * <pre>{@code
 * PlanWriter.Written w = PlanWriter.write(PlanWriter.Source.of(size, (off, len) -> slice(off, len)), planPath);
 * reportBuilder.planBytes(w.bytes()); // then BuildFingerprint.of(w.digest(), report) once the report is known
 * }</pre>
 */
final class PlanWriter {
  /** Chunk size of the copy: small against any plan, large enough that the per-chunk cost vanishes. */
  static final int DEFAULT_CHUNK = 8 << 20;

  /** The plan's bytes, read in slices of at most {@link Integer#MAX_VALUE}. */
  public interface Source {
    /** Size in bytes (may exceed {@link Integer#MAX_VALUE}). */
    long size();

    /** A buffer holding bytes {@code [offset, offset + length)}, positioned at 0 with limit {@code length}. */
    ByteBuffer slice(long offset, int length);

    /** A source of {@code size} bytes served by {@code slicer}. */
    static Source of(long size, Slicer slicer) {
      Objects.requireNonNull(slicer, "slicer");
      if (size < 0) {
        throw new IllegalArgumentException("size must be >= 0: " + size);
      }
      return new Source() {
        @Override
        public long size() {
          return size;
        }

        @Override
        public ByteBuffer slice(long offset, int length) {
          return slicer.slice(offset, length);
        }
      };
    }
  }

  /** Serves one slice of a {@link Source}. */
  @FunctionalInterface
  public interface Slicer {
    ByteBuffer slice(long offset, int length);
  }

  /**
   * What was written.
   *
   * @param bytes plan size
   * @param digest SHA-256 fed the plan bytes, not finished (see {@link BuildFingerprint#of(MessageDigest,
   *     io.github.trtrace.tensorrt.model.build.BuildReport)})
   * @param chunks how many slices were read
   */
  public record Written(long bytes, MessageDigest digest, long chunks) {}

  private PlanWriter() {}

  /** Writes {@code source} to {@code file} (or only hashes it when {@code file} is null). */
  public static Written write(Source source, @Nullable Path file) throws IOException {
    return write(source, file, DEFAULT_CHUNK);
  }

  static Written write(Source source, @Nullable Path file, int chunkBytes) throws IOException {
    Objects.requireNonNull(source, "source");
    if (chunkBytes < 1) {
      throw new IllegalArgumentException("chunkBytes must be >= 1: " + chunkBytes);
    }
    MessageDigest sha = BuildFingerprint.sha256();
    long size = source.size();
    long chunks = 0;
    Path partial = file == null ? null : file.resolveSibling(file.getFileName() + ".partial");
    try (FileChannel out = partial == null ? null : FileChannel.open(partial,
        StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      for (long offset = 0; offset < size; offset += chunkBytes) {
        int length = (int) Math.min(chunkBytes, size - offset);
        ByteBuffer chunk = source.slice(offset, length);
        if (chunk.remaining() != length) {
          throw new IOException("plan source returned " + chunk.remaining() + " bytes for a slice of " + length
              + " at offset " + offset);
        }
        chunks++;
        if (out != null) {
          ByteBuffer forFile = chunk.duplicate();
          while (forFile.hasRemaining()) {
            out.write(forFile);
          }
        }
        sha.update(chunk);
      }
      if (out != null) {
        out.force(false);
      }
    } catch (IOException | RuntimeException e) {
      if (partial != null) {
        Files.deleteIfExists(partial);
      }
      throw e;
    }
    if (partial != null) {
      Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
    return new Written(size, sha, chunks);
  }
}
