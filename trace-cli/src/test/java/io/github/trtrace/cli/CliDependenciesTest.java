package io.github.trtrace.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Among the trtrace modules trace-cli depends on trace-core and trace-tensorrt-model only (DESIGN.md): not on
 * trace-tensorrt, whose natives a command line reading files must not need.
 */
class CliDependenciesTest {
  private static final JavaClasses CLI = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.github.trtrace.cli");

  @Test
  void dependsOnNoTrtraceModuleButCoreAndTheTensorRtModel() {
    assertThat(CLI.containPackage("io.github.trtrace.cli.internal")).isTrue();
    noClasses().that().resideInAPackage("io.github.trtrace.cli..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "io.github.trtrace.tensorrt.build..", "io.github.trtrace.tensorrt.log..", "io.github.trtrace.tensorrt.engine..",
            "io.github.trtrace.tensorrt.doctor..", "io.github.trtrace.tensorrt.cuda..", "io.github.trtrace.tensorrt.nvml..",
            "io.github.trtrace.tensorrt.internal..", "io.github.trtrace.otel..", "io.github.trtrace.http..",
            "io.github.trtrace.examples..", "io.github.trtrace.testing..")
        .check(CLI);
  }
}
