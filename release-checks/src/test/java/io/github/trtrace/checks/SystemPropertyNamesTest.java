package io.github.trtrace.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The tracer warns about a {@code trtrace.*} system property no part of trtrace reads (a misspelt setting),
 * from the list of names it knows ({@code UnknownSettings} in trace-core). A module that starts reading a new
 * property must add it there, or every user who sets it gets a false warning: this check finds each {@code
 * trtrace.*} property a library module reads (a constant named {@code *PROPERTY} or a {@code System.getProperty},
 * {@code Boolean.getBoolean}, {@code Integer.getInteger} or {@code Long.getLong} call with the name) and
 * asserts that the list names it.
 */
class SystemPropertyNamesTest {

  private static final Pattern READ =
      Pattern.compile("(?:PROPERTY\\s*=\\s*|get(?:Property|Boolean|Integer|Long)\\(\\s*)\"(trtrace\\.[A-Za-z0-9._-]+)\"");

  @Test
  void everyTrtracePropertyALibraryReadsIsOneTheUnknownSettingsCheckKnows() throws IOException {
    Path root = Reactor.root();
    String known = Files.readString(
        root.resolve("trace-core/src/main/java/io/github/trtrace/core/internal/trace/UnknownSettings.java"));
    Set<String> read = new TreeSet<>();
    try (Stream<Path> dirs = Files.list(root)) {
      dirs.filter(d -> d.getFileName().toString().startsWith("trace-"))
          .map(d -> d.resolve("src/main/java"))
          .filter(Files::isDirectory)
          .forEach(src -> read.addAll(propertiesRead(src)));
    }
    // the check sees the ones known today, so it would see a new one
    assertThat(read).contains("trtrace.context.storage", "trtrace.kernels.sample", "trtrace.cupti.reuseBuffers");
    for (String name : read) {
      assertThat(known).as("UnknownSettings lists %s, which a module reads", name).contains("\"" + name + "\"");
    }
  }

  private static Set<String> propertiesRead(Path src) {
    Set<String> names = new TreeSet<>();
    try (Stream<Path> files = Files.walk(src)) {
      files.filter(f -> f.toString().endsWith(".java")).filter(f -> !f.endsWith("UnknownSettings.java")).forEach(f -> {
        try {
          Matcher m = READ.matcher(Files.readString(f));
          while (m.find()) {
            names.add(m.group(1));
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return names;
  }
}
