package io.github.trtrace.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.checks.Reactor.Module;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every published module with a {@code module-info} exports exactly its API packages: each package of its
 * classes whose name has no {@code internal} segment, to everyone; an {@code internal} package at most to
 * trtrace's own modules.
 */
class ModuleExportsTest {

  @TestFactory
  Stream<DynamicTest> aModuleExportsItsApiPackagesAndNoInternalOne() throws IOException {
    List<Module> modules = Reactor.modules();
    return modules.stream()
        .filter(m -> Reactor.publishedLibraries(modules).contains(m.artifactId()))
        .filter(m -> Files.isRegularFile(m.dir().resolve("target/classes/module-info.class")))
        .map(m -> DynamicTest.dynamicTest(m.artifactId(), () -> check(m.dir().resolve("target/classes"))));
  }

  private static void check(Path classes) throws IOException {
    ModuleDescriptor d;
    try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
      d = ModuleDescriptor.read(in);
    }
    Set<String> packages;
    try (Stream<Path> files = Files.walk(classes)) {
      packages = files
          .filter(f -> f.toString().endsWith(".class"))
          .map(classes::relativize)
          .filter(f -> f.getNameCount() > 1 && !f.startsWith("META-INF"))
          .map(f -> f.getParent().toString().replace(f.getFileSystem().getSeparator(), "."))
          .collect(Collectors.toCollection(TreeSet::new));
    }
    Set<String> api = packages.stream().filter(p -> !isInternal(p)).collect(Collectors.toCollection(TreeSet::new));
    Set<String> exported = d.exports().stream()
        .filter(e -> !e.isQualified())
        .map(Exports::source)
        .collect(Collectors.toCollection(TreeSet::new));
    assertThat(d.name()).startsWith("io.github.trtrace.");
    assertThat(exported).as("unqualified exports of %s", d.name()).containsExactlyElementsOf(api);
    assertThat(d.exports())
        .filteredOn(Exports::isQualified)
        .allSatisfy(e -> assertThat(e.targets()).allMatch(t -> t.startsWith("io.github.trtrace.")));
  }

  private static boolean isInternal(String pkg) {
    return List.of(pkg.split("\\.")).contains("internal");
  }
}
