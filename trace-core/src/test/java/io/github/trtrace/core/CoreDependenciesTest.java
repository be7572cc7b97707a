package io.github.trtrace.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** trace-core is embedded in other people's applications: it may use the JDK and SLF4J only. */
class CoreDependenciesTest {
  private static final JavaClasses CORE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.github.trtrace.core");

  @Test
  void coreDependsOnlyOnTheJdkSlf4jAndItsShadedQueue() {
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "javax.annotation..",
            "javax.crypto..", // java.base: HMAC for RequestIds.PersonalDataIds
            "org.slf4j..",
            "org.jspecify.annotations..", // annotations only, provided scope
            "org.jctools..", // relocated into io.github.trtrace.core.internal.shaded at package time
            "io.github.trtrace.core..")
        .check(CORE);
  }

  @Test
  void coreNeverReachesIntoOtherTrtraceModules() {
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideOutsideOfPackages("io.github.trtrace.tensorrt..", "io.github.trtrace.otel..", "io.github.trtrace.cli..")
        .check(CORE);
  }
}
