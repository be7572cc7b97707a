package io.github.trtrace.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Module dependencies point one way (DESIGN.md): core depends on no other module; trace-http on core
 * only; trace-tensorrt-model on no module; nothing depends on trace-tensorrt, trace-otel or trace-cli except the
 * examples; no library module's tree (built by Maven or by a script) refers to the examples.
 */
class ModuleDependenciesTest {
  private static final JavaClasses ALL =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.github.trtrace");

  @Test
  void coreDependsOnNoOtherModule() {
    noClasses()
        .that()
        .resideInAPackage("io.github.trtrace.core..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.github.trtrace.tensorrt..",
            "io.github.trtrace.otel..",
            "io.github.trtrace.cli..",
            "io.github.trtrace.http..",
            "io.github.trtrace.examples..")
        .check(ALL);
  }

  @Test
  void httpDependsOnlyOnCore() {
    noClasses()
        .that()
        .resideInAPackage("io.github.trtrace.http..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.github.trtrace.tensorrt..",
            "io.github.trtrace.otel..",
            "io.github.trtrace.cli..",
            "io.github.trtrace.examples..",
            "io.opentelemetry..")
        .check(ALL);
  }

  @Test
  void tensorrtDependsOnlyOnCore() {
    noClasses()
        .that()
        .resideInAPackage("io.github.trtrace.tensorrt..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.github.trtrace.otel..", "io.github.trtrace.cli..", "io.github.trtrace.http..",
            "io.github.trtrace.examples..")
        .check(ALL);
  }

  @Test
  void theTensorRtModelDependsOnNoOtherModule() {
    noClasses()
        .that()
        .resideInAPackage("io.github.trtrace.tensorrt.model..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.github.trtrace.core..", "io.github.trtrace.tensorrt.build..", "io.github.trtrace.tensorrt.log..",
            "io.github.trtrace.tensorrt.engine..", "io.github.trtrace.tensorrt.doctor..", "io.github.trtrace.tensorrt.cuda..",
            "io.github.trtrace.tensorrt.nvml..", "io.github.trtrace.tensorrt.internal..", "io.github.trtrace.otel..",
            "io.github.trtrace.cli..", "io.github.trtrace.http..", "io.github.trtrace.examples..", "org.bytedeco..")
        .check(ALL);
  }

  /**
   * No source file in a library module's tree imports the examples or sits in their packages, built by Maven or
   * not (the GPU check programs, compiled by a script, once lived in trace-tensorrt/src/gpu and imported them;
   * CpuBackendOverhead once sat in trace-benchmarks in the demo's package, issue 16).
   */
  @Test
  void noSourceInATraceModuleTreeImportsTheExamples() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path m : modules.filter(d -> d.getFileName().toString().startsWith("trace-")).toList()) {
        if (!Files.isDirectory(m.resolve("src"))) {
          continue;
        }
        try (Stream<Path> files = Files.walk(m.resolve("src"))) {
          for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
            if (Files.readString(f).lines().anyMatch(l -> l.matches("(import( static)?|package) io\\.github\\.trtrace\\.examples[.;].*"))) {
              offenders.add(root.relativize(f).toString());
            }
          }
        }
      }
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void onlyTheExamplesUseTheCli() {
    noClasses()
        .that()
        .resideOutsideOfPackages("io.github.trtrace.cli..", "io.github.trtrace.examples..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.github.trtrace.cli..")
        .check(ALL);
  }

  @Test
  void noLibraryModuleDependsOnTheExamples() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.github.trtrace.examples..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.github.trtrace.examples..")
        .check(ALL);
  }

  @Test
  void theImportSeesEveryModule() {
    // Guards the rules above against passing vacuously because a module was not on the class path.
    assertThat(ALL.containPackage("io.github.trtrace.core")).isTrue();
    assertThat(ALL.containPackage("io.github.trtrace.examples")).isTrue();
    assertThat(ALL.containPackage("io.github.trtrace.tensorrt.build")).isTrue();
    assertThat(ALL.containPackage("io.github.trtrace.http")).isTrue();
    assertThat(ALL.containPackage("io.github.trtrace.otel")).isTrue();
    assertThat(ALL.containPackage("io.github.trtrace.cli")).isTrue();
  }
}
