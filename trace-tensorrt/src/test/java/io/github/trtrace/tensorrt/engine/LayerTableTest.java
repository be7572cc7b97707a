package io.github.trtrace.tensorrt.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.trtrace.core.InferenceRecord.LayerTime;
import org.junit.jupiter.api.Test;

class LayerTableTest {

  private static LayerTable twoTokens() {
    LayerTable t = LayerTable.create();
    for (int token = 0; token < 2; token++) {
      t.add("embed", 0.5f).add("attn", 2.0f).add("mlp", 3.0f).add("lm_head", 1.0f);
    }
    return t;
  }

  @Test
  void samplesAreSummedPerLayerInEngineOrder() {
    assertThat(twoTokens().layers()).containsExactly(
        new LayerTime("embed", 1.0, 2), new LayerTime("attn", 4.0, 2),
        new LayerTime("mlp", 6.0, 2), new LayerTime("lm_head", 2.0, 2));
  }

  @Test
  void topKKeepsTheSlowestInEngineOrder() {
    assertThat(twoTokens().top(2)).extracting(LayerTime::name).containsExactly("attn", "mlp");
    assertThat(twoTokens().top(10)).hasSize(4);
    assertThat(twoTokens().top(0)).isEmpty();
  }

  @Test
  void invalidTimesCountAsInvocationsWithoutTime() {
    LayerTable t = LayerTable.create().add("x", Float.NaN).add("x", -1f).add("x", 1.5f);
    assertThat(t.layers()).containsExactly(new LayerTime("x", 1.5, 3));
    t.clear();
    assertThat(t.size()).isZero();
  }
}
