package io.github.trtrace.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** trace-cli depends on trace-core only among the trtrace modules (DESIGN.md). */
class CliDependenciesTest {
  private static final JavaClasses CLI = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.github.trtrace.cli");

  @Test
  void dependsOnNoTrtraceModuleButCore() {
    assertThat(CLI.containPackage("io.github.trtrace.cli.internal")).isTrue();
    noClasses().that().resideInAPackage("io.github.trtrace.cli..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.github.trtrace.tensorrt..", "io.github.trtrace.otel..", "io.github.trtrace.http..",
            "io.github.trtrace.examples..", "io.github.trtrace.testing..")
        .check(CLI);
  }
}
