package io.github.trtrace.examples.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Staging for the GPU host, as a new user runs it: {@code examples/src/gpu/stage-demo.sh .gpu/demo} from the
 * repository root (the reproduce line of GPU-RESULTS.md). The script runs for real in a copy of the tree's layout;
 * only {@code mvn} is replaced, by a stand-in that copies each module's jars into its {@code -DoutputDirectory}
 * resolved against that module's folder, as Maven does.
 */
class GpuStagingTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir Path tmp;

  @Test
  void aRelativeDestinationIsTheCallersFolderAndGetsEveryModulesJars() throws Exception {
    Path root = tmp.resolve("repo");
    Path script = root.resolve("examples/src/gpu/stage-demo.sh");
    Files.createDirectories(script.getParent());
    Files.copy(ROOT.resolve("examples/src/gpu/stage-demo.sh"), script);
    Files.writeString(root.resolve("pom.xml"), "<project><properties><slf4j.version>2.0.17</slf4j.version></properties></project>\n");
    touch(root.resolve("examples/target/examples-0.1.0-SNAPSHOT.jar"));
    Path m2 = tmp.resolve("m2");
    for (String jar : List.of("org/bytedeco/javacpp/1.5.11/javacpp-1.5.11-linux-x86_64.jar",
        "org/bytedeco/cuda/12.6-9.5-1.5.11/cuda-12.6-9.5-1.5.11-linux-x86_64.jar",
        "org/bytedeco/tensorrt/10.6-1.5.11/tensorrt-10.6-1.5.11-linux-x86_64.jar",
        "org/slf4j/slf4j-simple/2.0.17/slf4j-simple-2.0.17.jar")) {
      touch(m2.resolve(jar));
    }
    Path bin = tmp.resolve("bin");
    Files.createDirectories(bin);
    Path mvn = bin.resolve("mvn");
    // Maven resolves a relative -DoutputDirectory against each module's basedir
    Files.writeString(mvn, """
        #!/usr/bin/env bash
        out=""
        for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${a#-DoutputDirectory=}";; esac; done
        [ -z "$out" ] && exit 0
        for m in trace-core trace-tensorrt examples; do
          (mkdir -p "$m" && cd "$m" && mkdir -p "$out" && touch "$out/$m-0.1.0-SNAPSHOT.jar")
        done
        """);
    Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path caller = tmp.resolve("caller");
    Files.createDirectories(caller);

    ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), ".gpu/demo").directory(caller.toFile())
        .redirectErrorStream(true);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().put("M2_REPO", m2.toString());
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();

    Path dest = caller.resolve(".gpu/demo");
    assertThat(names(dest)).as("everything staged in the folder the user named, relative to where they ran it")
        .contains("trace-core-0.1.0-SNAPSHOT.jar", "trace-tensorrt-0.1.0-SNAPSHOT.jar", "examples-0.1.0-SNAPSHOT.jar",
            "javacpp-1.5.11-linux-x86_64.jar", "tensorrt-10.6-1.5.11-linux-x86_64.jar", "slf4j-simple-2.0.17.jar");
    try (Stream<Path> all = Files.walk(root)) {
      assertThat(all.filter(x -> x.endsWith(".gpu"))).as("no .gpu folder left in the tree").isEmpty();
    }
  }

  @Test
  void gpuStagingFoldersAreIgnoredAtEveryDepth() throws Exception {
    assumeTrue(Files.exists(ROOT.resolve(".git")), "not a git checkout");
    for (String path : List.of(".gpu/demo/a.jar", "examples/.gpu/demo/a.jar", "trace-core/.gpu/demo/a.jar")) {
      Process p = new ProcessBuilder("git", "check-ignore", "-q", "--no-index", path).directory(ROOT.toFile()).start();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(path + " ignored").isZero();
    }
  }

  private static void touch(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, new byte[0]);
  }

  private static List<String> names(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(x -> x.getFileName().toString()).sorted().toList();
    }
  }
}
