package io.github.trtrace.core.sink;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Gzips a rotated log file to {@code <name>.N.gz} off the writing thread, one file at a time; when
 * compression fails, the plain file is kept. Called from the sink's one thread.
 */
final class RotatedFileCompressor {

  private final Executor executor;
  private final @Nullable ExecutorService ownExecutor;
  private final @Nullable Set<PosixFilePermission> permissions;
  /** The compressions started and not yet awaited, running on the executor; null when none. */
  private @Nullable CompletableFuture<Void> compression;

  /** Compresses on {@code executor}, or on a daemon thread of its own when null. */
  RotatedFileCompressor(Path file, @Nullable Executor executor, @Nullable Set<PosixFilePermission> permissions) {
    this.permissions = permissions;
    if (executor != null) {
      this.executor = executor;
      this.ownExecutor = null;
    } else {
      // one daemon thread per sink, started on the first rotation (Log4j2 also compresses rotated
      // files asynchronously): the dispatcher's sink thread never waits for gzip
      ThreadPoolExecutor pool =
          new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "trtrace-gzip-" + file.getFileName());
            t.setDaemon(true);
            return t;
          });
      this.executor = pool;
      this.ownExecutor = pool;
    }
  }

  /**
   * Starts compressing {@code plain} to {@code gz}, beside those already started ({@link #await()} waits
   * for all); {@code plain} must not move until then.
   */
  void start(Path plain, Path gz) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> before = compression;
    compression = before == null ? done : CompletableFuture.allOf(before, done);
    try {
      executor.execute(() -> {
        try {
          compress(plain, gz);
        } finally {
          done.complete(null);
        }
      });
    } catch (RuntimeException rejected) {
      done.complete(null);
      JsonLinesFileSink.WARN.warn("could not compress rotated log {}; kept it uncompressed: {}", plain, rejected.toString());
    }
  }

  /** Waits for every compression started, if any is running. */
  void await() {
    CompletableFuture<Void> c = compression;
    if (c != null) {
      c.join();
      compression = null;
    }
  }

  /** Waits for a running compression and stops the own thread, if any. */
  void close() {
    await();
    if (ownExecutor != null) {
      ownExecutor.shutdown();
    }
  }

  private void compress(Path plain, Path gz) {
    Path tmp = gz.resolveSibling(gz.getFileName() + ".tmp");
    try {
      try (InputStream in = Files.newInputStream(plain);
          OutputStream file = Channels.newOutputStream(ChannelOpener.create(tmp, permissions));
          // gzip at its fastest level, in independent segments (SegmentedGzipOutputStream says why)
          OutputStream out = new SegmentedGzipOutputStream(file)) {
        in.transferTo(out);
      }
      Files.move(tmp, gz, StandardCopyOption.REPLACE_EXISTING);
      Files.delete(plain);
    } catch (IOException | RuntimeException e) {
      JsonLinesFileSink.WARN.warn("could not compress rotated log {}; kept it uncompressed: {}", plain, e.toString());
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // nothing more to do: a stray .tmp file is harmless
      }
    }
  }
}
