package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.fault.ChildJvm;
import io.github.trtrace.core.fault.TracingChild;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged trace-core jar needs no {@code sun.misc.Unsafe}: a host JVM tracing requests with it
 * (JDK 25 when present, default settings, so JDK 24+ would print the "terminally deprecated method in
 * sun.misc.Unsafe" warning) prints nothing on stderr, and no class in the jar refers to Unsafe.
 * Runs in the integration-test phase, after {@code package}.
 */
class UnsafeFreeJarIT {

  @Test
  void hostJvmTracingWithThePackagedJarPrintsNothingOnStderr(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("inference.log");
    ChildJvm.Result r =
        ChildJvm.withJar(packagedJar())
            .run(TracingChild.class, log.toString(), "2000", "2", "0")
            .awaitExit(60);
    assertThat(r.exitCode()).as("child output: %s", r).isZero();
    assertThat(r.stderr()).as("child stderr").isEmpty();
    assertThat(r.stdout()).contains("ready");
    assertThat(Files.readAllLines(log)).as("the default shutdown hook wrote every record").hasSize(4000);
  }

  @Test
  void noClassInThePackagedJarRefersToSunMiscUnsafe() throws IOException {
    List<String> offenders = new ArrayList<>();
    byte[] needle = "sun/misc/Unsafe".getBytes(StandardCharsets.US_ASCII);
    try (JarFile jar = new JarFile(packagedJar().toFile())) {
      for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
        JarEntry entry = e.nextElement();
        if (entry.getName().endsWith(".class")) {
          try (InputStream in = jar.getInputStream(entry)) {
            if (contains(in.readAllBytes(), needle)) {
              offenders.add(entry.getName());
            }
          }
        }
      }
    }
    assertThat(offenders).isEmpty();
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static Path packagedJar() {
    String jar = System.getProperty("trtrace.test.packagedJar");
    assertThat(jar).as("system property trtrace.test.packagedJar (set by the failsafe run)").isNotNull();
    Path p = Path.of(jar);
    assertThat(p).exists();
    return p;
  }
}
