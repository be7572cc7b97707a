package io.github.trtrace.tensorrt;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's TensorRT example is the code the GPU check runs: every code line of it (comments and
 * lone braces aside) is a line of the GPU check's sources (examples/src/gpu-check/trt10/java), which ran on the H200.
 */
class ReadmeExampleTest {

  static String code(String line) {
    int comment = line.indexOf("//");
    String s = (comment >= 0 ? line.substring(0, comment) : line).strip();
    return s.matches("[{}()\\[\\];,. ]*") ? "" : s;
  }

  @Test
  void everyLineOfTheReadmeTensorRtExampleIsInTheGpuCheck() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"));
    int section = readme.indexOf("### Example: the code the GPU check runs");
    assertThat(section).as("README section").isPositive();
    int start = readme.indexOf("```java\n", section) + "```java\n".length();
    int end = readme.indexOf("```", start);
    List<String> example = readme.substring(start, end).lines().map(ReadmeExampleTest::code)
        .filter(s -> !s.isEmpty()).toList();
    Set<String> sources;
    try (Stream<Path> files = Files.walk(Path.of("..", "examples", "src", "gpu-check", "trt10", "java"))) {
      sources = files.filter(p -> p.toString().endsWith(".java")).flatMap(p -> {
        try {
          return Files.readAllLines(p).stream();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }).map(ReadmeExampleTest::code).collect(Collectors.toSet());
    }
    assertThat(example).hasSizeGreaterThan(15);
    assertThat(example).allSatisfy(l -> assertThat(sources).as("GPU check sources").contains(l));
  }
}
