package io.github.trtrace.core.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A real size-limited file system for disk-full tests: a tmpfs mounted for the test (needs root, as
 * CI has). Where mounting is impossible the test is skipped with the reason, except under CI
 * (environment variable {@code CI} set), where that is a failure.
 */
public final class Tmpfs implements AutoCloseable {
  private final Path mountPoint;

  private Tmpfs(Path mountPoint) {
    this.mountPoint = mountPoint;
  }

  public static Tmpfs mount(String size) throws Exception {
    Path dir = Files.createTempDirectory("trtrace-tmpfs");
    String result = run("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0755", "tmpfs", dir.toString());
    if (result != null) {
      Files.deleteIfExists(dir);
      String why = "cannot mount a " + size + " tmpfs (needs root): " + result;
      if (System.getenv("CI") != null) {
        Assertions.fail(why);
      }
      Assumptions.abort(why);
    }
    return new Tmpfs(dir);
  }

  public Path path() {
    return mountPoint;
  }

  /** Fills the file system up to its last {@code leaveBytes} with a file; returns that file. */
  public Path fillLeaving(long leaveBytes) throws IOException {
    Path filler = mountPoint.resolve("filler");
    long free = Files.getFileStore(mountPoint).getUsableSpace();
    byte[] chunk = new byte[4096];
    try (var out = Files.newOutputStream(filler)) {
      for (long written = 0; written + chunk.length <= free - leaveBytes; written += chunk.length) {
        out.write(chunk);
      }
    }
    return filler;
  }

  @Override
  public void close() throws Exception {
    String result = run("umount", mountPoint.toString());
    if (result != null) {
      throw new IllegalStateException("could not unmount " + mountPoint + ": " + result);
    }
    Files.deleteIfExists(mountPoint);
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return String.join(" ", command) + " timed out";
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + out;
  }
}
