package io.github.trtrace.core.fault;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a child JVM for the process-level fault tests: JDK 25 when installed (property {@code
 * trtrace.test.childJavaHome}, else {@code /usr/lib/jvm/temurin-25-jdk-amd64}), else the running JVM.
 * Collects stdout and stderr; {@link Running#terminate()} sends SIGTERM, {@link Running#kill()}
 * SIGKILL.
 */
public final class ChildJvm {
  private static final Path JDK25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

  private final List<String> classpath;

  private ChildJvm(List<String> classpath) {
    this.classpath = classpath;
  }

  /** The test class path of this JVM (trace-core's classes as the tests see them). */
  public static ChildJvm withTestClasspath() {
    return new ChildJvm(List.of(System.getProperty("java.class.path")));
  }

  /**
   * Only {@code jar} for trace-core, plus what a host has anyway: SLF4J with Logback (logging to
   * stdout by default) and this class's own directory (the child programs).
   */
  public static ChildJvm withJar(Path jar) {
    List<String> cp = new ArrayList<>();
    cp.add(jar.toString());
    cp.add(locationOf(org.slf4j.LoggerFactory.class));
    cp.add(locationOf(ch.qos.logback.classic.Logger.class));
    cp.add(locationOf(ch.qos.logback.core.Appender.class));
    cp.add(locationOf(ChildJvm.class));
    return new ChildJvm(cp);
  }

  private static String locationOf(Class<?> c) {
    try {
      return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The java launcher the child runs on. */
  public static Path javaBinary() {
    String configured = System.getProperty("trtrace.test.childJavaHome");
    Path home = configured != null ? Path.of(configured) : Files.isDirectory(JDK25) ? JDK25 : Path.of(System.getProperty("java.home"));
    return home.resolve("bin").resolve("java");
  }

  public Running run(Class<?> main, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(javaBinary().toString());
    command.add("-Xmx256m");
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath));
    command.add(main.getName());
    command.addAll(List.of(args));
    return new Running(new ProcessBuilder(command).start());
  }

  /** A running child. */
  public static final class Running {
    private final Process process;
    private final Collector out;
    private final Collector err;

    Running(Process process) {
      this.process = process;
      this.out = new Collector(process.getInputStream());
      this.err = new Collector(process.getErrorStream());
    }

    /** Waits until stdout holds {@code text}; fails after {@code seconds}. */
    public Running awaitOutput(String text, long seconds) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (!out.text().contains(text)) {
        if (System.nanoTime() > deadline || !process.isAlive() && !out.text().contains(text)) {
          process.destroyForcibly();
          throw new AssertionError("child did not print '" + text + "': " + snapshot());
        }
        Thread.sleep(10);
      }
      return this;
    }

    /** SIGTERM (what {@code kill PID}, systemd and Kubernetes send first). */
    public Running terminate() throws IOException, InterruptedException {
      return signal("TERM");
    }

    /** SIGKILL: no shutdown hook runs. */
    public Running kill() throws IOException, InterruptedException {
      return signal("KILL");
    }

    /**
     * Sends the signal with {@code kill(1)} to this child's PID: {@link Process#destroy()} would close
     * our ends of the child's pipes, losing what its shutdown hooks print.
     */
    private Running signal(String name) throws IOException, InterruptedException {
      Process k = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      if (k.waitFor() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
      return this;
    }

    public Result awaitExit(long seconds) throws InterruptedException {
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError("child still running after " + seconds + " s: " + snapshot());
      }
      out.join();
      err.join();
      return snapshot();
    }

    private Result snapshot() {
      return new Result(process.isAlive() ? -1 : process.exitValue(), out.text(), err.text());
    }
  }

  /** What a child printed and how it ended (143 = SIGTERM, 137 = SIGKILL). */
  public record Result(int exitCode, String stdout, String stderr) {
    /** The value of {@code key=} on the child's {@code stats} line. */
    public long stat(String key) {
      for (String line : stdout.split("\n")) {
        if (line.startsWith("stats ")) {
          for (String part : line.split(" ")) {
            if (part.startsWith(key + "=")) {
              return Long.parseLong(part.substring(key.length() + 1));
            }
          }
        }
      }
      throw new AssertionError("no " + key + " on a stats line: " + this);
    }
  }

  private static final class Collector extends Thread {
    private final InputStream in;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    Collector(InputStream in) {
      this.in = in;
      setDaemon(true);
      start();
    }

    @Override
    public void run() {
      byte[] buf = new byte[8192];
      try {
        for (int n; (n = in.read(buf)) >= 0; ) {
          synchronized (bytes) {
            bytes.write(buf, 0, n);
          }
        }
      } catch (IOException ignored) {
        // the child is gone
      }
    }

    String text() {
      synchronized (bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
      }
    }

  }
}
