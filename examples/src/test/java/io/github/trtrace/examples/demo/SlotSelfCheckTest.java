package io.github.trtrace.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.examples.tensorrt.Generation;
import org.junit.jupiter.api.Test;

/** The start-up check's verdict and line, from the three ways' differences (the launches themselves need a GPU). */
class SlotSelfCheckTest {

  @Test
  void smallDifferencesAndTheSameNextTokenPassAndTheLineSaysTheFigures() {
    SlotSelfCheck.Result r = new SlotSelfCheck.Result(1.926, 0.0039, true, 0.0, true);
    assertThat(r.agrees()).isTrue();
    assertThat(r.line()).startsWith("engine self-check PASS (largest logit 1.926)")
        .contains("max |diff| 0.0039 (same next token)").contains("max |diff| 0.0000 (same next token)");
  }

  @Test
  void aCacheNotReadOrAnotherNextTokenFails() {
    // run 28 on the H200: the new keys and values came out FP32 and the appends copied half of each
    assertThat(new SlotSelfCheck.Result(1.926, 2.6885, false, 0.0, true).agrees()).isFalse();
    assertThat(new SlotSelfCheck.Result(1.926, 2.6885, false, 0.0, true).line())
        .startsWith("engine self-check FAIL").contains("(another next token)");
    assertThat(new SlotSelfCheck.Result(1.926, 0.5, true, 0.0, true).agrees()).as("over 5 % of the largest logit")
        .isFalse();
    assertThat(new SlotSelfCheck.Result(1.926, 0.001, true, 0.001, false).agrees()).isFalse();
  }

  /** The check's three ways are compared with {@link Generation}'s helpers, as the GPU check compares its own. */
  @Test
  void differenceAndNextTokenOfTwoLogitRows() {
    assertThat(Generation.maxAbsDiff(new float[] {1, 2, 3}, new float[] {1, 2.5f, 2})).isEqualTo(1.0);
    assertThat(Generation.argmax(new float[] {0.1f, 3, -2, 3})).isEqualTo(1);
  }
}
