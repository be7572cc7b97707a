package io.github.trtrace.tensorrt.internal.cupti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The versioned CUPTI record classes resolve on the preset of the build's TensorRT line (12.6: Kernel9, 13.1:
 * Kernel11, 13.3: Kernel12) without loading CUPTI (no class initialisation, so no native library in CI).
 */
class CuptiRecordsTest {
  @Test
  void theNewestRecordClassesOfThePresetOnTheClassPathAreFoundAndTheirGettersBound() throws Exception {
    Class<?> kernel = CuptiRecords.newest("CUpti_ActivityKernel", 4, 16);
    assertThat(kernel.getSimpleName()).matches("CUpti_ActivityKernel(9|11|12)");
    assertThat(CuptiRecords.newest("CUpti_ActivityMemcpy", 3, 10).getSimpleName()).matches("CUpti_ActivityMemcpy[56]");
    new CuptiRecords(); // every getter of every record kind is there, with the types the reader casts to
  }

  @Test
  void aMissingRecordClassIsNamed() {
    assertThatThrownBy(() -> CuptiRecords.newest("CUpti_ActivityNoSuchThing", 1, 3))
        .hasMessageContaining("CUpti_ActivityNoSuchThing");
  }
}
