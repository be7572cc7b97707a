package io.github.trtrace.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: the API packages hold the API. No public type of an exported package shows an internal
 * type in its public or protected signatures, and the root API package reaches the engine through
 * one door, {@code internal.trace.TracerFactory}, and the two interfaces of what {@code InferenceRecord} installs
 * there: its value rule and the pooled entry's values its assembly reads ({@code RecordValues}).
 */
class ApiBoundaryTest {
  private static final String INTERNAL = "io.github.trtrace.core.internal";
  private static final JavaClasses CORE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.github.trtrace.core");

  @Test
  void noPublicSignatureOfAnApiTypeRefersToAnInternalType() {
    List<String> leaks = new ArrayList<>();
    for (JavaClass c : CORE) {
      if (isInternal(c) || !isVisible(c)) {
        continue;
      }
      c.getRawSuperclass().filter(ApiBoundaryTest::isInternal).ifPresent(s -> leaks.add(c.getName() + " extends " + s.getName()));
      c.getRawInterfaces().stream().filter(ApiBoundaryTest::isInternal).forEach(i -> leaks.add(c.getName() + " implements " + i.getName()));
      for (JavaField f : c.getFields()) {
        if (isVisible(f.getModifiers()) && isInternal(f.getRawType())) {
          leaks.add(f.getFullName());
        }
      }
      for (JavaCodeUnit m : c.getCodeUnits()) {
        if (!isVisible(m.getModifiers())) {
          continue;
        }
        if (isInternal(m.getRawReturnType())) {
          leaks.add(m.getFullName() + " returns " + m.getRawReturnType().getName());
        }
        m.getRawParameterTypes().stream().filter(ApiBoundaryTest::isInternal)
            .forEach(p -> leaks.add(m.getFullName() + " takes " + p.getName()));
      }
    }
    assertThat(leaks).isEmpty();
  }

  @Test
  void theRootApiPackageReachesTheEngineThroughTheFactoryOnly() {
    Set<String> reached = new TreeSet<>();
    for (JavaClass c : CORE) {
      if (!c.getPackageName().equals("io.github.trtrace.core")) {
        continue;
      }
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        if (isInternal(d.getTargetClass())) {
          reached.add(d.getTargetClass().getName());
        }
      }
    }
    assertThat(reached).isNotEmpty().isSubsetOf(INTERNAL + ".trace.TracerFactory", INTERNAL + ".trace.TracerFactory$ValueRule",
        INTERNAL + ".trace.RecordValues");
  }

  private static boolean isInternal(JavaClass c) {
    JavaClass base = c.isArray() ? c.getBaseComponentType() : c;
    return base.getPackageName().equals(INTERNAL) || base.getPackageName().startsWith(INTERNAL + ".");
  }

  private static boolean isVisible(JavaClass c) {
    for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
      if (!isVisible(k.getModifiers())) {
        return false;
      }
    }
    return true;
  }

  private static boolean isVisible(Set<JavaModifier> modifiers) {
    return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
  }
}
