package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleDescriptor.Requires;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * trace-core's compiled {@code module-info}: it exports every API package and no {@code internal}
 * package (those only to trtrace's own modules), targets Java 17, and requires SLF4J only (JSpecify
 * statically). The packaged jar is checked on the module path by {@code ModulePathIT}.
 */
class ModuleDescriptorTest {
  private static final String INTERNAL = "io.github.trtrace.core.internal";

  @Test
  void exportsEveryApiPackageAndNoInternalOne() throws Exception {
    ModuleDescriptor d = descriptor();
    Set<String> unqualified =
        d.exports().stream().filter(e -> !e.isQualified()).map(Exports::source).collect(Collectors.toCollection(TreeSet::new));
    Set<String> apiPackages = new TreeSet<>(packagesOfClasses());
    apiPackages.removeIf(p -> p.equals(INTERNAL) || p.startsWith(INTERNAL + "."));

    assertThat(d.name()).isEqualTo("io.github.trtrace.core");
    assertThat(unqualified).containsExactlyElementsOf(apiPackages);
    assertThat(unqualified).noneMatch(p -> p.contains(".internal"));
    assertThat(d.exports())
        .filteredOn(Exports::isQualified)
        .allSatisfy(e -> {
          assertThat(e.source()).startsWith(INTERNAL + ".");
          assertThat(e.targets()).allMatch(t -> t.startsWith("io.github.trtrace."));
        });
    assertThat(d.opens()).isEmpty();
  }

  @Test
  void requiresSlf4jAndJspecifyStaticallyAndNothingElse() throws Exception {
    ModuleDescriptor d = descriptor();
    assertThat(d.requires().stream().filter(r -> !r.name().equals("java.base")).map(Requires::name))
        .containsExactlyInAnyOrder("org.slf4j", "org.jspecify");
    Requires jspecify = d.requires().stream().filter(r -> r.name().equals("org.jspecify")).findFirst().orElseThrow();
    assertThat(jspecify.modifiers()).contains(Requires.Modifier.STATIC);
  }

  @Test
  void isJava17Bytecode() throws Exception {
    try (InputStream in = moduleInfo()) {
      byte[] header = in.readNBytes(8);
      int major = ((header[6] & 0xff) << 8) | (header[7] & 0xff);
      assertThat(major).as("class file major version of module-info").isEqualTo(61);
    }
  }

  private static ModuleDescriptor descriptor() throws IOException {
    try (InputStream in = moduleInfo()) {
      return ModuleDescriptor.read(in);
    }
  }

  private static InputStream moduleInfo() throws IOException {
    return Files.newInputStream(classesDir().resolve("module-info.class"));
  }

  /** The directory (or jar root) trace-core's classes were loaded from. */
  private static Path classesDir() {
    try {
      return Path.of(InferenceTracer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every package with a class in trace-core's main classes (the Java 17 root, not META-INF). */
  private static Set<String> packagesOfClasses() throws IOException {
    Path root = classesDir();
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(f -> f.toString().endsWith(".class"))
          .map(root::relativize)
          .filter(f -> f.getNameCount() > 1 && !f.startsWith("META-INF"))
          .map(f -> f.getParent().toString().replace(f.getFileSystem().getSeparator(), "."))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
