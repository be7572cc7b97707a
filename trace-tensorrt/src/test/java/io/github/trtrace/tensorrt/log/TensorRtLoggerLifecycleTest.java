package io.github.trtrace.tensorrt.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * TensorRT keeps the first logger of the process and may call it at any time, so {@link TensorRtLogger}
 * must never release its native peer. A JavaCPP {@code ILogger} cannot be instantiated without the
 * TensorRT natives (CI has none), so this checks the compiled class: no call that frees a JavaCPP pointer.
 * On the GPU the check program calls TensorRT after {@code close()} (see GPU-RESULTS.md).
 */
class TensorRtLoggerLifecycleTest {
  private static final Set<String> FREEING = Set.of("close", "deallocate", "releaseReference", "setNull");

  private static final JavaClasses CLASSES = new ClassFileImporter().importClasses(TensorRtLogger.class);

  @Test
  void theLoggerNeverFreesItsNativePeer() {
    JavaClass logger = CLASSES.get(TensorRtLogger.class);
    Set<String> freeing = logger.getMethodCallsFromSelf().stream()
        .filter(c -> FREEING.contains(c.getName()))
        .filter(c -> c.getTargetOwner().isAssignableTo("org.bytedeco.javacpp.Pointer"))
        .map(JavaMethodCall::getDescription)
        .collect(Collectors.toSet());
    assertThat(freeing).isEmpty();
  }

  @Test
  void theRuleLooksAtTheRealClass() {
    JavaClass logger = CLASSES.get(TensorRtLogger.class);
    assertThat(logger.getRawSuperclass().map(JavaClass::getName)).hasValue("org.bytedeco.tensorrt.nvinfer.ILogger");
    assertThat(logger.getMethodCallsFromSelf()).extracting(JavaMethodCall::getName).contains("incrementAndGet");
  }
}
