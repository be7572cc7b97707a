package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** Which backend the demo runs on, and what it says about it at start-up. */
class BackendSelectionTest {

  @Test
  void onThisMachineTheTensorRtProviderSaysWhyNotAndTheDemoRunsOnTheCpu() {
    // CI has no GPU and no JavaCPP natives: the real provider must give a reason, never throw.
    String why = new TensorRtBackendProvider().unavailableReason();
    assertThat(why).isNotNull().containsAnyOf("no CUDA runtime", "no CUDA driver", "no CUDA device");
    List<String> said = new ArrayList<>();
    try (Backend b = Backend.choose(said::add)) {    // through META-INF/services, as the demo does
      assertThat(b).isInstanceOf(CpuBackend.class);
    }
    assertThat(said).singleElement().asString()
        .startsWith("backend: cpu - ")
        .contains("(tensorrt: " + why + ")");
  }

  @Test
  void anAvailableProviderIsChosenAndStated() {
    List<String> said = new ArrayList<>();
    Backend chosen = Backend.choose(List.of(provider("gpu", null, false)), said::add);
    assertThat(chosen.modelName()).isEqualTo("fake-gpu");
    assertThat(said).containsExactly("backend: gpu - fake on a fake GPU");
  }

  @Test
  void unavailableOrFailingProvidersFallBackToTheCpuWithEachReason() {
    List<String> said = new ArrayList<>();
    Backend chosen = Backend.choose(List.of(provider("a", "no CUDA device", false), provider("b", null, true)),
        said::add);
    assertThat(chosen).isInstanceOf(CpuBackend.class);
    assertThat(said).singleElement().asString()
        .contains("(a: no CUDA device; b: failed to start: java.lang.IllegalStateException: engine build failed)");
  }

  @Test
  void theCpuIsStatedWithoutAnyProvider() {
    List<String> said = new ArrayList<>();
    Backend.choose(List.of(), said::add);
    assertThat(said).singleElement().asString().endsWith("(no TensorRT backend on the class path)");
  }

  @Test
  void theTensorRtBackendCanBeTurnedOff() {
    String before = System.getProperty("trtrace.demo.backend");
    System.setProperty("trtrace.demo.backend", "cpu");
    try {
      assertThat(new TensorRtBackendProvider().unavailableReason()).isEqualTo("turned off (-Dtrtrace.demo.backend=cpu)");
    } finally {
      if (before == null) {
        System.clearProperty("trtrace.demo.backend");
      } else {
        System.setProperty("trtrace.demo.backend", before);
      }
    }
  }

  private static Backend.Provider provider(String name, @Nullable String reason, boolean failsToStart) {
    return new Backend.Provider() {
      @Override public String name() { return name; }
      @Override public @Nullable String unavailableReason() { return reason; }
      @Override public Backend create() {
        if (failsToStart) {
          throw new IllegalStateException("engine build failed");
        }
        return new Backend() {
          @Override public String modelName() { return "fake-" + name; }
          @Override public String description() { return "fake on a fake GPU"; }
          @Override public int maxContext() { return 16; }
          @Override public Tokenizer tokenizer() { return Tokenizer.standard(); }
          @Override public int[] generate(InferenceTrace t, int[] p, int max, IntConsumer on) { return new int[0]; }
          @Override public void close() {}
        };
      }
    };
  }
}
