package io.github.trtrace.otel;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

/**
 * trace-otel's run-time surface: the OpenTelemetry API (never the SDK), trace-core, SLF4J; the
 * servlet API and the JDK HTTP server each touched by one optional adapter class only; nothing from
 * trace-tensorrt, trace-cli or the examples.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.github.trtrace.otel");

  @Test
  void dependsOnTheApiCoreAndSlf4jOnly() {
    classes()
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "io.opentelemetry.api..",
            "io.opentelemetry.context..",
            "io.github.trtrace.core..",
            "io.github.trtrace.otel..",
            "org.slf4j..",
            "org.jspecify..",
            "jakarta.servlet..",
            "com.sun.net.httpserver..")
        .check(MAIN);
  }

  @Test
  void optionalApisAreConfinedToTheirAdapters() {
    noClasses()
        .that()
        .doNotHaveSimpleName("ServletPropagation")
        .and()
        .doNotHaveFullyQualifiedName(ServletPropagation.class.getName() + "$Getter")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("jakarta.servlet..")
        .check(MAIN);
    noClasses()
        .that()
        .doNotHaveSimpleName("HttpServerPropagation")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("com.sun.net.httpserver..")
        .check(MAIN);
  }

  @Test
  void implementationsArePackagePrivateAndFinal() {
    for (Class<?> c : new Class<?>[] {OtelListener.class, RequestSpan.class, Instruments.class, Internal.class}) {
      assertThat(Modifier.isPublic(c.getModifiers())).as(c.getName()).isFalse();
      assertThat(Modifier.isFinal(c.getModifiers())).as(c.getName()).isTrue();
    }
  }

  @Test
  void theImportIsNotEmpty() {
    assertThat(MAIN.contain(TrtraceOpenTelemetry.class)).isTrue();
    assertThat(MAIN.contain(RequestSpan.class)).isTrue();
  }
}
