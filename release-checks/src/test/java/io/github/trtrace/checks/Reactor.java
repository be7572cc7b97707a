package io.github.trtrace.checks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.maven.model.Model;
import org.apache.maven.model.building.DefaultModelBuilderFactory;
import org.apache.maven.model.building.DefaultModelBuildingRequest;
import org.apache.maven.model.building.ModelBuilder;
import org.apache.maven.model.building.ModelBuildingException;
import org.apache.maven.model.building.ModelBuildingRequest;
import org.apache.maven.model.io.DefaultModelReader;

/**
 * The modules of the reactor, read by Maven's own model builder: each module's effective model after
 * inheritance and interpolation (what its published POM tells Central and users), and which of them are
 * published.
 */
final class Reactor {

  /** The property a module sets to {@code false} to stay off Maven Central and out of the BOM. */
  static final String PUBLISHED_PROPERTY = "trtrace.published";

  private static final ModelBuilder BUILDER = new DefaultModelBuilderFactory().newInstance();

  private Reactor() {}

  /** The repository root (the directory of the parent pom). */
  static Path root() {
    String configured = System.getProperty("trtrace.root");
    Path start = configured != null && !configured.isBlank() ? Path.of(configured) : Path.of("..");
    Path dir = start.toAbsolutePath().normalize();
    if (!Files.isRegularFile(dir.resolve("pom.xml")) || !Files.isDirectory(dir.resolve("trace-core"))) {
      throw new IllegalStateException("not the trtrace repository root: " + dir);
    }
    return dir;
  }

  /** One module of the reactor: its directory and effective model. */
  record Module(Path dir, Model model) {
    /** The effective model with these profiles active (a parent's profile applies to a child only then). */
    Model withProfiles(String... profiles) {
      return effective(dir.resolve("pom.xml"), profiles);
    }

    String artifactId() {
      return model.getArtifactId();
    }

    boolean published() {
      return !"false".equals(model.getProperties().getProperty(PUBLISHED_PROPERTY, "true").trim());
    }

    String property(String name) {
      return model.getProperties().getProperty(name, "").trim();
    }
  }

  /** The root project and every module it lists, recursively, in reactor declaration order. */
  static List<Module> modules() throws IOException {
    List<Module> out = new ArrayList<>();
    collect(root(), out);
    return out;
  }

  /** The published modules users depend on: every published one except pom-packaged ones (parent, BOM). */
  static Set<String> publishedLibraries(List<Module> modules) {
    return modules.stream()
        .filter(Module::published)
        .filter(m -> !"pom".equals(m.model().getPackaging()))
        .map(Module::artifactId)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static void collect(Path dir, List<Module> out) throws IOException {
    Path pom = dir.resolve("pom.xml");
    out.add(new Module(dir, effective(pom)));
    Model raw = new DefaultModelReader().read(pom.toFile(), null);
    for (String module : raw.getModules()) {
      collect(dir.resolve(module).normalize(), out);
    }
  }

  /**
   * The effective model of one pom, after inheritance and interpolation: Maven's first building phase,
   * which needs no repository (parents are found by relative path). Dependency management imports and
   * plugin management are not applied; the metadata Central checks is complete after this phase.
   */
  static Model effective(Path pom, String... activeProfiles) {
    DefaultModelBuildingRequest request = new DefaultModelBuildingRequest();
    request.setPomFile(pom.toFile());
    request.setActiveProfileIds(List.of(activeProfiles));
    request.setTwoPhaseBuilding(true);
    request.setProcessPlugins(false);
    request.setValidationLevel(ModelBuildingRequest.VALIDATION_LEVEL_MINIMAL);
    Properties system = new Properties();
    system.putAll(System.getProperties());
    request.setSystemProperties(system);
    try {
      return BUILDER.build(request).getEffectiveModel();
    } catch (ModelBuildingException e) {
      throw new IllegalStateException("cannot build the effective model of " + pom + ": " + e.getMessage(), e);
    }
  }
}
