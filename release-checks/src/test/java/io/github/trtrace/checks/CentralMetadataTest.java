package io.github.trtrace.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.checks.Reactor.Module;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.maven.model.Dependency;
import org.apache.maven.model.Developer;
import org.apache.maven.model.License;
import org.apache.maven.model.Model;
import org.apache.maven.model.Plugin;
import org.apache.maven.model.Scm;
import org.codehaus.plexus.util.xml.Xpp3Dom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What Maven Central requires of every published module (name, description, url, an Apache-2.0 license,
 * developers, scm; sources and javadoc jars; a release profile that signs and publishes), and that the BOM
 * lists exactly the published modules. The published set comes from the reactor: every module that does not
 * set {@code trtrace.published} to {@code false}, so a new module is checked without editing this test.
 */
class CentralMetadataTest {

  private static final String GROUP = "io.github.trtrace";
  private static List<Module> modules;

  @BeforeAll
  static void readReactor() throws IOException {
    modules = Reactor.modules();
  }

  @Test
  void everyPublishedModuleCarriesTheMetadataCentralRequires() {
    List<String> problems = new ArrayList<>();
    Model root = modules.get(0).model();
    for (Module m : published()) {
      problems.addAll(metadataProblems(m.model()));
      // Maven appends the artifactId to an inherited URL unless told not to; those pages do not exist.
      if (m.model().getUrl() != null && !m.model().getUrl().equals(root.getUrl())) {
        problems.add(m.artifactId() + ": url " + m.model().getUrl() + " is not the project's " + root.getUrl());
      }
      if (m.model().getScm() != null
          && root.getScm() != null
          && !String.valueOf(m.model().getScm().getUrl()).equals(root.getScm().getUrl())) {
        problems.add(m.artifactId() + ": scm url " + m.model().getScm().getUrl() + " is not the project's");
      }
    }
    assertThat(problems).as("published modules lacking what Maven Central requires").isEmpty();
  }

  @Test
  void everyPublishedModuleHasTheReleaseProfileThatSignsAndPublishes() {
    List<String> problems = new ArrayList<>();
    for (Module m : published()) {
      Set<String> plugins = pluginKeys(m.withProfiles("release"));
      for (String required :
          List.of("org.apache.maven.plugins:maven-gpg-plugin", "org.sonatype.central:central-publishing-maven-plugin")) {
        if (!plugins.contains(required)) {
          problems.add(m.artifactId() + ": with -Prelease its build lacks " + required);
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void everyPublishedJarModuleBuildsSourcesAndJavadocJars() {
    List<String> problems = new ArrayList<>();
    for (Module m : published()) {
      if (!"jar".equals(m.model().getPackaging())) {
        continue;
      }
      Set<String> plugins = pluginKeys(m.model());
      for (String plugin :
          List.of("org.apache.maven.plugins:maven-source-plugin", "org.apache.maven.plugins:maven-javadoc-plugin")) {
        if (!plugins.contains(plugin)) {
          problems.add(m.artifactId() + ": " + plugin + " is not in its build");
        }
      }
      for (String skip : List.of("maven.source.skip", "maven.javadoc.skip")) {
        if ("true".equals(m.property(skip))) {
          problems.add(m.artifactId() + ": sets " + skip);
        }
      }
      // Where the module was packaged in this build, the two jars must be there beside the main jar.
      Path target = m.dir().resolve("target");
      String base = m.artifactId() + "-" + m.model().getVersion();
      Path jar = target.resolve(base + ".jar");
      if (Files.isRegularFile(jar)) {
        for (String classifier : List.of("sources", "javadoc")) {
          Path attached = target.resolve(base + "-" + classifier + ".jar");
          if (!Files.isRegularFile(attached)) {
            problems.add(m.artifactId() + ": " + jar.getFileName() + " was built but not " + attached.getFileName());
          }
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void exactlyTheUnpublishedModulesSkipDeployAndCentralPublishing() {
    List<String> problems = new ArrayList<>();
    for (Module m : modules) {
      boolean skipsDeploy = "true".equals(m.property("maven.deploy.skip"));
      if (m.published() && skipsDeploy) {
        problems.add(m.artifactId() + ": published but sets maven.deploy.skip (set trtrace.published=false)");
      }
      if (!m.published() && !skipsDeploy) {
        problems.add(m.artifactId() + ": trtrace.published=false but maven.deploy.skip is not true");
      }
      // The Central plugin ignores maven.deploy.skip; its own skipPublishing must follow the same marker.
      String skipPublishing = centralSkipPublishing(m.withProfiles("release"));
      if (!String.valueOf(!m.published()).equals(skipPublishing)) {
        problems.add(m.artifactId() + ": with -Prelease, central-publishing skipPublishing is " + skipPublishing);
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void theBomListsEveryPublishedModuleAndOnlyThose() {
    Module bom = module("trace-bom");
    Set<String> listed = new TreeSet<>();
    List<String> problems = new ArrayList<>();
    for (Dependency d : bom.model().getDependencyManagement().getDependencies()) {
      if (!GROUP.equals(d.getGroupId())) {
        problems.add("the BOM manages a dependency outside " + GROUP + ": " + d.getManagementKey());
        continue;
      }
      if (!bom.model().getVersion().equals(d.getVersion())) {
        problems.add("the BOM gives " + d.getArtifactId() + " version " + d.getVersion());
      }
      listed.add(d.getArtifactId());
    }
    Set<String> expected = publishedLibraries();
    Set<String> missing = new TreeSet<>(expected);
    missing.removeAll(listed);
    Set<String> extra = new TreeSet<>(listed);
    extra.removeAll(expected);
    if (!missing.isEmpty()) {
      problems.add("published modules missing from trace-bom: " + missing);
    }
    if (!extra.isEmpty()) {
      problems.add("trace-bom lists artifacts that are not published modules of the reactor: " + extra);
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void theReleaseChecksSeeEveryPublishedModule() {
    // The API listing, the doc snippets and the consumer project use the published modules through
    // this module's dependencies; a published module missing here would be silently unchecked.
    Set<String> dependencies =
        module("release-checks").model().getDependencies().stream()
            .filter(d -> GROUP.equals(d.getGroupId()))
            .map(Dependency::getArtifactId)
            .collect(Collectors.toCollection(TreeSet::new));
    Set<String> missing = new TreeSet<>(publishedLibraries());
    missing.add("trace-bom");
    missing.removeAll(dependencies);
    assertThat(missing).as("published modules that release-checks/pom.xml does not depend on").isEmpty();
  }

  @Test
  void theReactorPublishesTheParentTheBomAndTheLibraries() {
    // Guards the derivation itself: if the property were misread, every other test here would pass vacuously.
    Set<String> published = published().stream().map(Module::artifactId).collect(Collectors.toSet());
    assertThat(published).contains("trtrace-parent", "trace-bom", "trace-core", "trace-tensorrt");
    assertThat(published).doesNotContain("examples", "trace-benchmarks", "release-checks");
  }

  /** What Central requires of one POM, as problems; empty when it has everything. */
  static List<String> metadataProblems(Model model) {
    List<String> problems = new ArrayList<>();
    String id = model.getArtifactId();
    requireText(problems, id, "name", model.getName());
    requireText(problems, id, "description", model.getDescription());
    requireUrl(problems, id, "url", model.getUrl());
    List<License> licenses = model.getLicenses();
    if (licenses.isEmpty()) {
      problems.add(id + ": no license");
    }
    for (License license : licenses) {
      if (!"Apache-2.0".equals(license.getName())) {
        problems.add(id + ": license name is '" + license.getName() + "', not the SPDX id Apache-2.0");
      }
      if (!"https://www.apache.org/licenses/LICENSE-2.0.txt".equals(license.getUrl())) {
        problems.add(id + ": license url is " + license.getUrl());
      }
    }
    List<Developer> developers = model.getDevelopers();
    if (developers.isEmpty()) {
      problems.add(id + ": no developers");
    }
    for (Developer d : developers) {
      requireText(problems, id, "developer name", d.getName());
    }
    Scm scm = model.getScm();
    if (scm == null) {
      problems.add(id + ": no scm");
    } else {
      requireText(problems, id, "scm connection", scm.getConnection());
      requireText(problems, id, "scm developerConnection", scm.getDeveloperConnection());
      requireUrl(problems, id, "scm url", scm.getUrl());
    }
    return problems;
  }

  private static void requireText(List<String> problems, String id, String what, String value) {
    if (value == null || value.isBlank() || value.contains("${")) {
      problems.add(id + ": no " + what + (value == null ? "" : " ('" + value + "')"));
    }
  }

  private static void requireUrl(List<String> problems, String id, String what, String value) {
    requireText(problems, id, what, value);
    if (value != null && !value.startsWith("https://")) {
      problems.add(id + ": " + what + " is not an https URL: " + value);
    }
  }

  private static String centralSkipPublishing(Model model) {
    if (model.getBuild() == null) {
      return "(no build)";
    }
    Plugin central = model.getBuild().getPluginsAsMap().get("org.sonatype.central:central-publishing-maven-plugin");
    if (central == null) {
      return "(no plugin)";
    }
    Xpp3Dom skip = central.getConfiguration() instanceof Xpp3Dom c ? c.getChild("skipPublishing") : null;
    return skip == null ? "false" : skip.getValue().trim();
  }

  private static Set<String> pluginKeys(Model model) {
    return model.getBuild() == null
        ? Set.of()
        : model.getBuild().getPlugins().stream().map(Plugin::getKey).collect(Collectors.toSet());
  }

  private static List<Module> published() {
    return modules.stream().filter(Module::published).toList();
  }

  private static Set<String> publishedLibraries() {
    return Reactor.publishedLibraries(modules);
  }

  private static Module module(String artifactId) {
    return modules.stream()
        .filter(m -> m.artifactId().equals(artifactId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no module " + artifactId + " in the reactor"));
  }
}
