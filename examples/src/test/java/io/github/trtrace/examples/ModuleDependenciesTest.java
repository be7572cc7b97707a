package io.github.trtrace.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Module dependencies point one way (DESIGN.md): core depends on no other module; trace-http on core
 * only; nothing depends on trace-tensorrt, trace-otel or trace-cli except the examples.
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
    org.assertj.core.api.Assertions.assertThat(ALL.containPackage("io.github.trtrace.core")).isTrue();
    org.assertj.core.api.Assertions.assertThat(ALL.containPackage("io.github.trtrace.examples")).isTrue();
    org.assertj.core.api.Assertions.assertThat(ALL.containPackage("io.github.trtrace.tensorrt.build")).isTrue();
    org.assertj.core.api.Assertions.assertThat(ALL.containPackage("io.github.trtrace.http")).isTrue();
    org.assertj.core.api.Assertions.assertThat(ALL.containPackage("io.github.trtrace.otel")).isTrue();
    org.assertj.core.api.Assertions.assertThat(ALL.containPackage("io.github.trtrace.cli")).isTrue();
  }
}
