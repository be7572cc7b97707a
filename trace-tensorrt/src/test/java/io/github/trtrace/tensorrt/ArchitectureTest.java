package io.github.trtrace.tensorrt;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaModifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * CI has no GPU driver, so JavaCPP's TensorRT/CUDA classes cannot even be initialised there: only the
 * classes allowed below may depend on {@code org.bytedeco}. Everything else stays testable in CI.
 */
class ArchitectureTest {
  /** Classes of the pure-Java packages allowed to touch JavaCPP, by name. */
  static final Set<String> ALLOWED_CLASSES = Set.of(
      "io.github.trtrace.tensorrt.log.TensorRtLogger",
      "io.github.trtrace.tensorrt.doctor.TensorRtDoctor",
      "io.github.trtrace.tensorrt.build.TracedBuilder",
      "io.github.trtrace.tensorrt.engine.TracedEngine",
      // CUPTI through the cuda preset; the rest of internal.cupti (rows, API-call classes, joiner, recorder seam)
      // stays pure Java
      "io.github.trtrace.tensorrt.internal.cupti.CuptiRecorder",
      "io.github.trtrace.tensorrt.internal.cupti.CuptiBuffers",
      "io.github.trtrace.tensorrt.internal.cupti.CuptiRecords");
  /** Packages of the native side (shim, NVML, CUDA timing), JavaCPP by nature. */
  static final Set<String> NATIVE_PACKAGES = Set.of(
      "io.github.trtrace.tensorrt.internal.shim", "io.github.trtrace.tensorrt.nvml", "io.github.trtrace.tensorrt.cuda");

  private static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.github.trtrace.tensorrt");

  @Test
  void onlyAllowListedClassesDependOnJavaCpp() {
    DescribedPredicate<JavaClass> allowed = DescribedPredicate.describe("on the JavaCPP allow-list",
        c -> ALLOWED_CLASSES.contains(outermost(c).getName())
            || NATIVE_PACKAGES.stream().anyMatch(p -> c.getPackageName().equals(p) || c.getPackageName().startsWith(p + ".")));
    noClasses().that(DescribedPredicate.not(allowed))
        .should().dependOnClassesThat().resideInAPackage("org.bytedeco..")
        .check(MAIN);
  }

  @Test
  void theRuleSeesTheLoggerSoTheAllowListIsNotVacuous() {
    // The logger must be imported and must use JavaCPP; otherwise the allow-list is stale.
    JavaClass logger = MAIN.get("io.github.trtrace.tensorrt.log.TensorRtLogger");
    org.assertj.core.api.Assertions.assertThat(logger.getRawSuperclass().map(JavaClass::getName))
        .hasValue("org.bytedeco.tensorrt.nvinfer.ILogger");
  }

  private static JavaClass outermost(JavaClass c) {
    JavaClass k = c;
    while (k.getEnclosingClass().isPresent()) {
      k = k.getEnclosingClass().get();
    }
    return k;
  }

  /** Both modules of trtrace for TensorRT: this one and trace-tensorrt-model. */
  private static final JavaClasses BOTH = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.github.trtrace.tensorrt");

  @Test
  void packagesHaveNoCyclesSoApiAndInternalDependOneWay() {
    assertThat(BOTH.containPackage("io.github.trtrace.tensorrt.model.build")).isTrue();
    assertThat(BOTH.containPackage("io.github.trtrace.tensorrt.internal.shim")).isTrue();
    slices().matching("io.github.trtrace.tensorrt.(**)").should().beFreeOfCycles().check(BOTH);
  }

  @Test
  void noPublicSignatureOfAnApiTypeNamesAnInternalType() {
    List<String> leaks = new ArrayList<>();
    for (JavaClass c : BOTH) {
      if (c.getPackageName().contains(".internal") || !c.getModifiers().contains(JavaModifier.PUBLIC)) {
        continue;
      }
      if (c.getRawSuperclass().map(s -> s.getPackageName().contains(".internal")).orElse(false)) {
        leaks.add(c.getName() + " extends " + c.getRawSuperclass().get().getName());
      }
      for (JavaCodeUnit m : c.getCodeUnits()) {
        if (!m.getModifiers().contains(JavaModifier.PUBLIC)) {
          continue;
        }
        List<JavaClass> types = new ArrayList<>(m.getRawParameterTypes());
        types.add(m.getRawReturnType());
        for (JavaClass t : types) {
          if (t.getPackageName().contains(".internal")) {
            leaks.add(m.getFullName() + " -> " + t.getName());
          }
        }
      }
    }
    assertThat(leaks).isEmpty();
  }
}
