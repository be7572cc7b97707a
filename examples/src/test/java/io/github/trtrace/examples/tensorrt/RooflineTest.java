package io.github.trtrace.examples.tensorrt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RooflineTest {
  /** vocab 10, hidden 4, 2 heads, FFN 8, 1 block: small enough to count by hand. */
  private static final TransformerNetwork.Config TINY = new TransformerNetwork.Config(10, 4, 2, 8, 1, 16);
  private static final Roofline.Peak H200 = Roofline.Peak.forGpu("NVIDIA H200");

  @Test
  void aDecodeStepCountsEveryWeightTheKvCacheAndTheLogits() {
    Roofline.Work w = Roofline.of(TINY, 2).decode(3);
    // FLOPs: 2 x (QKV 48 + out 16 + MLP 64 weights) + scores and context 4 x 1 x 4 x 4 + LM head 2 x 4 x 10
    assertThat(w.flops()).isEqualTo(256 + 64 + 80);
    // bytes: (128 matrix + 44 bias/norm + 40 LM head + 8 final norm) x 2 + 2 gathered rows of 4 x 2
    //        + FP16 K and V: 2 x 4 x 2 x (3 read + 1 written) + masks 4 x (3 + 1) + logits 40 + ids 8
    assertThat(w.bytes()).isEqualTo(456 + 64 + 64);
    assertThat(w.intensity()).isCloseTo(400.0 / 584, org.assertj.core.data.Offset.offset(1e-12));
  }

  @Test
  void aPrefillOfEightPositions() {
    Roofline.Work w = Roofline.of(TINY, 2).prefill(8);
    assertThat(w.flops()).isEqualTo(2048 + 1024 + 640);
    // K and V: 2 x 4 x 2 x 8 written; masks 4 x 64, logits 320, ids 64
    assertThat(w.bytes()).isEqualTo(568 + 128 + 640);
  }

  @Test
  void theDemosModelDecodesMemoryBoundAndPrefillsLongPromptsComputeBoundOnTheH200() {
    Roofline r = Roofline.of(new TransformerNetwork.Config(633, 2048, 16, 8192, 8, 4096), 2);
    assertThat(H200).isNotNull();
    assertThat(H200.ridge()).isCloseTo(206.1, org.assertj.core.data.Offset.offset(0.1));
    Roofline.Work step = r.decode(2000);
    assertThat(step.intensity()).isLessThan(1);
    assertThat(step.bound(H200)).isEqualTo("memory");
    // weights 0.83 GB and the FP16 KV cache of 2,000 positions read once, 0.13 GB
    assertThat(step.bytes()).isBetween(0.9e9, 1.0e9);
    assertThat(r.prefill(2000).bound(H200)).isEqualTo("compute");
    assertThat(r.prefill(8).bound(H200)).isEqualTo("memory");
  }

  @Test
  void attributesSetTheAchievedRatesAgainstThePeaks() {
    Map<String, String> a = Roofline.attributes("gpu.", new Roofline.Work(4.8e9, 1e12), 2.0, H200);
    assertThat(a).containsEntry("gpu.bound", "compute")          // 208.33 FLOP/B > ridge 206.1
        .containsEntry("gpu.arith_intensity", "208.33")
        .containsEntry("gpu.mem_bw_gbs", "2400.0")
        .containsEntry("gpu.mem_bw_util", "0.500")
        .containsEntry("gpu.tflops", "500.00")
        .containsEntry("gpu.flops_util", "0.505")
        .containsEntry("gpu.bytes", "4800000000");
    assertThat(Roofline.attributes("gpu.", new Roofline.Work(1, 1), 0, H200)).isEmpty();   // no device time
    assertThat(Roofline.attributes("gpu.", new Roofline.Work(1, 1), Double.NaN, H200)).isEmpty();
  }

  @Test
  void phaseAttributesAreTheFullAttributesWithoutTheRawCountsAndRates() {
    Roofline.Work w = new Roofline.Work(4.8e9, 1e12);
    Map<String, String> full = new java.util.LinkedHashMap<>(Roofline.attributes("gpu.decode.", w, 2.0, H200));
    full.keySet().removeIf(k -> k.endsWith(".bytes") || k.endsWith(".flops") || k.endsWith(".tflops")
        || k.endsWith(".mem_bw_gbs"));
    Map<String, String> phase = Roofline.phaseAttributes("gpu.decode.", w, 2.0, H200);
    assertThat(phase).containsExactlyEntriesOf(full)
        .containsOnlyKeys("gpu.decode.bound", "gpu.decode.arith_intensity", "gpu.decode.mem_bw_util",
            "gpu.decode.flops_util");
    assertThat(Roofline.phaseAttributes("gpu.decode.", w, 0, H200)).isEmpty();
  }

  @Test
  void unknownGpusHaveNoPeaksAndBadWeightSizesAreRefused() {
    assertThat(Roofline.Peak.forGpu("NVIDIA A10")).isNull();
    assertThat(Roofline.Peak.forGpu("NVIDIA H100 80GB HBM3").bytesPerSecond()).isEqualTo(3.35e12);
    assertThatThrownBy(() -> Roofline.of(TINY, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
