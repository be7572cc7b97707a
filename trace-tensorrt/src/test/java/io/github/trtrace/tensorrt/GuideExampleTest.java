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
 * The TensorRT guide's example (docs/tensorrt.md) is the code the GPU check runs: every code line of it
 * (comments and lone braces aside) is a line of the GPU check's sources (examples/src/gpu-check/trt10/java), which ran on the H200.
 */
class GuideExampleTest {

  static String code(String line) {
    int comment = line.indexOf("//");
    String s = (comment >= 0 ? line.substring(0, comment) : line).strip();
    return s.matches("[{}()\\[\\];,. ]*") ? "" : s;
  }

  @Test
  void everyLineOfTheGuidesTensorRtExampleIsInTheGpuCheck() throws IOException {
    String guide = Files.readString(Path.of("..", "docs", "tensorrt.md"));
    int section = guide.indexOf("\n## Example: the code the GPU check runs");
    assertThat(section).as("docs/tensorrt.md section").isPositive();
    int start = guide.indexOf("```java\n", section) + "```java\n".length();
    int end = guide.indexOf("```", start);
    List<String> example = guide.substring(start, end).lines().map(GuideExampleTest::code)
        .filter(s -> !s.isEmpty()).toList();
    Set<String> sources;
    try (Stream<Path> files = Files.walk(Path.of("..", "examples", "src", "gpu-check", "trt10", "java"))) {
      sources = files.filter(p -> p.toString().endsWith(".java")).flatMap(p -> {
        try {
          return Files.readAllLines(p).stream();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }).map(GuideExampleTest::code).collect(Collectors.toSet());
    }
    assertThat(example).hasSizeGreaterThan(15);
    assertThat(example).allSatisfy(l -> assertThat(sources).as("GPU check sources").contains(l));
  }
}
