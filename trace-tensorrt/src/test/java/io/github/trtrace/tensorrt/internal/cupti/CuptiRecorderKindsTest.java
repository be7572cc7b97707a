package io.github.trtrace.tensorrt.internal.cupti;

import static org.assertj.core.api.Assertions.assertThat;

import org.bytedeco.cuda.global.cupti;
import org.junit.jupiter.api.Test;

/**
 * The activity kinds the recorder enables (the cupti constants are compile-time constants: no native library is
 * loaded). Memory copies only when asked for ({@value CuptiRecorder#COPIES_PROPERTY}): CUDA 12.6's CUPTI crashed the
 * process completing copy records on the H200.
 */
class CuptiRecorderKindsTest {
  @Test
  void copiesAreLeftOutUnlessAskedFor() {
    assertThat(CuptiRecorder.kinds(false)).containsExactly(cupti.CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        cupti.CUPTI_ACTIVITY_KIND_MEMSET, cupti.CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
        cupti.CUPTI_ACTIVITY_KIND_RUNTIME, cupti.CUPTI_ACTIVITY_KIND_DRIVER);
    assertThat(CuptiRecorder.kinds(true)).containsExactly(cupti.CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        cupti.CUPTI_ACTIVITY_KIND_MEMCPY, cupti.CUPTI_ACTIVITY_KIND_MEMSET,
        cupti.CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, cupti.CUPTI_ACTIVITY_KIND_RUNTIME,
        cupti.CUPTI_ACTIVITY_KIND_DRIVER);
    assertThat(CuptiRecorder.COPIES_PROPERTY).isEqualTo("trtrace.cupti.memcpy");
  }
}
