package io.github.trtrace.checks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.trtrace.checks.Reactor.Module;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The public API of every published module, compared with the listing committed in {@code api/<module>.txt},
 * so a change of the surface shows in review. After an intended change:
 * {@code mvn -pl release-checks -am -Dtest=ApiListingTest -Dsurefire.failIfNoSpecifiedTests=false -Dapi.update=true test}.
 */
class ApiListingTest {

  private static final boolean UPDATE = Boolean.getBoolean("api.update");

  @TestFactory
  Stream<DynamicTest> theApiOfEachPublishedModuleMatchesItsCommittedListing() throws IOException {
    Path root = Reactor.root();
    List<Module> modules = Reactor.modules();
    Stream<Module> libraries =
        modules.stream().filter(m -> Reactor.publishedLibraries(modules).contains(m.artifactId()));
    return libraries.map(m -> DynamicTest.dynamicTest(m.artifactId(), () -> check(root, m)));
  }

  private static void check(Path root, Module module) throws IOException {
    Path classes = module.dir().resolve("target/classes");
    if (!Files.isDirectory(classes)) {
      fail(module.artifactId() + " has no " + classes + ": build it in the same run (-am)");
    }
    String actual = ApiListing.of(module.artifactId(), classes, ApiListingTest.class.getClassLoader());
    Path committed = root.resolve("api").resolve(module.artifactId() + ".txt");
    if (UPDATE) {
      Files.createDirectories(committed.getParent());
      Files.writeString(committed, actual, StandardCharsets.UTF_8);
      System.out.println("api: wrote " + committed);
      return;
    }
    if (!Files.isRegularFile(committed)) {
      fail("no committed API listing " + root.relativize(committed) + "; write it with -Dapi.update=true");
    }
    String expected = Files.readString(committed, StandardCharsets.UTF_8);
    if (!expected.equals(actual)) {
      fail(
          "the public API of "
              + module.artifactId()
              + " differs from "
              + root.relativize(committed)
              + " (- committed, + now); if intended, run with -Dapi.update=true and commit the file:\n"
              + LineDiff.of(expected, actual));
    }
  }

  /**
   * An API package may not hand out or take an implementation type: no signature in the listing of a published
   * module (its exported packages only) names a type of an {@code internal} package, its own or another module's.
   */
  @TestFactory
  Stream<DynamicTest> noApiSignatureNamesAnInternalType() throws IOException {
    List<Module> modules = Reactor.modules();
    return modules.stream()
        .filter(m -> Reactor.publishedLibraries(modules).contains(m.artifactId()))
        .map(m -> DynamicTest.dynamicTest(m.artifactId(), () -> {
          String listing =
              ApiListing.of(m.artifactId(), m.dir().resolve("target/classes"), ApiListingTest.class.getClassLoader());
          assertThat(listing.lines().filter(l -> l.contains(".internal.")).toList())
              .as("API lines of %s that name an internal type", m.artifactId())
              .isEmpty();
        }));
  }

  @Test
  void theListingShowsPublicMembersAndLeavesOutImplementationPackages() throws IOException {
    Module core =
        Reactor.modules().stream().filter(m -> m.artifactId().equals("trace-core")).findFirst().orElseThrow();
    String listing = ApiListing.of("trace-core", core.dir().resolve("target/classes"), getClass().getClassLoader());
    assertThat(listing)
        .contains("public static final java.lang.String HEADER")
        .doesNotContain(".internal.")
        .doesNotContain("private ");
    List<String> typeLines = listing.lines().filter(l -> l.startsWith("public")).toList();
    assertThat(typeLines).isNotEmpty().allSatisfy(l -> assertThat(l).contains("io.github.trtrace.core"));
  }
}
